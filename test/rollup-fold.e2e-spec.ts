import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { normaliseEvent } from '../src/digest/event-normaliser';
import { CountedEvent, rollupDelta } from '../src/rollups/rollup-delta';
import { RollupsRepository } from '../src/rollups/rollups.repository';
import { startTestApp, TestApp } from './helpers/app';
import { freshFixtureEnvelope } from './fixtures/fixtures';
import { eventually } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const HOUR = 3_600_000;

/**
 * The fold that adds what the digest recorded in `rollup_pending` to the rollups: every recorded
 * row counted once however many folds run at once, nothing counted for an issue deleted meanwhile,
 * and a lone event in the stats without anyone asking.
 */
describe('Rollup fold', () => {
  let t: TestApp;
  let db: DataSource;
  let rollups: RollupsRepository;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestApp();
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

  async function createIssue(key: string): Promise<number> {
    const [{ id }] = await db.query(
      `WITH n AS (UPDATE projects SET next_issue_number = next_issue_number + 1 WHERE id = $1
                  RETURNING next_issue_number)
       INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state,
                           event_count, first_seen, last_seen)
       SELECT $1, $2, n.next_issue_number, 'Error', $2, '', 'error', 'open', 0, now(), now() FROM n
       RETURNING id`,
      [projectId, key],
    );
    return id;
  }

  function events(issueId: number, count: number, hourStart: number): CountedEvent[] {
    return Array.from({ length: count }, (_, i) => ({
      projectId,
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
    for (const batch of batches) {
      await db.transaction((manager) => rollups.record(manager, rollupDelta(batch)));
    }
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

  it('adds every recorded row exactly once while several folds run at once', async () => {
    await settleRollups(t.app);
    const issueIds = [
      await createIssue(`fold-a-${randomUUID()}`),
      await createIssue(`fold-b-${randomUUID()}`),
    ];
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
    const all = [...events(issueIds[0], 60, hourStart), ...events(issueIds[1], 45, hourStart)].sort(
      () => Math.random() - 0.5,
    );
    const batches: CountedEvent[][] = [];
    for (let i = 0; i < all.length; i += 7) batches.push(all.slice(i, i + 7));
    await record(batches);
    const recorded: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM rollup_pending WHERE issue_id = ANY($1)',
      [issueIds],
    );
    expect(recorded[0].n).toBeGreaterThan(2 * 10);

    // Small folds from four sessions at once, until nothing is left.
    const folders = Array.from({ length: 4 }, async () => {
      let folded = 0;
      for (let n = await rollups.fold(3); n > 0; n = await rollups.fold(3)) folded += n;
      return folded;
    });
    const folded = (await Promise.all(folders)).reduce((sum, n) => sum + n, 0);
    await settleRollups(t.app);

    // The app's own folder may have taken some of them too: what counts is the sums.
    expect(folded).toBeLessThanOrEqual(recorded[0].n);
    expect(await rollupsOf(issueIds)).toEqual(expected(all, issueIds));
  });

  it('counts nothing, in its project either, for an issue deleted before its counts were folded', async () => {
    await settleRollups(t.app);
    const before = await rollupsOf([]);
    const kept = await createIssue(`fold-kept-${randomUUID()}`);
    const deleted = await createIssue(`fold-deleted-${randomUUID()}`);
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const keptEvents = events(kept, 12, hourStart);
    await record([[...keptEvents.slice(0, 6), ...events(deleted, 9, hourStart)], keptEvents.slice(6)]);

    await t.api().delete(`/api/issues/${deleted}`).expect(204);
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
    const client = (await t.api().get(`/api/projects/${projectId}`).expect(200)).body as {
      client_key: string;
    };
    const eventId = randomUUID().replace(/-/g, '');
    await t
      .http()
      .post(`/api/${projectId}/envelope/?sentry_key=${client.client_key.replace(/-/g, '')}`)
      .set('Content-Type', 'application/x-sentry-envelope')
      .send(freshFixtureEnvelope('exception-event', eventId))
      .expect(200);
    const issueId = await eventually(async () => {
      const response = await t.api().get(`/api/events/${eventId}`);
      return response.status === 200 && (response.body as { issue_id: number }).issue_id;
    });
    // Well within the second a busy digest may wait before folding.
    const total = await eventually(async () => {
      const stats = (await t.api().get(`/api/issues/${issueId}/stats?period=24h`).expect(200)).body as {
        buckets: { count: number }[];
      };
      const sum = stats.buckets.reduce((n, bucket) => n + bucket.count, 0);
      return sum > 0 && sum;
    }, 500);
    expect(total).toBe(1);
    const pending: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM rollup_pending WHERE issue_id = $1',
      [issueId],
    );
    expect(pending[0].n).toBe(0);
  });

  it('keeps the recorded rows of a fold that failed, and the next fold adds them once', async () => {
    await settleRollups(t.app);
    const issueId = await createIssue(`fold-failed-${randomUUID()}`);
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const recorded = events(issueId, 5, hourStart);
    // The tag values of this issue cannot be written for now: a fold fails after taking its rows.
    await db.query(`
      CREATE FUNCTION fold_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE TRIGGER fold_test_refuse BEFORE INSERT ON issue_tag_values
        FOR EACH ROW WHEN (NEW.issue_id = ${Number(issueId)}) EXECUTE FUNCTION fold_test_refuse();`);
    try {
      await record([recorded]);
      await expect(rollups.fold(100)).rejects.toThrow(/refused by the test/);
      const pending: { n: number }[] = await db.query(
        'SELECT count(*)::int AS n FROM rollup_pending WHERE issue_id = $1',
        [issueId],
      );
      expect(pending[0].n).toBe(1);
      expect((await rollupsOf([issueId])).issueHours).toEqual([]);
    } finally {
      await db.query('DROP TRIGGER fold_test_refuse ON issue_tag_values; DROP FUNCTION fold_test_refuse()');
    }
    await settleRollups(t.app);
    // Project hours hold the earlier tests' counts too: the issue's own rollups are compared.
    const { projectHours: _stored, ...stored } = await rollupsOf([issueId]);
    const { projectHours: _expected, ...wanted } = expected(recorded, [issueId]);
    expect(stored).toEqual(wanted);
  });
});
