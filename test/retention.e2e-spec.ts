import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { QueuedEvent, digestJobId, DigestJobName } from '../src/digest/digest-job';
import { EventPartitions } from '../src/events/event-partitions';
import { RetentionReport, RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';
import { testDatabaseUrl } from './helpers/test-env';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const startOfDay = (at: number) => Math.floor(at / DAY) * DAY;
const partitionName = (at: number) => `events_p${new Date(at).toISOString().slice(0, 10).replace(/-/g, '')}`;

interface Partition {
  name: string;
  from: number | null;
  to: number;
}

/** Everything a retention run may touch, read straight from the database. */
interface Snapshot {
  partitions: Partition[];
  /** Rows per (partition, project, issue). */
  events: { part: string; project_id: number; issue_id: number; n: number }[];
  issues: { id: number; project_id: number; last_seen: Date; merged_into_id: number | null }[];
  /** Event parts per (issue, day they are stored under). */
  parts: { issue_id: number; project_id: number; day: string; n: number }[];
  issueHours: { issue_id: number; project_id: number; hour: Date }[];
  projectHours: { project_id: number; hour: Date }[];
  acceptedHours: { project_id: number; hour: Date }[];
  outcomeHours: { project_id: number; hour: Date }[];
  /** Release health's hourly rows, of both tables. */
  healthHours: { project_id: number; hour: Date }[];
  feedback: { project_id: number; received_at: Date }[];
  cronCheckIns: { created_at: Date }[];
  uptimeChecks: { due_at: Date }[];
  uptimeHours: { hour: Date }[];
  attachments: { project_id: number; received_at: Date }[];
  /** Pending blobs the sweep would delete now. */
  blobsDue: number;
  retention: Map<number, number | null>;
  alertHistory: { id: number; created_at: Date; status: string }[];
  sessions: { token_hash: string; expires_at: Date }[];
}

async function snapshot(db: DataSource): Promise<Snapshot> {
  const partitions: { name: string; from: Date | null; to: Date }[] = await db.query(
    `SELECT c.relname AS name,
            CASE WHEN m[1] = 'MINVALUE' THEN NULL ELSE btrim(m[1], '''')::timestamptz END AS "from",
            m[2]::timestamptz AS "to"
       FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid,
            LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), $$FROM \\((.+)\\) TO \\('(.+)'\\)$$) m
      WHERE i.inhparent = 'events'::regclass`,
  );
  return {
    partitions: partitions
      .map((p) => ({ name: p.name, from: p.from?.getTime() ?? null, to: p.to.getTime() }))
      .sort((a, b) => a.to - b.to),
    events: await db.query(
      `SELECT tableoid::regclass::text AS part, project_id, issue_id, count(*)::int AS n
         FROM events GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
    issues: await db.query('SELECT id, project_id, last_seen, merged_into_id FROM issues ORDER BY id'),
    parts: await db.query(
      `SELECT p.issue_id, i.project_id, p.day::text AS day, count(*)::int AS n
         FROM event_parts p JOIN issues i ON i.id = p.issue_id GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
    issueHours: await db.query(
      `SELECT h.issue_id, i.project_id, h.hour FROM issue_hourly h JOIN issues i ON i.id = h.issue_id
        ORDER BY 1, 3, h.environment`,
    ),
    projectHours: await db.query('SELECT project_id, hour FROM project_hourly ORDER BY 1, 2, environment'),
    // The events accepted per hour of receipt: history, which only retention deletes.
    acceptedHours: await db.query('SELECT project_id, hour FROM project_accepted_hourly ORDER BY 1, 2'),
    // Outcomes are hourly rows too, left by any earlier test file that shares this database.
    outcomeHours: await db.query('SELECT project_id, hour FROM outcomes_hourly ORDER BY 1, 2'),
    // Feedback and attachments other test files left in this shared database expire with the rest.
    feedback: await db.query('SELECT project_id, received_at FROM feedback'),
    cronCheckIns: await db.query('SELECT created_at FROM cron_check_ins'),
    uptimeChecks: await db.query('SELECT due_at FROM uptime_checks'),
    uptimeHours: await db.query('SELECT hour FROM uptime_check_hours'),
    attachments: await db.query('SELECT project_id, received_at FROM attachments'),
    blobsDue: Number(
      (await db.query('SELECT count(*) AS n FROM pending_blobs WHERE delete_after <= now()'))[0].n,
    ),
    healthHours: await db.query(
      'SELECT project_id, hour FROM release_health_hourly UNION ALL SELECT project_id, hour FROM release_health_users',
    ),
    retention: new Map(
      (await db.query('SELECT id, retention_days FROM projects')).map(
        (row: { id: number; retention_days: number | null }) => [row.id, row.retention_days],
      ),
    ),
    alertHistory: await db.query('SELECT id, created_at, status FROM alert_history ORDER BY id'),
    sessions: await db.query('SELECT token_hash, expires_at FROM sessions ORDER BY token_hash'),
  };
}

/**
 * What one retention run at `now` must do, worked out from the documented policy: a day partition
 * goes when every project's retention has passed its end; otherwise the rows of each project whose
 * retention has passed the partition's end are deleted; hourly rollups older than their project's
 * cutoff go; an issue goes when its last_seen is older than its project's cutoff and none of its
 * events is left; alert history (not pending) older than the default retention and expired
 * sessions go; partitions are made from the day before `now` to 3 days after it.
 */
function plan(before: Snapshot, now: number, defaultDays: number) {
  const days = (projectId: number) => before.retention.get(projectId) ?? defaultDays;
  const cutoff = (projectId: number) => now - days(projectId) * DAY;
  const longest = Math.max(defaultDays, ...[...before.retention.values()].map((d) => d ?? defaultDays));
  const byName = new Map(before.partitions.map((p) => [p.name, p]));
  expect(before.partitions.every((p) => p.from !== null)).toBe(true); // no partition open to the past here
  const dropped = before.partitions.filter((p) => p.to <= now - longest * DAY).map((p) => p.name);
  const goes = (row: { part: string; project_id: number }) => {
    const partition = byName.get(row.part) as Partition;
    return dropped.includes(row.part) || partition.to <= cutoff(row.project_id);
  };
  const eventsDeleted = before.events
    .filter((row) => !dropped.includes(row.part) && goes(row))
    .reduce((sum, row) => sum + row.n, 0);
  const remainingEvents = before.events.filter((row) => !goes(row));
  // Merged issues (pointers) go with the issue they point to, uncounted: the database deletes them.
  const issuesDeleted = before.issues
    .filter(
      (issue) =>
        issue.merged_into_id === null &&
        issue.last_seen.getTime() < cutoff(issue.project_id) &&
        !remainingEvents.some((row) => row.issue_id === issue.id),
    )
    .map((issue) => issue.id);
  const pointersDeleted = before.issues
    .filter((issue) => issue.merged_into_id !== null && issuesDeleted.includes(issue.merged_into_id))
    .map((issue) => issue.id);
  // A part stored under day D serves arrivals up to D's end: it goes with D's partition, or once its
  // project's cutoff has passed D; then the parts of the issues that go.
  const partDropped = (day: string) => dropped.includes(partitionName(Date.parse(day)));
  const partExpired = (row: { day: string; project_id: number }) =>
    Date.parse(row.day) + DAY <= startOfDay(cutoff(row.project_id));
  const partsDeleted = before.parts
    .filter((row) => !partDropped(row.day) && partExpired(row))
    .reduce((sum, row) => sum + row.n, 0);
  // Attachments go with the whole day of events they belong to.
  const attachmentsDeleted = before.attachments.filter(
    (row) => row.received_at.getTime() < startOfDay(cutoff(row.project_id)),
  ).length;
  const hourlyRowsDeleted =
    before.issueHours.filter((row) => row.hour.getTime() < cutoff(row.project_id)).length +
    before.projectHours.filter((row) => row.hour.getTime() < cutoff(row.project_id)).length +
    before.acceptedHours.filter((row) => row.hour.getTime() < cutoff(row.project_id)).length +
    before.outcomeHours.filter((row) => row.hour.getTime() < cutoff(row.project_id)).length +
    before.healthHours.filter((row) => row.hour.getTime() < cutoff(row.project_id)).length;
  const ahead: string[] = [];
  for (let day = startOfDay(now - DAY); day <= startOfDay(now + 3 * DAY); day += DAY)
    ahead.push(partitionName(day));
  return {
    dropped,
    eventsDeleted,
    remainingEvents,
    issuesDeleted,
    remainingIssues: before.issues
      .filter((issue) => !issuesDeleted.includes(issue.id) && !pointersDeleted.includes(issue.id))
      .map((issue) => issue.id),
    remainingParts: before.parts.filter(
      (row) => !partDropped(row.day) && !partExpired(row) && !issuesDeleted.includes(row.issue_id),
    ),
    partsDeleted,
    hourlyRowsDeleted,
    remainingIssueHours: before.issueHours.filter(
      (row) => row.hour.getTime() >= cutoff(row.project_id) && !issuesDeleted.includes(row.issue_id),
    ),
    remainingProjectHours: before.projectHours.filter((row) => row.hour.getTime() >= cutoff(row.project_id)),
    ahead,
    partitionsCreated: ahead.filter((name) => !byName.has(name)).length,
    alertHistoryDeleted: before.alertHistory.filter(
      (row) => row.created_at.getTime() < now - defaultDays * DAY && row.status !== 'pending',
    ).length,
    sessionsDeleted: before.sessions.filter((row) => row.expires_at.getTime() < now).length,
    feedbackDeleted: before.feedback.filter((row) => row.received_at.getTime() < cutoff(row.project_id))
      .length,
    // Other test files' clocks may have left check-ins far in the past in the shared database.
    cronCheckInsDeleted: before.cronCheckIns.filter((row) => row.created_at.getTime() < now - 95 * DAY).length,
    uptimeRowsDeleted:
      before.uptimeChecks.filter((row) => row.due_at.getTime() < now - 2 * DAY).length +
      before.uptimeHours.filter((row) => row.hour.getTime() < now - 95 * DAY).length,
    attachmentsDeleted,
    // The sweep deletes the blobs already due and those of the attachments deleted now.
    blobsDeleted: before.blobsDue + attachmentsDeleted,
  };
}

type Plan = ReturnType<typeof plan>;

/** The database after a run is what the plan says. */
function expectState(after: Snapshot, expected: Plan): void {
  expect(after.events).toEqual(expected.remainingEvents);
  expect(after.issues.map((issue) => issue.id)).toEqual(expected.remainingIssues);
  expect(after.parts).toEqual(expected.remainingParts);
  expect(after.issueHours).toEqual(expected.remainingIssueHours);
  expect(after.projectHours).toEqual(expected.remainingProjectHours);
  const names = after.partitions.map((p) => p.name);
  for (const name of expected.dropped) expect(names).not.toContain(name);
  for (const name of expected.ahead) expect(names).toContain(name);
}

function expectReport(report: RetentionReport, expected: Plan): void {
  expect({
    ...report,
    partitionsDropped: [...report.partitionsDropped].sort(),
  }).toEqual({
    partitionsCreated: expected.partitionsCreated,
    partitionsDropped: [...expected.dropped].sort(),
    partitionsPostponed: [],
    eventsDeleted: expected.eventsDeleted,
    partsDeleted: expected.partsDeleted,
    hourlyRowsDeleted: expected.hourlyRowsDeleted,
    issuesDeleted: expected.issuesDeleted.length,
    alertHistoryDeleted: expected.alertHistoryDeleted,
    sessionsDeleted: expected.sessionsDeleted,
    artifactBundlesDeleted: 0,
    chunksDeleted: 0,
    auditEntriesDeleted: 0,
    feedbackDeleted: expected.feedbackDeleted,
    attachmentsDeleted: expected.attachmentsDeleted,
    orphanAttachmentsDeleted: 0,
    blobsDeleted: expected.blobsDeleted,
    uptimeRowsDeleted: expected.uptimeRowsDeleted,
    cronCheckInsDeleted: expected.cronCheckInsDeleted,
  });
}

const NOTHING_LEFT = {
  partitionsCreated: 0,
  partitionsDropped: [],
  partitionsPostponed: [],
  eventsDeleted: 0,
  partsDeleted: 0,
  hourlyRowsDeleted: 0,
  issuesDeleted: 0,
  alertHistoryDeleted: 0,
  sessionsDeleted: 0,
  artifactBundlesDeleted: 0,
  chunksDeleted: 0,
  auditEntriesDeleted: 0,
  feedbackDeleted: 0,
  attachmentsDeleted: 0,
  orphanAttachmentsDeleted: 0,
  blobsDeleted: 0,
  uptimeRowsDeleted: 0,
  cronCheckInsDeleted: 0,
};

describe('retention', () => {
  let t: TestApp;
  let db: DataSource;
  let digest: Queue;
  let retention: RetentionService;
  let defaultDays: number;
  const runTag = randomUUID().slice(0, 8);

  async function createProject(name: string): Promise<number> {
    const response = await t
      .api()
      .post('/api/projects')
      .send({ name: `${name} ${runTag}` })
      .expect(201);
    return response.body.id;
  }

  /** Enqueues one event as ingest would, with the arrival time chosen by the test. */
  async function send(
    queue: Queue,
    projectId: number,
    payload: Record<string, unknown>,
    options: { eventId?: string; receivedAt?: number; jobId?: string } = {},
  ): Promise<string> {
    const eventId = options.eventId ?? randomUUID();
    const data: QueuedEvent = {
      projectId,
      eventId,
      receivedAt: options.receivedAt ?? Date.now(),
      payload: JSON.stringify(payload),
    };
    await queue.add(DigestJobName.Event, data, {
      jobId: options.jobId ?? digestJobId(projectId, eventId),
      removeOnComplete: true,
      removeOnFail: 1000,
      attempts: 3,
      backoff: { type: 'exponential', delay: 200 },
    });
    return eventId;
  }

  async function drained(queue: Queue): Promise<void> {
    await eventually(async () => {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
      return Object.values(counts).every((n) => n === 0);
    }, 30_000);
    await settleRollups(t.app);
  }

  async function count(sql: string, parameters: unknown[]): Promise<number> {
    const [{ n }] = await db.query(`SELECT (${sql})::int AS n`, parameters);
    return n;
  }

  const eventsOf = (projectId: number) =>
    count('SELECT count(*) FROM events WHERE project_id = $1', [projectId]);

  async function issuesOf(projectId: number): Promise<number[]> {
    const rows: { id: number }[] = await db.query('SELECT id FROM issues WHERE project_id = $1 ORDER BY id', [
      projectId,
    ]);
    return rows.map((row) => row.id);
  }

  async function rollupRows(issueIds: number[], projectId: number) {
    return {
      issueHourly: await count('SELECT count(*) FROM issue_hourly WHERE issue_id = ANY($1)', [issueIds]),
      tagValues: await count('SELECT count(*) FROM issue_tag_values WHERE issue_id = ANY($1)', [issueIds]),
      tagKeys: await count('SELECT count(*) FROM issue_tag_keys WHERE issue_id = ANY($1)', [issueIds]),
      projectHourly: await count('SELECT count(*) FROM project_hourly WHERE project_id = $1', [projectId]),
    };
  }

  /** Many rows of one issue at once, straight into today's partition: enough for several batches. */
  async function bulkInsert(projectId: number, issueId: number, rows: number): Promise<void> {
    await db.query(
      `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, environment, release, level, payload)
       SELECT $1, gen_random_uuid(), $2, now() - interval '1 minute', now(), 'bulk', NULL, 'error', '{}'::jsonb
         FROM generate_series(1, $3)`,
      [projectId, issueId, rows],
    );
  }

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    retention = t.app.get(RetentionService);
    defaultDays = t.config.EVENT_RETENTION_DAYS;
    expect(defaultDays).toBe(90);
    // The reports below count what this file made; source map uploads of earlier test files (in
    // the same database) would expire in its runs far ahead. test/artifact-retention covers those.
    await db.query('DELETE FROM artifact_bundles');
    await db.query('DELETE FROM file_chunks');
  });

  afterAll(async () => {
    // The runs below dropped today's partition and others: put back what later test files expect.
    await t.app.get(EventPartitions).ensureDays(new Date(Date.now() - DAY), new Date(Date.now() + 3 * DAY));
    await digest.close();
    await t.close();
  });

  describe('PATCH retention_days', () => {
    it('accepts 1 to 3650 or null, refuses anything else naming the field, and shows it', async () => {
      const created = await t
        .api()
        .post('/api/projects')
        .send({ name: `Retention Settings ${runTag}` })
        .expect(201);
      expect(created.body.retention_days).toBeNull();
      const url = `/api/projects/${created.body.id}`;

      for (const bad of [0, -1, 3651, 1.5, '30', '', true, [30], { days: 30 }]) {
        const response = await t.api().patch(url).send({ retention_days: bad }).expect(400);
        expect({ bad, error: response.body.error }).toEqual({
          bad,
          error: expect.stringContaining('retention_days'),
        });
      }
      const empty = await t.api().patch(url).send({}).expect(400);
      expect(empty.body.error).toEqual(expect.stringContaining('retention_days'));
      await t
        .api()
        .patch(url)
        .send({ retention: 5 })
        .expect(400, { error: 'property retention should not exist' });
      // Nothing was changed by the refused requests.
      expect((await t.api().get(url).expect(200)).body.retention_days).toBeNull();

      for (const days of [30, 1, 3650]) {
        const changed = await t.api().patch(url).send({ retention_days: days }).expect(200);
        expect(changed.body.retention_days).toBe(days);
        expect((await t.api().get(url).expect(200)).body.retention_days).toBe(days);
        const list = await t.api().get('/api/projects').expect(200);
        expect(list.body.data.find((p: { id: number }) => p.id === created.body.id).retention_days).toBe(
          days,
        );
        expect(await count('SELECT retention_days FROM projects WHERE id = $1', [created.body.id])).toBe(
          days,
        );
      }
      // A rename leaves the retention alone; both at once change both.
      const renamed = await t.api().patch(url).send({ name: 'Renamed Retention' }).expect(200);
      expect([renamed.body.name, renamed.body.retention_days]).toEqual(['Renamed Retention', 3650]);
      const both = await t.api().patch(url).send({ name: 'Both', retention_days: 7 }).expect(200);
      expect([both.body.name, both.body.retention_days]).toEqual(['Both', 7]);

      const reset = await t.api().patch(url).send({ retention_days: null }).expect(200);
      expect(reset.body.retention_days).toBeNull();
      expect((await t.api().get(url).expect(200)).body).toMatchObject({ retention_days: null, name: 'Both' });
      const [{ retention_days: stored }] = await db.query(
        'SELECT retention_days FROM projects WHERE id = $1',
        [created.body.id],
      );
      expect(stored).toBeNull();

      await t
        .api()
        .patch('/api/projects/99999999')
        .send({ retention_days: 5 })
        .expect(404, { error: 'project not found' });
    });
  });

  describe('deleting', () => {
    it('an issue or a project removes its events in every partition and its rollup rows', async () => {
      const project = await createProject('Deleted Across Days');
      const now = Date.now();
      // Arrivals yesterday, today and tomorrow: three partitions.
      const arrivals = [startOfDay(now) - 30 * 60_000, now, startOfDay(now) + DAY + 30 * 60_000];
      const doomed: string[] = [];
      for (const receivedAt of arrivals) {
        doomed.push(
          await send(
            digest,
            project,
            {
              message: 'doomed issue',
              fingerprint: ['doomed'],
              environment: 'production',
              user: { id: 'u1' },
              tags: { k: 'v' },
            },
            { receivedAt },
          ),
        );
      }
      const kept = await send(digest, project, {
        message: 'kept issue',
        fingerprint: ['kept'],
        environment: 'staging',
      });
      await drained(digest);
      const [doomedIssue] = await db.query('SELECT DISTINCT issue_id FROM events WHERE id = ANY($1)', [
        doomed,
      ]);
      const [keptIssue] = await db.query('SELECT issue_id FROM events WHERE id = $1', [kept]);
      const parts = await db.query(
        'SELECT DISTINCT tableoid::regclass::text AS part FROM events WHERE id = ANY($1)',
        [doomed],
      );
      expect(parts.map((row: { part: string }) => row.part).sort()).toEqual(
        arrivals.map(partitionName).sort(),
      );
      const before = await rollupRows([doomedIssue.issue_id], project);
      expect(Object.values(before).every((n) => n > 0)).toBe(true);

      await t.api().delete(`/api/issues/${doomedIssue.issue_id}`).expect(204);
      expect(await count('SELECT count(*) FROM events WHERE issue_id = $1', [doomedIssue.issue_id])).toBe(0);
      for (const id of doomed) await t.api().get(`/api/events/${id}`).expect(404);
      const { projectHourly: _projectRows, ...issueRows } = await rollupRows([doomedIssue.issue_id], project);
      expect(issueRows).toEqual({ issueHourly: 0, tagValues: 0, tagKeys: 0 });
      await t.api().get(`/api/events/${kept}`).expect(200);

      const keptRows = await rollupRows([keptIssue.issue_id], project);
      expect(keptRows.issueHourly).toBeGreaterThan(0);
      await t.api().delete(`/api/projects/${project}`).expect(204);
      expect(await eventsOf(project)).toBe(0);
      expect(await issuesOf(project)).toEqual([]);
      await t.api().get(`/api/events/${kept}`).expect(404);
      expect(await rollupRows([keptIssue.issue_id], project)).toEqual({
        issueHourly: 0,
        tagValues: 0,
        tagKeys: 0,
        projectHourly: 0,
      });
      await t.api().get(`/api/projects/${project}/stats`).expect(404, { error: 'project not found' });
    });
  });

  describe('a resent event id', () => {
    it('is stored once when its copies arrive on different UTC days', async () => {
      const project = await createProject('Resent Across Midnight');
      const now = Date.now();
      const yesterday = startOfDay(now) - 30 * 60_000;
      const payload = (fingerprint: string) => ({
        message: 'crossing midnight',
        fingerprint: [fingerprint],
        environment: 'production',
        user: { id: 'u1' },
        tags: { shard: 'a' },
      });

      // First copy yesterday, resend today; and the other way round (a delayed job with the earlier
      // arrival time digested after the later copy); and copies 47 hours apart.
      const cases = [
        { name: 'first yesterday', arrivals: [yesterday, now] },
        { name: 'first today', arrivals: [now, yesterday] },
        { name: '47 hours apart', arrivals: [now - 47 * HOUR, now] },
      ];
      for (const { name, arrivals } of cases) {
        const eventId = randomUUID();
        await send(digest, project, payload(name), { eventId, receivedAt: arrivals[0] });
        await drained(digest);
        const [stored] = await db.query(
          'SELECT issue_id, tableoid::regclass::text AS part FROM events WHERE id = $1',
          [eventId],
        );
        expect({ name, part: stored.part }).toEqual({ name, part: partitionName(arrivals[0]) });
        expect(partitionName(arrivals[1])).not.toBe(stored.part);
        const issueBefore = (await t.api().get(`/api/issues/${stored.issue_id}`).expect(200)).body;
        const rollupsBefore = await db.query(
          `SELECT (SELECT json_agg(h ORDER BY h.hour) FROM issue_hourly h WHERE issue_id = $1) AS hours,
                  (SELECT json_agg(v ORDER BY v.key, v.value) FROM issue_tag_values v WHERE issue_id = $1) AS tags,
                  (SELECT json_agg(k ORDER BY k.key) FROM issue_tag_keys k WHERE issue_id = $1) AS keys,
                  (SELECT json_agg(p ORDER BY p.hour, p.environment) FROM project_hourly p WHERE project_id = $2) AS project`,
          [stored.issue_id, project],
        );

        // The resend, under another job id, as a new ingest would queue it.
        await send(digest, project, payload(name), {
          eventId,
          receivedAt: arrivals[1],
          jobId: `${digestJobId(project, eventId)}_resend`,
        });
        await drained(digest);
        expect(await digest.getFailedCount()).toBe(0);

        const rows = await db.query(
          'SELECT tableoid::regclass::text AS part, received_at FROM events WHERE id = $1',
          [eventId],
        );
        expect({ name, rows }).toEqual({
          name,
          rows: [{ part: stored.part, received_at: new Date(arrivals[0]) }],
        });
        const served = await t.api().get(`/api/events/${eventId}`).expect(200);
        expect(served.body.received_at).toBe(new Date(arrivals[0]).toISOString());
        const issueAfter = (await t.api().get(`/api/issues/${stored.issue_id}`).expect(200)).body;
        expect(issueAfter).toEqual(issueBefore);
        expect(issueAfter.event_count).toBe(1);
        const rollupsAfter = await db.query(
          `SELECT (SELECT json_agg(h ORDER BY h.hour) FROM issue_hourly h WHERE issue_id = $1) AS hours,
                  (SELECT json_agg(v ORDER BY v.key, v.value) FROM issue_tag_values v WHERE issue_id = $1) AS tags,
                  (SELECT json_agg(k ORDER BY k.key) FROM issue_tag_keys k WHERE issue_id = $1) AS keys,
                  (SELECT json_agg(p ORDER BY p.hour, p.environment) FROM project_hourly p WHERE project_id = $2) AS project`,
          [stored.issue_id, project],
        );
        expect(rollupsAfter).toEqual(rollupsBefore);
        expect(issueAfter.user_count).toBe(1);
      }
      expect(await eventsOf(project)).toBe(cases.length);
    });
  });

  describe('per-project retention', () => {
    it('deletes the rows of a project that keeps 2 days in batches, keeping the partition for the others', async () => {
      const short = await createProject('Keeps Two Days');
      const long = await createProject('Keeps The Default');
      await t.api().patch(`/api/projects/${short}`).send({ retention_days: 2 }).expect(200);
      const now = Date.now();
      for (let i = 0; i < 6; i++) {
        for (const project of [short, long]) {
          await send(digest, project, {
            message: `retention ${i % 2}`,
            fingerprint: [`retention-${i % 2}`],
            environment: i % 3 === 0 ? 'production' : 'staging',
            user: { id: `u${i}` },
            timestamp: (now - i * HOUR) / 1000,
          });
        }
      }
      await drained(digest);
      const shortIssues = await issuesOf(short);
      const longIssues = await issuesOf(long);
      expect([shortIssues.length, longIssues.length]).toEqual([2, 2]);
      await bulkInsert(short, shortIssues[0], 12_000);
      expect(await eventsOf(short)).toBe(12_006);
      const longStats = (await t.api().get(`/api/projects/${long}/stats?period=14d`).expect(200)).body;

      // Which transaction deleted each of the short-lived project's rows.
      const today = partitionName(now);
      await db.query(`
        CREATE TABLE retention_delete_log (txid xid8 NOT NULL, project_id int NOT NULL);
        CREATE FUNCTION retention_log_delete() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO retention_delete_log VALUES (pg_current_xact_id(), OLD.project_id);
          RETURN OLD;
        END $$;
        CREATE TRIGGER retention_log_delete AFTER DELETE ON ${today} FOR EACH ROW EXECUTE FUNCTION retention_log_delete();
      `);
      try {
        const at = now + 3 * DAY;
        const before = await snapshot(db);
        const expected = plan(before, at, defaultDays);
        expect(expected.dropped).toEqual([]);
        const report = await retention.run(new Date(at));
        expectReport(report, expected);
        expectState(await snapshot(db), expected);

        expect(await eventsOf(short)).toBe(0);
        expect(await eventsOf(long)).toBe(6);
        expect(report.eventsDeleted).toBeGreaterThanOrEqual(12_006);
        const batches: { txid: string; n: number }[] = await db.query(
          'SELECT txid::text, count(*)::int AS n FROM retention_delete_log WHERE project_id = $1 GROUP BY 1',
          [short],
        );
        expect(batches.reduce((sum, batch) => sum + batch.n, 0)).toBe(12_006);
        expect(batches.length).toBeGreaterThanOrEqual(2);
        expect(Math.max(...batches.map((batch) => batch.n))).toBeLessThan(12_006);
        expect(await count('SELECT count(*) FROM retention_delete_log WHERE project_id = $1', [long])).toBe(
          0,
        );
      } finally {
        await db.query(`
          DROP TRIGGER IF EXISTS retention_log_delete ON ${today};
          DROP FUNCTION IF EXISTS retention_log_delete();
          DROP TABLE IF EXISTS retention_delete_log;
        `);
      }
      // The partition is still there: the other project keeps it.
      expect(await count(`SELECT count(*) FROM pg_inherits WHERE inhrelid = to_regclass($1)`, [today])).toBe(
        1,
      );

      // The short-lived project's issues had no event left: gone with their rollups.
      expect(await issuesOf(short)).toEqual([]);
      expect(await rollupRows(shortIssues, short)).toEqual({
        issueHourly: 0,
        tagValues: 0,
        tagKeys: 0,
        projectHourly: 0,
      });
      for (const id of shortIssues) await t.api().get(`/api/issues/${id}/stats`).expect(404);
      for (const period of ['24h', '14d', '90d']) {
        const stats = await t.api().get(`/api/projects/${short}/stats?period=${period}`).expect(200);
        expect(stats.body.buckets.length).toBe(period === '24h' ? 24 : Number(period.slice(0, -1)));
        expect(stats.body.buckets.every((bucket: { count: number }) => bucket.count === 0)).toBe(true);
      }
      // The other project is untouched.
      expect(await issuesOf(long)).toEqual(longIssues);
      expect((await t.api().get(`/api/projects/${long}/stats?period=14d`).expect(200)).body).toEqual(
        longStats,
      );
      expect(
        longStats.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0),
      ).toBe(6);
    });
  });

  describe('shared event parts', () => {
    it('go for a project whose retention has passed their day, and stay for the others', async () => {
      const short = await createProject('Parts For One Day');
      const long = await createProject('Parts For The Default');
      await t.api().patch(`/api/projects/${short}`).send({ retention_days: 1 }).expect(200);
      for (const project of [short, long]) {
        await send(digest, project, {
          message: 'parts',
          fingerprint: ['parts'],
          exception: {
            values: [
              {
                type: 'Error',
                value: 'x',
                stacktrace: { frames: [{ function: 'f', filename: 'a.js', lineno: 1 }] },
              },
            ],
          },
        });
      }
      await drained(digest);
      const partsOf = (project: number) =>
        count(
          'SELECT count(*) FROM event_parts p JOIN issues i ON i.id = p.issue_id WHERE i.project_id = $1',
          [project],
        );
      expect(await partsOf(short)).toBeGreaterThan(0);
      expect(await partsOf(long)).toBeGreaterThan(0);

      // A week and more on: the default keeps the day's partitions, the short project's rows go.
      const at = Date.now() + 9 * DAY;
      const before = await snapshot(db);
      const expected = plan(before, at, defaultDays);
      expect(expected.dropped).toEqual([]);
      expect(expected.partsDeleted).toBeGreaterThan(0);
      const report = await retention.run(new Date(at));
      expectReport(report, expected);
      expectState(await snapshot(db), expected);
      expect(await partsOf(short)).toBe(0);
      expect(await partsOf(long)).toBeGreaterThan(0);
      expect(await retention.run(new Date(at))).toEqual(NOTHING_LEFT);
    });
  });

  describe('an interrupted run', () => {
    it('leaves a state the next runs finish, even two at once, as one run would have', async () => {
      const short = await createProject('Interrupted');
      const long = await createProject('Interrupted Default');
      await t.api().patch(`/api/projects/${short}`).send({ retention_days: 1 }).expect(200);
      const now = Date.now();
      for (let i = 0; i < 4; i++) {
        for (const project of [short, long]) {
          await send(digest, project, {
            message: `interrupted ${i % 2}`,
            fingerprint: [`interrupted-${i % 2}`],
            user: { email: `u${i}@example.com` },
            timestamp: (now - i * HOUR) / 1000,
          });
        }
      }
      await drained(digest);
      const shortIssues = await issuesOf(short);
      await bulkInsert(short, shortIssues[0], 12_000);
      const total = await eventsOf(short);
      expect(total).toBe(12_004);

      const at = new Date(now + 2 * DAY);
      const expected = plan(await snapshot(db), at.getTime(), defaultDays);
      const today = partitionName(now);
      // The run fails halfway through deleting: the first batch commits, the second hits an error.
      await db.query(`
        CREATE SEQUENCE retention_fault_seq;
        CREATE FUNCTION retention_fault() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.project_id = ${Number(short)} AND nextval('retention_fault_seq') > 7000 THEN
            RAISE EXCEPTION 'injected failure';
          END IF;
          RETURN OLD;
        END $$;
        CREATE TRIGGER retention_fault BEFORE DELETE ON ${today} FOR EACH ROW EXECUTE FUNCTION retention_fault();
      `);
      try {
        await expect(retention.run(at)).rejects.toThrow('injected failure');
      } finally {
        await db.query(`
          DROP TRIGGER IF EXISTS retention_fault ON ${today};
          DROP FUNCTION IF EXISTS retention_fault();
          DROP SEQUENCE IF EXISTS retention_fault_seq;
        `);
      }
      const left = await eventsOf(short);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(total);
      expect(await issuesOf(short)).toEqual(shortIssues);

      // Two runs at once carry on where it stopped.
      const reports = await Promise.all([retention.run(at), retention.run(at)]);
      expect(reports[0].eventsDeleted + reports[1].eventsDeleted).toBe(left);
      expect(reports[0].issuesDeleted + reports[1].issuesDeleted).toBe(shortIssues.length);
      expectState(await snapshot(db), expected);
      expect(await eventsOf(short)).toBe(0);
      expect(await eventsOf(long)).toBe(4);

      // And a run after them has nothing left to do.
      expect(await retention.run(at)).toEqual(NOTHING_LEFT);
    });
  });

  describe('a day without a partition', () => {
    it('lets two sessions ensure the same partition at once', async () => {
      const day = new Date(startOfDay(Date.now() + 500 * DAY)).toISOString().slice(0, 10);
      const [first, second] = [
        new Client({ connectionString: testDatabaseUrl() }),
        new Client({ connectionString: testDatabaseUrl() }),
      ];
      await first.connect();
      await second.connect();
      try {
        await first.query('BEGIN');
        expect(
          (await first.query('SELECT events_ensure_partition($1::date) AS created', [day])).rows,
        ).toEqual([{ created: true }]);
        // The second session finds no partition, and waits for the first to finish creating it.
        const waiting = second.query('SELECT events_ensure_partition($1::date) AS created', [day]).then(
          (result) => result.rows,
          (error: Error) => error.message,
        );
        await eventually(
          async () =>
            (await count(`SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`, [])) >
            0,
        );
        await first.query('COMMIT');
        expect(await waiting).toEqual([{ created: false }]);
      } finally {
        await first.end();
        await second.end();
      }
    });

    it('still stores an event when another process creates that partition meanwhile', async () => {
      const project = await createProject('Partition Race');
      const day = startOfDay(Date.now() + 400 * DAY);
      const name = partitionName(day);
      expect(await count('SELECT count(*) FROM pg_class WHERE relname = $1', [name])).toBe(0);
      // Another process (a second worker, a retention run) is creating partitions: it holds the lock
      // events_ensure_partition takes (724012, see the migration) while the worker needs the same day.
      const other = new Client({ connectionString: testDatabaseUrl() });
      await other.connect();
      let eventId: string;
      try {
        await other.query('SELECT pg_advisory_lock(724012)');
        eventId = await send(digest, project, { message: 'partition race' }, { receivedAt: day + HOUR });
        await eventually(
          async () =>
            (await count(
              `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 724012 AND NOT granted`,
              [],
            )) > 0,
        );
        await other.query('SELECT events_ensure_partition($1::date)', [
          new Date(day).toISOString().slice(0, 10),
        ]);
      } finally {
        await other.query('SELECT pg_advisory_unlock_all()');
        await other.end();
      }
      await eventually(async () => {
        const counts = await digest.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(counts).every((n) => n === 0);
      });
      const failed = await digest.getFailed();
      // (Not left for the tests below to trip over.)
      await digest.clean(0, 1000, 'failed');
      expect(failed.map((job) => job.failedReason)).toEqual([]);
      expect(await count('SELECT count(*) FROM events WHERE id = $1', [eventId])).toBe(1);
    });
  });

  describe('expired days', () => {
    let worker: TestApp;
    let workerQueue: Queue;

    beforeAll(async () => {
      // A second worker process: it learns which partitions exist before the run drops them.
      worker = await startTestApp({ APP_ROLE: 'worker' });
      workerQueue = openQueue(worker, QueueName.Digest);
    });
    afterAll(async () => {
      await workerQueue.close();
      await worker.close();
    });

    it('drop whole partitions 91 days on, with their issues, rollups, old alert history and sessions', async () => {
      const project = await createProject('Expiring');
      const now = Date.now();
      const expiring: string[] = [];
      for (let i = 0; i < 4; i++) {
        expiring.push(
          await send(digest, project, {
            message: `expiring ${i % 2}`,
            fingerprint: [`expiring-${i % 2}`],
            environment: 'production',
            user: { id: `u${i}` },
            tags: { n: String(i) },
          }),
        );
      }
      // An issue whose last event has an old timestamp but arrives tomorrow: kept while that event is.
      const survivor = await send(
        digest,
        project,
        { message: 'late arrival', fingerprint: ['late'], timestamp: now / 1000 },
        { receivedAt: startOfDay(now) + DAY + HOUR },
      );
      const viaWorker = await send(workerQueue, project, { message: 'via worker', fingerprint: ['worker'] });
      await drained(digest);
      await drained(workerQueue);
      const expiringIssues: number[] = (
        await db.query('SELECT DISTINCT issue_id FROM events WHERE id = ANY($1) ORDER BY 1', [
          [...expiring, viaWorker],
        ])
      ).map((row: { issue_id: number }) => row.issue_id);
      expect(expiringIssues).toHaveLength(3);
      const [{ issue_id: survivorIssue }] = await db.query('SELECT issue_id FROM events WHERE id = $1', [
        survivor,
      ]);

      const cutoff = now + DAY; // 91 days on, less the default 90
      await db.query(
        `INSERT INTO alert_history (project_id, alert_type, channel_type, channel_name, status, idempotency_key, created_at)
         VALUES ($1, 'new_issue', 'webhook', 'hook', 'sent', $2, $4),
                ($1, 'new_issue', 'webhook', 'hook', 'pending', $3, $4),
                ($1, 'new_issue', 'webhook', 'hook', 'failed', $5, $6)`,
        [
          project,
          `old-${runTag}`,
          `pending-${runTag}`,
          new Date(now - 10 * DAY),
          `recent-${runTag}`,
          new Date(cutoff + DAY),
        ],
      );
      const [user] = await db.query(
        `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`,
        [`retention-${runTag}@example.com`],
      );
      await db.query(
        `INSERT INTO sessions (token_hash, user_id, expires_at) VALUES (repeat('a', 64), $1, $2), (repeat('b', 64), $1, $3)`,
        [user.id, new Date(now + 30 * DAY), new Date(now + 200 * DAY)],
      );

      const at = now + 91 * DAY;
      const before = await snapshot(db);
      const expected = plan(before, at, defaultDays);
      // Today's partition (and any older one) goes as a whole.
      expect(expected.dropped).toContain(partitionName(now));
      expect(expected.dropped.every((name) => name <= partitionName(now))).toBe(true);
      expect(expected.issuesDeleted).toEqual(expect.arrayContaining(expiringIssues));
      expect(expected.issuesDeleted).not.toContain(survivorIssue);

      const report = await retention.run(new Date(at));
      expectReport(report, expected);
      const after = await snapshot(db);
      expectState(after, expected);

      const inherited: string[] = (
        await db.query(
          `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'events'::regclass`,
        )
      ).map((row: { name: string }) => row.name);
      for (const name of expected.dropped) {
        expect(inherited).not.toContain(name);
        expect(await count('SELECT count(*) FROM pg_class WHERE relname = $1', [name])).toBe(0);
      }
      // Partitions ahead of the run's clock.
      for (let day = startOfDay(at); day <= startOfDay(at + 3 * DAY); day += DAY) {
        expect(inherited).toContain(partitionName(day));
      }

      for (const id of [...expiring, viaWorker])
        await t.api().get(`/api/events/${id}`).expect(404, { error: 'event not found' });
      for (const id of expiringIssues)
        await t.api().get(`/api/issues/${id}`).expect(404, { error: 'issue not found' });
      expect(await rollupRows(expiringIssues, project)).toEqual({
        issueHourly: 0,
        tagValues: 0,
        tagKeys: 0,
        projectHourly: 0,
      });
      await t.api().get(`/api/events/${survivor}`).expect(200);
      await t.api().get(`/api/issues/${survivorIssue}`).expect(200);

      const history: { idempotency_key: string }[] = await db.query(
        'SELECT idempotency_key FROM alert_history WHERE project_id = $1 ORDER BY idempotency_key',
        [project],
      );
      expect(history.map((row) => row.idempotency_key)).toEqual([`pending-${runTag}`, `recent-${runTag}`]);
      expect(await count('SELECT count(*) FROM sessions WHERE user_id = $1', [user.id])).toBe(1);

      // A run at the same time again has nothing to do.
      expect(await retention.run(new Date(at))).toEqual(NOTHING_LEFT);

      // Both workers still store new events, though the partition of today is gone. The other worker
      // still believes it exists (it stored an event there): it learns otherwise from the insert.
      // (One after the other: two at once would race to create it, see "a day without a partition".)
      const freshViaWorker = await send(workerQueue, project, {
        message: 'after the run',
        fingerprint: ['fresh'],
      });
      await drained(workerQueue);
      const fresh = await send(digest, project, { message: 'after the run', fingerprint: ['fresh'] });
      await drained(digest);
      expect(await workerQueue.getFailedCount()).toBe(0);
      expect(await digest.getFailedCount()).toBe(0);
      const stored = await db.query(
        'SELECT id, tableoid::regclass::text AS part FROM events WHERE id = ANY($1) ORDER BY received_at',
        [[freshViaWorker, fresh]],
      );
      expect(stored).toEqual([
        { id: freshViaWorker, part: partitionName(Date.now()) },
        { id: fresh, part: partitionName(Date.now()) },
      ]);
    });

    it('runs twice at once, dropping the same partitions, and the next run finds nothing left', async () => {
      const now = Date.now();
      const at = new Date(now + 92 * DAY);
      // The partitions ahead of this clock exist already (see the next test for when they do not).
      await t.app
        .get(EventPartitions)
        .ensureDays(new Date(at.getTime() - DAY), new Date(at.getTime() + 3 * DAY));
      const before = await snapshot(db);
      const expected = plan(before, at.getTime(), defaultDays);
      // Tomorrow's partition, with the late arrival of the test above, has expired too now.
      expect(expected.dropped).toContain(partitionName(now + DAY));
      expect(expected.issuesDeleted.length).toBeGreaterThan(0);
      const reports = await Promise.all([retention.run(at), retention.run(at)]);
      expect(new Set([...reports[0].partitionsDropped, ...reports[1].partitionsDropped])).toEqual(
        new Set(expected.dropped),
      );
      expect(reports.flatMap((report) => report.partitionsPostponed)).toEqual([]);
      expect(reports[0].issuesDeleted + reports[1].issuesDeleted).toBe(expected.issuesDeleted.length);
      expectState(await snapshot(db), expected);
      expect(await retention.run(at)).toEqual(NOTHING_LEFT);
    });

    it('creates a partition ahead once when two runs need it at the same time', async () => {
      // Far enough on that none of the partitions ahead exists yet.
      const at = new Date(Date.now() + 200 * DAY);
      const ahead: string[] = [];
      for (let day = startOfDay(at.getTime() - DAY); day <= startOfDay(at.getTime() + 3 * DAY); day += DAY) {
        ahead.push(partitionName(day));
      }
      expect(await count('SELECT count(*) FROM pg_class WHERE relname = ANY($1)', [ahead])).toBe(0);
      const results = await Promise.allSettled([retention.run(at), retention.run(at)]);
      expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'ok'))).toEqual([
        'ok',
        'ok',
      ]);
      const reports = results.map((result) => (result as PromiseFulfilledResult<RetentionReport>).value);
      expect(reports[0].partitionsCreated + reports[1].partitionsCreated).toBe(ahead.length);
      expect(await count('SELECT count(*) FROM pg_class WHERE relname = ANY($1)', [ahead])).toBe(
        ahead.length,
      );
    });
  });
});
