import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { LOCK_PROJECTS_FOR_NUMBERING } from '../src/issues/issues.repository';
import { startTestApp, TestApp } from './helpers/app';

describe('locks the digest takes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api' });
  });
  afterAll(() => t.close());

  it('numbering issues of a project does not hold back events being stored for it', async () => {
    const project = (await t.api().post('/api/projects').send({ name: 'Locks' }).expect(201)).body as {
      id: number;
    };
    const database = t.app.get(DataSource);
    const [issue] = (await database.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, event_count,
                           first_seen, last_seen)
       VALUES ($1, 'k', 1, 'E', 'm', '', 'error', 'open', 0, now(), now()) RETURNING id`,
      [project.id],
    )) as { id: number }[];
    const numbering = database.createQueryRunner();
    const storing = database.createQueryRunner();
    try {
      await numbering.startTransaction();
      await numbering.query(LOCK_PROJECTS_FOR_NUMBERING, [[project.id]]);
      await storing.startTransaction();
      await storing.query("SET LOCAL lock_timeout = '1s'");
      // What a batch of the project writes. With FOR UPDATE the project's hourly count waits for the
      // numbering transaction (its foreign key takes KEY SHARE on the project) and fails on the lock
      // timeout.
      await storing.query(
        `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, level, payload)
         VALUES ($1, $2, $3, now(), now(), 'error', '{}')`,
        [project.id, randomUUID(), issue.id],
      );
      await storing.query(
        `INSERT INTO project_hourly (project_id, hour, environment, count)
         VALUES ($1, date_trunc('hour', now()), '', 1)`,
        [project.id],
      );
      await storing.commitTransaction();
    } finally {
      if (storing.isTransactionActive) await storing.rollbackTransaction();
      if (numbering.isTransactionActive) await numbering.rollbackTransaction();
      await storing.release();
      await numbering.release();
    }
  });
});
