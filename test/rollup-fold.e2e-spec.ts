import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { normaliseEvent } from '../src/digest/event-normaliser';
import { CountedEvent, rollupDelta } from '../src/rollups/rollup-delta';
import { RollupFolder } from '../src/rollups/rollup-folder';
import { RollupsRepository } from '../src/rollups/rollups.repository';
import { startTestApp, TestApp } from './helpers/app';
import { sendFixture } from './fixtures/fixtures';
import { eventually, storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const HOUR = 3_600_000;

/**
 * The fold that adds what the digest recorded in `rollup_pending` to the rollups: every recorded
 * row counted once however many folds run at once, nothing counted for an issue deleted meanwhile,
 * and a lone event in the stats without anyone asking.
 */
describe('Rollup fold', () => {
  // An api process: no digest and no folder of its own, so that nothing folds but the tests.
  let t: TestApp;
  let db: DataSource;
  let rollups: RollupsRepository;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api' });
    db = t.app.get(DataSource);
    rollups = t.app.get(RollupsRepository);
    projectId = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Fold ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body.id;
  });

  afterAll(async () => {
    await t?.close();
  });

  async function pendingOf(issueIds: number[]): Promise<number> {
    const [{ n }]: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM rollup_pending WHERE issue_id = ANY($1) AND failed_at IS NULL',
      [issueIds],
    );
    return n;
  }

  async function createIssue(key: string, project = projectId): Promise<number> {
    const [{ id }] = await db.query(
      `WITH n AS (UPDATE projects SET next_issue_number = next_issue_number + 1 WHERE id = $1
                  RETURNING next_issue_number)
       INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state,
                           event_count, first_seen, last_seen)
       SELECT $1, $2, n.next_issue_number, 'Error', $2, '', 'error', 'open', 0, now(), now() FROM n
       RETURNING id`,
      [project, key],
    );
    return id;
  }

  function events(issueId: number, count: number, hourStart: number, project = projectId): CountedEvent[] {
    return Array.from({ length: count }, (_, i) => ({
      projectId: project,
      issueId,
      event: normaliseEvent(
        {
          timestamp: (hourStart + (i % 3) * HOUR + i * 1_000) / 1000,
          environment: i % 2 ? 'production' : 'staging',
          user: { id: `u${i % 5}` },
          tags: { shard: `s${i % 4}` },
        },
        { eventId: randomUUID().replace(/-/g, ''), receivedAt: hourStart },
      ),
    }));
  }

  /** Records batches as the digest does, each in a transaction of its own. */
  async function record(batches: CountedEvent[][]): Promise<void> {
    for (const batch of batches) await recordLikeTheDigest(batch);
  }

  /**
   * The digest records a batch's counts after its event insert has taken its projects' key-share
   * locks and after it has locked the batch's issues in id order. Recording without those locks
   * deadlocks with a project's deletion, whose cascade deletes the issues in the table's order,
   * not in id order: a race the digest never runs.
   */
  async function recordLikeTheDigest(batch: CountedEvent[]): Promise<void> {
    await db.transaction(async (manager) => {
      await manager.query('SELECT id FROM projects WHERE id = ANY($1::int[]) ORDER BY id FOR KEY SHARE', [
        [...new Set(batch.map((event) => event.projectId))],
      ]);
      await manager.query('SELECT id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE', [
        [...new Set(batch.map((event) => event.issueId))],
      ]);
      await rollups.record(manager, batch);
    });
  }

  async function rollupsOf(issueIds: number[]) {
    return {
      issueHours: await db.query(
        `SELECT issue_id AS id, hour, environment, count FROM issue_hourly WHERE issue_id = ANY($1)
          ORDER BY 1, 2, 3`,
        [issueIds],
      ),
      projectHours: await db.query(
        'SELECT project_id AS id, hour, environment, count FROM project_hourly WHERE project_id = $1 ORDER BY 2, 3',
        [projectId],
      ),
      tagValues: await db.query(
        `SELECT issue_id, key, value, count FROM issue_tag_values WHERE issue_id = ANY($1) ORDER BY 1, 2, 3`,
        [issueIds],
      ),
      tagKeys: await db.query(
        `SELECT issue_id, key, total, distinct_values FROM issue_tag_keys WHERE issue_id = ANY($1) ORDER BY 1, 2`,
        [issueIds],
      ),
      userCounts: await db.query('SELECT id, user_count FROM issues WHERE id = ANY($1) ORDER BY id', [
        issueIds,
      ]),
    };
  }

  function expected(all: CountedEvent[], issueIds: number[]) {
    const delta = rollupDelta(all.filter((event) => issueIds.includes(event.issueId)));
    const distinct = (issueId: number, key: string) =>
      delta.tagValues.filter((row) => row.issueId === issueId && row.key === key).length;
    return {
      issueHours: delta.issueHours.map(({ id, hour, environment, count }) => ({
        id,
        hour,
        environment,
        count,
      })),
      projectHours: delta.projectHours,
      tagValues: delta.tagValues.map(({ issueId, key, value, count }) => ({
        issue_id: issueId,
        key,
        value,
        count,
      })),
      tagKeys: delta.tagKeys.map(({ issueId, key, total }) => ({
        issue_id: issueId,
        key,
        total,
        distinct_values: distinct(issueId, key),
      })),
      userCounts: [...issueIds].sort((a, b) => a - b).map((id) => ({ id, user_count: distinct(id, 'user') })),
    };
  }

  it('adds every recorded row exactly once while batches record, folds run at once and a project is deleted', async () => {
    await settleRollups(t.app);
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
    const issueIds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createIssue(`fold-${i}-${randomUUID()}`)),
    );
    const doomedProject = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Fold doomed ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body.id as number;
    const doomedIssues = await Promise.all(
      Array.from({ length: 4 }, (_, i) => createIssue(`fold-doomed-${i}-${randomUUID()}`, doomedProject)),
    );
    const all = issueIds.flatMap((issueId, i) => events(issueId, 20 + i * 5, hourStart));
    const doomedEvents = doomedIssues.flatMap((issueId) => events(issueId, 15, hourStart, doomedProject));
    const batches: CountedEvent[][] = [];
    const mixed = [...all, ...doomedEvents].sort(() => Math.random() - 0.5);
    for (let i = 0; i < mixed.length; i += 9) batches.push(mixed.slice(i, i + 9));

    // Three sessions record batches while three fold small slices, and the project goes meanwhile.
    let recording = true;
    const recorders = [0, 1, 2].map(async (lane) => {
      for (let i = lane; i < batches.length; i += 3) {
        try {
          await recordLikeTheDigest(batches[i]);
        } catch (error) {
          // The project went first: as the digest does on its retry, the others' share is recorded.
          if ((error as { code?: string }).code !== '23503') throw error;
          await recordLikeTheDigest(batches[i].filter((event) => !doomedIssues.includes(event.issueId)));
        }
      }
    });
    const folders = [0, 1, 2].map(async () => {
      let folded = 0;
      while (recording || (await pendingOf([...issueIds, ...doomedIssues])) > 0)
        folded += await rollups.fold(4);
      return folded;
    });
    const deletion = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await t.api().delete(`/api/projects/${doomedProject}`).expect(204);
    })();
    await Promise.all([...recorders, deletion]);
    recording = false;
    await Promise.all(folders);
    await settleRollups(t.app);

    // The deleted project's rows went with it, whether folded before or not; the others' add up.
    expect(await rollupsOf(issueIds)).toEqual(expected(all, issueIds));
    expect(
      await db.query('SELECT count(*)::int AS n FROM project_hourly WHERE project_id = $1', [doomedProject]),
    ).toEqual([{ n: 0 }]);
  });

  it('counts nothing, in its project either, for an issue deleted before its counts were folded', async () => {
    await settleRollups(t.app);
    const before = await rollupsOf([]);
    const kept = await createIssue(`fold-kept-${randomUUID()}`);
    const deleted = await createIssue(`fold-deleted-${randomUUID()}`);
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const keptEvents = events(kept, 12, hourStart);
    await record([[...keptEvents.slice(0, 6), ...events(deleted, 9, hourStart)], keptEvents.slice(6)]);
    expect(await pendingOf([deleted])).toBe(1);

    await t.api().delete(`/api/issues/${deleted}`).expect(204);
    expect(await pendingOf([deleted])).toBe(0);
    await settleRollups(t.app);

    const projectHours = new Map<string, number>();
    for (const row of [...before.projectHours, ...rollupDelta(keptEvents).projectHours]) {
      const key = `${new Date(row.hour).toISOString()} ${row.environment}`;
      projectHours.set(key, (projectHours.get(key) ?? 0) + row.count);
    }
    const after = await rollupsOf([kept, deleted]);
    expect(
      new Map(
        after.projectHours.map((row: { hour: Date; environment: string; count: number }) => [
          `${row.hour.toISOString()} ${row.environment}`,
          row.count,
        ]),
      ),
    ).toEqual(projectHours);
    expect(after.tagValues.every((row: { issue_id: number }) => row.issue_id === kept)).toBe(true);
    const { projectHours: _, ...issueRollups } = after;
    const { projectHours: __, ...keptExpected } = expected(keptEvents, [kept]);
    expect({
      ...issueRollups,
      userCounts: after.userCounts.filter((row: { id: number }) => row.id === kept),
    }).toEqual(keptExpected);
  });

  it('folds what one stored event recorded without being asked, while the digest is otherwise idle', async () => {
    const worker = await startTestApp({ REDIS_PREFIX: t.config.REDIS_PREFIX });
    try {
      const client = (await t.api().get(`/api/projects/${projectId}`).expect(200)).body as {
        client_key: string;
      };
      const eventId = randomUUID().replace(/-/g, '');
      await sendFixture(worker, { id: projectId, client_key: client.client_key }, eventId);
      const { issue_id: issueId } = await storedEvent(t, eventId);
      // Well within the second a busy digest may wait before folding, and the 10 s sweep.
      const total = await eventually(async () => {
        const stats = (await t.api().get(`/api/issues/${issueId}/stats?period=24h`).expect(200)).body as {
          buckets: { count: number }[];
        };
        const sum = stats.buckets.reduce((n, bucket) => n + bucket.count, 0);
        return sum > 0 && sum;
      }, 3_000);
      expect(total).toBe(1);
      expect(await pendingOf([issueId])).toBe(0);
    } finally {
      await worker.close();
    }
  });

  it('keeps the recorded rows of a fold that failed; rows that keep failing are set aside, the others folded', async () => {
    await settleRollups(t.app);
    const poisoned = await createIssue(`fold-poisoned-${randomUUID()}`);
    const healthy = await createIssue(`fold-healthy-${randomUUID()}`);
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const poisonedEvents = events(poisoned, 5, hourStart);
    const healthyEvents = events(healthy, 7, hourStart);
    // The tag values of one issue cannot be written for now: a fold fails after taking its rows.
    await db.query(`
      CREATE FUNCTION fold_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE TRIGGER fold_test_refuse BEFORE INSERT ON issue_tag_values
        FOR EACH ROW WHEN (NEW.issue_id = ${Number(poisoned)}) EXECUTE FUNCTION fold_test_refuse();`);
    const folder = new RollupFolder(rollups);
    try {
      await record([poisonedEvents]);
      await record([healthyEvents]);
      await expect(rollups.fold(100)).rejects.toThrow(/refused by the test/);
      expect(await pendingOf([poisoned, healthy])).toBe(2);
      expect((await rollupsOf([poisoned, healthy])).issueHours).toEqual([]);

      // The folder tries once, then issue by issue: the healthy one is folded, the other set aside.
      folder.batchStored(false);
      await eventually(async () => (await pendingOf([poisoned, healthy])) === 0, 10_000);
      const [aside] = await db.query('SELECT error FROM rollup_pending WHERE issue_id = $1', [poisoned]);
      expect(aside.error).toMatch(/refused by the test/);
      const { projectHours: _h, ...healthyRollups } = await rollupsOf([healthy]);
      const { projectHours: _e, ...healthyExpected } = expected(healthyEvents, [healthy]);
      expect(healthyRollups).toEqual(healthyExpected);
    } finally {
      folder.onApplicationShutdown();
      await db.query('DROP TRIGGER fold_test_refuse ON issue_tag_values; DROP FUNCTION fold_test_refuse()');
    }
    // Once the cause is gone, clearing failed_at lets the next fold add them, once.
    await db.query('UPDATE rollup_pending SET failed_at = NULL, error = NULL WHERE issue_id = $1', [
      poisoned,
    ]);
    await settleRollups(t.app);
    const { projectHours: _stored, ...stored } = await rollupsOf([poisoned]);
    const { projectHours: _wanted, ...wanted } = expected(poisonedEvents, [poisoned]);
    expect(stored).toEqual(wanted);
  });
});
