/**
 * Cron monitors end to end, through the real ingest, digest queue and worker, PostgreSQL and Redis:
 * check-ins from @sentry/node (withMonitor, captureCheckIn), the DSN check-in URL through curl,
 * `sentry-cli monitors run` 2.x and 3.x wrapping a real command, the Python SDK when Debian's has
 * crons; Sentry's rules for late and repeated check-ins; the monitors API and its bad input.
 */
import * as Sentry from '@sentry/node';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { PYTHON, pythonSdkFeature } from './helpers/python-sdk';

const run = promisify(execFile);

interface Project {
  id: number;
  client_key: string;
}

interface CheckIn {
  id: string;
  environment: string;
  status: string;
  duration_ms: number | null;
  release: string | null;
  expected_at: string | null;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const CLI_V2 = 'node_modules/sentry-cli-v2/node_modules/@sentry/cli-linux-x64/bin/sentry-cli';
const CLI_V3 = 'node_modules/@sentry/cli-linux-x64/bin/sentry-cli';

describe('cron monitors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  async function createProject(): Promise<Project> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `crons-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
  }

  const dsnOf = (project: Project) => `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`;
  const cronUrl = (project: Project, slug: string, key = project.client_key) =>
    `${t.url}/api/${project.id}/cron/${slug}/${hex(key)}/`;

  async function checkIns(project: Project, slug: string, query = ''): Promise<CheckIn[]> {
    const page = await t.api().get(`/api/projects/${project.id}/monitors/${slug}/check-ins${query}`);
    return page.status === 200 ? (page.body.data as CheckIn[]) : [];
  }

  /** Waits until the monitor's check-ins satisfy `done`. */
  function checkInsUntil(
    project: Project,
    slug: string,
    done: (rows: CheckIn[]) => boolean,
  ): Promise<CheckIn[]> {
    let last: CheckIn[] = [];
    return eventually(async () => {
      last = await checkIns(project, slug);
      return done(last) ? last : undefined;
    }, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}; check-ins of ${slug}: ${JSON.stringify(last)}`);
    });
  }

  function envelope(project: Project, items: object[]): string {
    return [
      JSON.stringify({ dsn: dsnOf(project) }),
      ...items.flatMap((payload) => [JSON.stringify({ type: 'check_in' }), JSON.stringify(payload)]),
    ].join('\n');
  }

  async function sendEnvelope(project: Project, body: string): Promise<void> {
    await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('X-Sentry-Auth', `Sentry sentry_key=${hex(project.client_key)}, sentry_version=7`)
      .send(body)
      .expect(200);
  }

  async function outcomeTotals(project: Project): Promise<Record<string, number>> {
    await t.app.get(OutcomeFolder).fold();
    const outcomes = await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200);
    const totals: Record<string, number> = {};
    for (const row of outcomes.body.totals as {
      outcome: string;
      category: string;
      reason: string;
      quantity: number;
    }[]) {
      if (row.category === 'monitor') totals[`${row.outcome}:${row.reason}`] = row.quantity;
    }
    return totals;
  }

  describe('the API', () => {
    it('creates, lists, edits, mutes and deletes monitors, describing the schedule in words', async () => {
      const project = await createProject();
      const created = await t
        .api()
        .post(`/api/projects/${project.id}/monitors`)
        .send({
          name: 'Nightly Backup',
          schedule: { type: 'crontab', value: '0 9 * * 1' },
          timezone: 'Europe/Berlin',
          checkin_margin: 5,
          max_runtime: 20,
          failure_issue_threshold: 2,
          recovery_threshold: 3,
        })
        .expect(201);
      expect(created.body).toMatchObject({
        slug: 'nightly-backup',
        name: 'Nightly Backup',
        project_id: project.id,
        schedule: { type: 'crontab', value: '0 9 * * 1' },
        schedule_description: 'At 09:00 on Monday',
        timezone: 'Europe/Berlin',
        checkin_margin: 5,
        max_runtime: 20,
        failure_issue_threshold: 2,
        recovery_threshold: 3,
        muted: false,
        status: 'pending',
        next_expected_at: null,
        last_check_in_at: null,
        environments: [],
      });
      await t
        .api()
        .post(`/api/projects/${project.id}/monitors`)
        .send({ name: 'nightly backup', schedule: { type: 'interval', value: 1, unit: 'day' } })
        .expect(409);
      const list = await t.api().get(`/api/projects/${project.id}/monitors`).expect(200);
      expect(list.body.data.map((monitor: { slug: string }) => monitor.slug)).toEqual(['nightly-backup']);
      const muted = await t
        .api()
        .patch(`/api/projects/${project.id}/monitors/nightly-backup`)
        .send({ muted: true, schedule: { type: 'interval', value: 10, unit: 'minute' } })
        .expect(200);
      expect(muted.body).toMatchObject({ muted: true, schedule_description: 'Every 10 minutes' });
      const audit = await t.api().get('/api/audit-log').query({ action: 'monitor.update' });
      if (audit.status === 200) {
        expect(JSON.stringify(audit.body)).toContain('nightly-backup');
      }
      await t.api().delete(`/api/projects/${project.id}/monitors/nightly-backup`).expect(204);
      await t.api().get(`/api/projects/${project.id}/monitors/nightly-backup`).expect(404);
    });

    it('refuses bad settings with the reason', async () => {
      const project = await createProject();
      const post = (body: object) =>
        t
          .api()
          .post(`/api/projects/${project.id}/monitors`)
          .send({ name: 'x', ...body });
      const crontab = await post({ schedule: { type: 'crontab', value: '61 * * * *' } }).expect(400);
      expect(crontab.body.error).toMatch(/invalid crontab "61 \* \* \* \*": Constraint error, got value 61/);
      const fields = await post({ schedule: { type: 'crontab', value: '* * *' } }).expect(400);
      expect(fields.body.error).toMatch(/five fields/);
      const zone = await post({
        schedule: { type: 'crontab', value: '* * * * *' },
        timezone: 'Mars/Base',
      }).expect(400);
      expect(zone.body.error).toMatch(/unknown timezone/);
      const zero = await post({ schedule: { type: 'interval', value: 0, unit: 'minute' } }).expect(400);
      expect(zero.body.error).toMatch(/interval schedule needs a whole number of units from 1/);
      for (const threshold of [0, 721]) {
        const answer = await post({
          schedule: { type: 'crontab', value: '* * * * *' },
          failure_issue_threshold: threshold,
        }).expect(400);
        expect(answer.body.error).toMatch(/failure_issue_threshold must be a whole number from 1 to 720/);
      }
      const recovery = await post({
        schedule: { type: 'crontab', value: '* * * * *' },
        recovery_threshold: -1,
      }).expect(400);
      expect(recovery.body.error).toMatch(/recovery_threshold/);
      const margin = await post({ schedule: { type: 'crontab', value: '* * * * *' }, max_runtime: 0 }).expect(
        400,
      );
      expect(margin.body.error).toMatch(/max_runtime/);
      await post({ schedule: 'daily' }).expect(400);
      await t.api().get(`/api/projects/${project.id}/monitors/none/check-ins?cursor=zz!`).expect(404);
    });
  });

  describe('@sentry/node', () => {
    it('withMonitor creates the monitor from its config and records the run; captureCheckIn opens and closes one', async () => {
      const project = await createProject();
      const client = new Sentry.NodeClient({
        dsn: dsnOf(project),
        transport: Sentry.makeNodeTransport,
        stackParser: Sentry.defaultStackParser,
        integrations: [],
        release: 'cron-app@1.0.0',
        environment: 'node-e2e',
      });
      client.init();
      Sentry.getCurrentScope().setClient(client);
      try {
        const result = await Sentry.withMonitor(
          'Node Nightly',
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return 42;
          },
          {
            schedule: { type: 'crontab', value: '*/5 * * * *' },
            checkinMargin: 2,
            maxRuntime: 15,
            timezone: 'America/New_York',
            failureIssueThreshold: 2,
            recoveryThreshold: 2,
          },
        );
        expect(result).toBe(42);
        // The transport sends queued envelopes side by side: the run's check-ins reach the server
        // before the next ones, so that the state follows the order they were sent in.
        expect(await client.flush(5_000)).toBe(true);
        const checkInId = Sentry.captureCheckIn(
          { monitorSlug: 'node-nightly', status: 'in_progress' },
          { schedule: { type: 'interval', value: 5, unit: 'minute' } },
        );
        Sentry.captureCheckIn({ checkInId, monitorSlug: 'node-nightly', status: 'error', duration: 2.5 });
        expect(await client.flush(5_000)).toBe(true);
      } finally {
        Sentry.getCurrentScope().setClient(undefined);
        await client.close(1_000);
      }
      const rows = await checkInsUntil(
        project,
        'node-nightly',
        (list) => list.some((row) => row.status === 'ok') && list.some((row) => row.status === 'error'),
      );
      expect(rows.find((row) => row.status === 'ok')).toMatchObject({
        environment: 'node-e2e',
        release: 'cron-app@1.0.0',
      });
      expect(rows.find((row) => row.status === 'ok')!.duration_ms).toBeGreaterThanOrEqual(0);
      expect(rows.find((row) => row.status === 'error')).toMatchObject({ duration_ms: 2500 });
      const monitor = await t.api().get(`/api/projects/${project.id}/monitors/node-nightly`).expect(200);
      // The second check-in's config updated the one withMonitor created.
      expect(monitor.body).toMatchObject({
        name: 'node-nightly',
        schedule: { type: 'interval', value: 5, unit: 'minute' },
        environments: [{ environment: 'node-e2e', status: 'error', consecutive_failures: 1 }],
      });
    });
  });

  describe('the DSN check-in URL', () => {
    it('takes GET and POST check-ins from curl, answered 202', async () => {
      const project = await createProject();
      await t
        .api()
        .post(`/api/projects/${project.id}/monitors`)
        .send({ name: 'Curl Job', schedule: { type: 'crontab', value: '0 * * * *' } })
        .expect(201);
      const id = randomUUID();
      const started = await run('curl', [
        '-s',
        '-w',
        '\n%{http_code}',
        `${cronUrl(project, 'curl-job')}?status=in_progress&check_in_id=${id}&environment=prod`,
      ]);
      expect(started.stdout.trim().split('\n').pop()).toBe('202');
      await checkInsUntil(project, 'curl-job', (rows) => rows.some((row) => row.id === id));
      const finished = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-X',
        'POST',
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ status: 'ok', check_in_id: id, environment: 'prod', duration: 3 }),
        cronUrl(project, 'curl-job'),
      ]);
      expect(finished.stdout).toBe('202');
      const rows = await checkInsUntil(project, 'curl-job', (list) =>
        list.some((row) => row.id === id && row.status === 'ok'),
      );
      expect(rows).toEqual([
        expect.objectContaining({ id, environment: 'prod', status: 'ok', duration_ms: 3000 }),
      ]);
      // Without check_in_id: the heartbeat form, a check-in of its own.
      const beat = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        `${cronUrl(project, 'curl-job')}?status=ok`,
      ]);
      expect(beat.stdout).toBe('202');
      await checkInsUntil(project, 'curl-job', (list) => list.length === 2);
    });

    it('refuses bad check-ins with the reason', async () => {
      const project = await createProject();
      const other = await createProject();
      const get = (url: string) => t.http().get(url.slice(t.url.length));
      expect((await get(cronUrl(project, 'job')).expect(400)).body.error).toMatch(/status is missing/);
      expect((await get(`${cronUrl(project, 'job')}?status=done`).expect(400)).body.error).toMatch(
        /unknown status "done"/,
      );
      expect(
        (await get(`${cronUrl(project, 'job')}?status=ok&check_in_id=123`).expect(400)).body.error,
      ).toMatch(/check_in_id must be a UUID/);
      expect(
        (await get(cronUrl(project, 'job', other.client_key) + '?status=ok').expect(401)).body.error,
      ).toMatch(/unknown client key/);
      await t
        .http()
        .get(`/api/99999999/cron/job/${hex(project.client_key)}/?status=ok`)
        .expect(401);
      await t
        .http()
        .get(`/api/abc/cron/job/${hex(project.client_key)}/?status=ok`)
        .expect(400);
      const config = await t
        .http()
        .post(cronUrl(project, 'job').slice(t.url.length))
        .send({ status: 'ok', monitor_config: { schedule: { type: 'interval', value: 0, unit: 'minute' } } })
        .expect(400);
      expect(config.body.error).toMatch(/invalid monitor_config/);
      await t.http().put(cronUrl(project, 'job').slice(t.url.length)).expect(405);
    });
  });

  describe('sentry-cli monitors run', () => {
    for (const [name, binary] of [
      ['2.x', CLI_V2],
      ['3.x', CLI_V3],
    ] as const) {
      it(`${name} reports a wrapped command, its monitor made from --schedule`, async () => {
        const project = await createProject();
        const slug = `cli-${name.replace('.', '')}`;
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          SENTRY_DSN: dsnOf(project),
          SENTRY_LOG_LEVEL: 'warn',
        };
        delete env.SENTRY_AUTH_TOKEN;
        await run(
          binary,
          [
            'monitors',
            'run',
            '-e',
            'cli',
            '-s',
            '*/10 * * * *',
            '--timezone',
            'Europe/Berlin',
            '--check-in-margin',
            '3',
            slug,
            '--',
            'node',
            '-e',
            'setTimeout(() => {}, 30)',
          ],
          { env },
        );
        await expect(
          run(binary, ['monitors', 'run', '-e', 'cli', slug, '--', 'node', '-e', 'process.exit(3)'], { env }),
        ).rejects.toMatchObject({ code: 3 });
        const rows = await checkInsUntil(project, slug, (list) => list.some((row) => row.status === 'error'));
        expect(rows.map((row) => row.status).sort()).toEqual(['error', 'ok']);
        expect(rows.every((row) => row.environment === 'cli')).toBe(true);
        const monitor = await t.api().get(`/api/projects/${project.id}/monitors/${slug}`).expect(200);
        expect(monitor.body).toMatchObject({
          schedule: { type: 'crontab', value: '*/10 * * * *' },
          timezone: 'Europe/Berlin',
          checkin_margin: 3,
        });
      });
    }
  });

  const pythonCrons = pythonSdkFeature(
    'from sentry_sdk.crons import monitor',
    'the installed Python SDK has no sentry_sdk.crons (it came in sentry-sdk 1.17; pip install sentry-sdk)',
  );
  pythonCrons.itWith(pythonCrons.title('the Python SDK: @sentry_sdk.monitor'), async () => {
    const project = await createProject();
    const script = [
      'import sys, sentry_sdk',
      'from sentry_sdk.crons import monitor',
      "sentry_sdk.init(dsn=sys.argv[1], environment='python-e2e')",
      "@monitor(monitor_slug='py-job', monitor_config={'schedule': {'type': 'crontab', 'value': '0 * * * *'}})",
      'def job():',
      '    return 1',
      'job()',
      'sentry_sdk.flush(5)',
    ].join('\n');
    await run(PYTHON, ['-c', script, dsnOf(project)]);
    const rows = await checkInsUntil(project, 'py-job', (list) => list.some((row) => row.status === 'ok'));
    expect(rows[0]).toMatchObject({ environment: 'python-e2e', status: 'ok' });
  });

  describe("Sentry's check-in rules", () => {
    it('keeps the other items of an envelope and counts a bad check-in as an outcome', async () => {
      const project = await createProject();
      const eventId = hex(randomUUID());
      const body = [
        JSON.stringify({ event_id: eventId }),
        JSON.stringify({ type: 'event' }),
        JSON.stringify({ event_id: eventId, message: 'beside bad check-ins', level: 'error' }),
        JSON.stringify({ type: 'check_in' }),
        JSON.stringify({ check_in_id: 'not-a-uuid', monitor_slug: 'env-job', status: 'ok' }),
        JSON.stringify({ type: 'check_in' }),
        '{"broken',
        JSON.stringify({ type: 'check_in' }),
        JSON.stringify({
          check_in_id: hex(randomUUID()),
          monitor_slug: 'Env Job',
          status: 'ok',
          monitor_config: { schedule: { type: 'crontab', value: '0 0 * * *' }, timezone: 'Nowhere/Land' },
        }),
        JSON.stringify({ type: 'check_in' }),
        JSON.stringify({
          check_in_id: hex(randomUUID()),
          monitor_slug: 'Env Job',
          status: 'ok',
          monitor_config: { schedule: { type: 'crontab', value: '0 0 * * *' } },
        }),
      ].join('\n');
      const answer = await t
        .http()
        .post(`/api/${project.id}/envelope/`)
        .set('X-Sentry-Auth', `Sentry sentry_key=${hex(project.client_key)}, sentry_version=7`)
        .send(body)
        .expect(200);
      expect(answer.body).toEqual({ id: eventId });
      await eventually(async () => (await t.api().get(`/api/events/${eventId}`)).status === 200, 30_000);
      // The check-in with the bad config went on without it, and found the monitor its neighbour made.
      await checkInsUntil(project, 'env-job', (rows) => rows.length === 2);
      await eventually(async () => {
        const totals = await outcomeTotals(project);
        return totals['invalid:invalid_guid'] === 1 &&
          totals['invalid:invalid_check_in'] === 1 &&
          totals['invalid:invalid_monitor_config'] === 1
          ? totals
          : undefined;
      }, 60_000);
    });

    it('drops a repeated end, keeps a timed-out run timed out, and closes the latest in-progress run without an id', async () => {
      const project = await createProject();
      const config = { schedule: { type: 'crontab', value: '* * * * *' }, max_runtime: 1 };
      const first = randomUUID();
      await sendEnvelope(
        project,
        envelope(project, [
          { check_in_id: hex(first), monitor_slug: 'rules', status: 'in_progress', monitor_config: config },
        ]),
      );
      await checkInsUntil(project, 'rules', (rows) => rows.length === 1);
      await sendEnvelope(
        project,
        envelope(project, [{ check_in_id: hex(first), monitor_slug: 'rules', status: 'ok', duration: 1 }]),
      );
      await checkInsUntil(project, 'rules', (rows) => rows[0]?.status === 'ok');
      await sendEnvelope(
        project,
        envelope(project, [{ check_in_id: hex(first), monitor_slug: 'rules', status: 'error' }]),
      );
      // Never configured, no monitor_config: dropped.
      await sendEnvelope(
        project,
        envelope(project, [{ check_in_id: hex(randomUUID()), monitor_slug: 'ghost', status: 'ok' }]),
      );
      await eventually(async () => {
        const totals = await outcomeTotals(project);
        return totals['invalid:checkin_finished'] === 1 && totals['invalid:invalid_monitor'] === 1;
      }, 60_000);
      expect((await checkIns(project, 'rules'))[0]).toMatchObject({
        id: first,
        status: 'ok',
        duration_ms: 1000,
      });
      await t.api().get(`/api/projects/${project.id}/monitors/ghost`).expect(404);

      // No id: the latest in-progress run is the one closed.
      const second = randomUUID();
      await sendEnvelope(
        project,
        envelope(project, [{ check_in_id: hex(second), monitor_slug: 'rules', status: 'in_progress' }]),
      );
      await checkInsUntil(project, 'rules', (rows) => rows.some((row) => row.id === second));
      await t
        .http()
        .get(`${cronUrl(project, 'rules').slice(t.url.length)}?status=error`)
        .expect(202);
      await checkInsUntil(
        project,
        'rules',
        (rows) => rows.find((row) => row.id === second)?.status === 'error',
      );
      expect(await checkIns(project, 'rules')).toHaveLength(2);
    });
  });
});
