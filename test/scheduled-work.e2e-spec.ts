import { DataSource } from 'typeorm';
import { AlertJobName } from '../src/issues/transitions/alert-trigger';
import { QueueName } from '../src/common/queues';
import { MaintenanceJobName } from '../src/retention/maintenance.processor';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';

describe('scheduled work with several worker processes', () => {
  const apps: TestApp[] = [];

  beforeAll(async () => {
    const first = await startTestApp({ APP_ROLE: 'worker', RETENTION_SCHEDULE: '17 * * * *' });
    apps.push(
      first,
      await startTestApp({
        APP_ROLE: 'worker',
        RETENTION_SCHEDULE: '17 * * * *',
        REDIS_PREFIX: first.config.REDIS_PREFIX,
      }),
    );
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('registers one schedule per task for the whole installation, not one per worker', async () => {
    const alerts = openQueue(apps[0], QueueName.Alerts);
    const maintenance = openQueue(apps[0], QueueName.Maintenance);
    try {
      const schedules = await eventually(async () => {
        const found = [...(await alerts.getJobSchedulers()), ...(await maintenance.getJobSchedulers())];
        return found.length >= 7 && found;
      }, 10_000);
      expect(schedules.map((schedule) => [schedule.name, schedule.every ?? schedule.pattern]).sort()).toEqual(
        [
          [AlertJobName.CheckSpikes, 60_000],
          [MaintenanceJobName.EndSnoozes, 60_000],
          [AlertJobName.EvaluateReleaseHealth, 60_000],
          [MaintenanceJobName.FoldOutcomes, 60_000],
          [MaintenanceJobName.FoldSessions, 60_000],
          [MaintenanceJobName.Retention, '17 * * * *'],
          [AlertJobName.SweepOutbox, 15_000],
        ],
      );
    } finally {
      await alerts.close();
      await maintenance.close();
    }
  });

  it('sweeps the alert outbox on schedule: a trigger left behind is published', async () => {
    const db = apps[0].app.get(DataSource);
    const [project] = await db.query(
      `INSERT INTO projects (name, slug, client_key) VALUES ('Sweep', 'sweep-' || substr(md5(random()::text), 1, 8),
       gen_random_uuid()) RETURNING id`,
    );
    const [issue] = await db.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, first_seen, last_seen)
       VALUES ($1, 'k', 1, 'E', 'm', now(), now()) RETURNING id`,
      [project.id],
    );
    await db.query(
      `INSERT INTO alert_trigger_outbox (alert_type, project_id, issue_id, occurred_at, created_at)
       VALUES ('new_issue', $1, $2, now(), now() - interval '1 minute')`,
      [project.id, issue.id],
    );
    await eventually(async () => {
      const [{ n }] = await db.query(
        'SELECT count(*)::int AS n FROM alert_trigger_outbox WHERE issue_id = $1',
        [issue.id],
      );
      return n === 0;
    }, 25_000);
  }, 30_000);
});
