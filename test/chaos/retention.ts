/**
 * The retention fault of the chaos suite: days old enough for retention to remove, seeded before the
 * load starts, and what a completed run must have left of them (docs/operations.md, "Retention").
 *
 * The live project (the one the load sends to) keeps LIVE_RETENTION_DAYS, fewer than the default, so
 * its rows of a day the default still keeps are deleted in batches (the path a kill can cut short
 * between two commits); a day older than the default retention goes as a whole partition. A second
 * project, which no load reaches, keeps the default: its rows of the batch day must survive, and its
 * counts do not move while the suite looks at them.
 *
 * Events are seeded through the digest queue with an arrival time days ago, so they are stored,
 * grouped, counted and rolled up as the service does it, into the same issues as the live load's
 * events for half of its groups, and into issues of their own for the rest. A bulk of rows is then
 * written straight into the batch day, for one issue that only has expired events: tens of thousands
 * of rows make a run long enough to be killed in the middle, and the digest would take minutes for
 * them. Nothing counts those rows, and nothing is left to count once retention has removed them with
 * their issue.
 */
import { randomUUID } from 'node:crypto';
import { fixtureEventOfGroup } from '../../bench/support';
import { QueueName } from '../../src/common/queues';
import { DIGEST_JOB_OPTIONS, QueuedEvent, digestJobId, DigestJobName } from '../../src/digest/digest-job';
import { openQueue, QueueSettings } from '../../src/jobs/queue-layout';
import { eventually } from '../helpers/queues';
import { partitionOf, query, utcDay } from './db';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The live project's retention: shorter than the default, so its old rows go in batches. */
export const LIVE_RETENTION_DAYS = 3;
/** Days back of the day deleted row by row (live project only) and of the day dropped as a whole. */
const BATCH_DAY_AGO = 5;
const DROP_DAY_AGO_PAST_DEFAULT = 10;
/** Rows written straight into the batch day: several delete batches of 5,000. */
export const BULK_ROWS = 60_000;

type Day = 'drop' | 'batch';

/** One seeded group: `perDay` events on each of `days`, in the issue its family and group make. */
interface SeedGroup {
  project: 'live' | 'keeper';
  family: string;
  group: number;
  days: Day[];
  perDay: number;
}

/** What the seeding made, and what retention must do with it. */
export interface AgedData {
  keeperProjectId: number;
  dropDay: string;
  batchDay: string;
  /** Events seeded through the digest. */
  seeded: number;
  /** The live project's rows in the batch day (seeded and bulk): what the run deletes in batches. */
  liveBatchRows: number;
  /** The keeper project's rows in the batch day: what the run must keep. */
  keeperBatchRows: number;
  /** Per issue, how many of its counted events retention removes (event_count keeps counting them). */
  removed: Map<number, number>;
  /** Issues with only expired events: retention deletes them. */
  expiringIssues: number[];
  /** Issues of the live load's groups that also have expired events: kept. */
  sharedIssues: number[];
  /** The keeper project's issues that keep events, with what they must show after the run. */
  keeperIssues: Map<number, { events: number; eventCount: number }>;
}

/** The groups seeded: which issues are shared with the live load, which expire, which are kept. */
function seedGroups(liveGroups: number): SeedGroup[] {
  const groups: SeedGroup[] = [];
  // Every other group of the live load: the rest are issues retention never touches.
  for (let group = 0; group < liveGroups; group += 2) {
    groups.push({ project: 'live', family: 'Chaos', group, days: ['drop', 'batch'], perDay: 2 });
  }
  const expiring: Day[][] = [['drop'], ['drop'], ['batch'], ['batch'], ['drop', 'batch'], ['drop', 'batch']];
  expiring.forEach((days, group) =>
    groups.push({ project: 'live', family: 'Expired', group, days, perDay: 3 }),
  );
  groups.push({ project: 'keeper', family: 'Keeper', group: 0, days: ['drop'], perDay: 3 });
  groups.push({ project: 'keeper', family: 'Keeper', group: 1, days: ['batch'], perDay: 3 });
  groups.push({ project: 'keeper', family: 'Keeper', group: 2, days: ['drop', 'batch'], perDay: 3 });
  return groups;
}

export async function seedAgedDays(options: {
  databaseUrl: string;
  /** The service's queue settings: the events are seeded through its digest queue. */
  queues: QueueSettings;
  liveProjectId: number;
  liveGroups: number;
  defaultRetentionDays: number;
  log: (message: string) => void;
}): Promise<AgedData> {
  const { databaseUrl: url, liveProjectId } = options;
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const dayStart: Record<Day, number> = {
    batch: today - BATCH_DAY_AGO * DAY_MS,
    drop: today - (options.defaultRetentionDays + DROP_DAY_AGO_PAST_DEFAULT) * DAY_MS,
  };
  const [{ id: keeperProjectId }] = await query<{ id: number }>(
    url,
    `INSERT INTO projects (name, slug, client_key) VALUES ('chaos-keeper', 'chaos-keeper', $1) RETURNING id`,
    [randomUUID()],
  );
  await query(url, 'UPDATE projects SET retention_days = $2 WHERE id = $1', [
    liveProjectId,
    LIVE_RETENTION_DAYS,
  ]);

  // Environments (one of three without any) and users vary, so the rollups have more than one row
  // per issue and hour, and the shared issues more than the live load's one user.
  const jobs: { name: string; data: QueuedEvent; opts: typeof DIGEST_JOB_OPTIONS & { jobId: string } }[] = [];
  const seeded = new Map<string, { group: SeedGroup; day: Day }>();
  const groups = seedGroups(options.liveGroups);
  for (const group of groups) {
    const projectId = group.project === 'live' ? liveProjectId : keeperProjectId;
    for (const day of group.days) {
      for (let i = 0; i < group.perDay; i++) {
        const eventId = randomUUID();
        const receivedAt = dayStart[day] + HOUR_MS + (group.group * 7 + i * 97) * 60_000;
        const event: Record<string, unknown> = {
          ...fixtureEventOfGroup(group.family, group.group),
          event_id: eventId.replace(/-/g, ''),
          timestamp: receivedAt / 1000,
          environment: ['production', 'staging', undefined][(group.group + i) % 3],
          user: { id: `u${(group.group + i) % 5}` },
        };
        jobs.push({
          name: DigestJobName.Event,
          data: { projectId, eventId, receivedAt, payload: JSON.stringify(event) },
          opts: { ...DIGEST_JOB_OPTIONS, jobId: digestJobId(projectId, eventId) },
        });
        seeded.set(eventId, { group, day });
      }
    }
  }
  const digest = openQueue(options.queues, QueueName.Digest, {
    offlineQueue: true,
    maxRetriesPerRequest: null,
  });
  try {
    await digest.addBulk(jobs);
  } finally {
    await digest.close();
  }
  const ids = [...seeded.keys()];
  await eventually(async () => {
    const [{ n }] = await query<{ n: number }>(
      url,
      'SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[])',
      [ids],
    );
    if (n !== ids.length) throw new Error(`seeding: ${n} of ${ids.length} aged events stored`);
    return true;
  }, 60_000);

  const rows = await query<{ id: string; project_id: number; issue_id: number; part: string }>(
    url,
    `SELECT id::text, project_id, issue_id, tableoid::regclass::text AS part FROM events WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  const dropDay = utcDay(dayStart.drop);
  const batchDay = utcDay(dayStart.batch);
  const issueOfGroup = new Map<string, number>();
  const removed = new Map<number, number>();
  const perIssue = new Map<number, { total: number; kept: number }>();
  for (const row of rows) {
    const { group, day } = seeded.get(row.id)!;
    if (row.part !== partitionOf(day === 'drop' ? dropDay : batchDay)) {
      throw new Error(`seeding: event ${row.id} of ${day} day landed in ${row.part}`);
    }
    const groupKey = `${group.project}/${group.family}/${group.group}`;
    if ((issueOfGroup.get(groupKey) ?? row.issue_id) !== row.issue_id) {
      throw new Error(`seeding: the events of ${groupKey} went to more than one issue`);
    }
    issueOfGroup.set(groupKey, row.issue_id);
    const goes = day === 'drop' || group.project === 'live';
    if (goes) removed.set(row.issue_id, (removed.get(row.issue_id) ?? 0) + 1);
    const counts = perIssue.get(row.issue_id) ?? { total: 0, kept: 0 };
    counts.total++;
    if (!goes) counts.kept++;
    perIssue.set(row.issue_id, counts);
  }
  if (new Set(issueOfGroup.values()).size !== issueOfGroup.size) {
    throw new Error('seeding: two seeded groups share an issue');
  }
  const issuesOf = (filter: (group: SeedGroup) => boolean) =>
    groups
      .filter(filter)
      .map((group) => issueOfGroup.get(`${group.project}/${group.family}/${group.group}`)!);
  const sharedIssues = issuesOf((group) => group.family === 'Chaos');
  const expiringIssues = [...perIssue.entries()]
    .filter(([issueId, counts]) => counts.kept === 0 && !sharedIssues.includes(issueId))
    .map(([issueId]) => issueId);
  const keeperIssues = new Map(
    issuesOf((group) => group.project === 'keeper')
      .filter((issueId) => perIssue.get(issueId)!.kept > 0)
      .map((issueId) => [
        issueId,
        { events: perIssue.get(issueId)!.kept, eventCount: perIssue.get(issueId)!.total },
      ]),
  );

  // The bulk, in an issue that only has events of the batch day, spread over the day's hours.
  const bulkIssue = issueOfGroup.get('live/Expired/2')!;
  const started = Date.now();
  await query(
    url,
    `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, environment, release, level, payload)
     SELECT $1, gen_random_uuid(), $2, at, at, 'production', NULL, 'error', '{"message":"aged"}'::jsonb
       FROM (SELECT $3::timestamptz + (n % 86000) * interval '1 second' AS at FROM generate_series(1, $4) n) s`,
    [liveProjectId, bulkIssue, new Date(dayStart.batch), BULK_ROWS],
  );
  options.log(`   ${BULK_ROWS} rows written into ${partitionOf(batchDay)} in ${Date.now() - started} ms`);

  const counts = await query<{ project_id: number; n: number }>(
    url,
    `SELECT project_id, count(*)::int AS n FROM ${partitionOf(batchDay)} GROUP BY 1`,
  );
  const rowsOf = (projectId: number) => counts.find((row) => row.project_id === projectId)?.n ?? 0;
  return {
    keeperProjectId,
    dropDay,
    batchDay,
    seeded: ids.length,
    liveBatchRows: rowsOf(liveProjectId),
    keeperBatchRows: rowsOf(keeperProjectId),
    removed,
    expiringIssues,
    sharedIssues,
    keeperIssues,
  };
}

/** Rows of the live project still in the batch day, and whether each of the drop day's tables exists. */
export async function retentionProgress(
  url: string,
  aged: AgedData,
  liveProjectId: number,
): Promise<{ liveBatchRows: number; dropEvents: boolean; dropParts: boolean; issuesLeft: number }> {
  const [row] = await query<{ n: number; events: boolean; parts: boolean; issues: number }>(
    url,
    `SELECT (SELECT count(*)::int FROM ${partitionOf(aged.batchDay)} WHERE project_id = $1) AS n,
            to_regclass($2) IS NOT NULL AS events, to_regclass($3) IS NOT NULL AS parts,
            (SELECT count(*)::int FROM issues WHERE id = ANY($4::int[])) AS issues`,
    [liveProjectId, partitionOf(aged.dropDay), partitionOf(aged.dropDay, 'event_parts'), aged.expiringIssues],
  );
  return { liveBatchRows: row.n, dropEvents: row.events, dropParts: row.parts, issuesLeft: row.issues };
}

/**
 * What a completed run at `runAt` must have left (docs/operations.md, "Retention"); one line per broken promise.
 * The live load keeps writing meanwhile: only what it cannot change is looked at here (its events
 * and counts are checked once it has stopped).
 */
export async function checkRetention(
  url: string,
  aged: AgedData,
  liveProjectId: number,
  defaultRetentionDays: number,
  runAt: number,
): Promise<{ failures: string[]; facts: string[] }> {
  const failures: string[] = [];
  const facts: string[] = [];
  const expect = (ok: boolean, message: string) => {
    if (!ok) failures.push(message);
  };

  // The drop day: gone as a whole, no row of that day anywhere; and no partition of events or of
  // event parts left that every project's retention has passed (the event parts of a day go with
  // its events partition).
  const [drop] = await query<{ gone: boolean; rows: number }>(
    url,
    `SELECT to_regclass($1) IS NULL AS gone,
            (SELECT count(*)::int FROM events
              WHERE received_at >= $2::date::timestamp AT TIME ZONE 'UTC'
                AND received_at < ($2::date + 1)::timestamp AT TIME ZONE 'UTC') AS rows`,
    [partitionOf(aged.dropDay), aged.dropDay],
  );
  expect(
    drop.gone && drop.rows === 0,
    `${aged.dropDay}: partition dropped ${drop.gone}, ${drop.rows} events of that day left`,
  );
  const expired = await query<{ name: string }>(
    url,
    `SELECT c.relname AS name
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent IN ('events'::regclass, 'event_parts'::regclass)
        AND left(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']+)''\\)'), 10)::date <= $1::date`,
    [utcDay(runAt - defaultRetentionDays * DAY_MS)],
  );
  expect(
    expired.length === 0,
    `partitions past every retention left: ${expired.map((row) => row.name).join(', ')}`,
  );

  // The batch day: kept for the keeper project, emptied of the live project's rows.
  const batch = await query<{ project_id: number; n: number }>(
    url,
    `SELECT project_id, count(*)::int AS n FROM ${partitionOf(aged.batchDay)} GROUP BY 1`,
  );
  const batchRows = (projectId: number) => batch.find((row) => row.project_id === projectId)?.n ?? 0;
  expect(
    batchRows(liveProjectId) === 0,
    `${aged.batchDay}: ${batchRows(liveProjectId)} rows of the live project left`,
  );
  expect(
    batchRows(aged.keeperProjectId) === aged.keeperBatchRows,
    `${aged.batchDay}: ${batchRows(aged.keeperProjectId)} rows of the keeper project, expected ${aged.keeperBatchRows}`,
  );

  // Issues: those with only expired events gone, with their rollups; the others kept.
  const [issues] = await query<{ expiring: number; shared: number; keeper: number; orphans: number }>(
    url,
    `SELECT (SELECT count(*)::int FROM issues WHERE id = ANY($1::int[])) AS expiring,
            (SELECT count(*)::int FROM issues WHERE id = ANY($2::int[])) AS shared,
            (SELECT count(*)::int FROM issues WHERE id = ANY($3::int[])) AS keeper,
            (SELECT count(*)::int FROM issue_hourly WHERE issue_id = ANY($1::int[]))
              + (SELECT count(*)::int FROM issue_tag_values WHERE issue_id = ANY($1::int[]))
              + (SELECT count(*)::int FROM issue_tag_keys WHERE issue_id = ANY($1::int[]))
              + (SELECT count(*)::int FROM event_parts WHERE issue_id = ANY($1::int[])) AS orphans`,
    [aged.expiringIssues, aged.sharedIssues, [...aged.keeperIssues.keys()]],
  );
  expect(
    issues.expiring === 0,
    `${issues.expiring} of ${aged.expiringIssues.length} issues with only expired events left`,
  );
  expect(issues.orphans === 0, `${issues.orphans} rollup or event-part rows of deleted issues left`);
  expect(
    issues.shared === aged.sharedIssues.length,
    `${aged.sharedIssues.length - issues.shared} of ${aged.sharedIssues.length} issues that also have live events deleted`,
  );
  expect(
    issues.keeper === aged.keeperIssues.size,
    `${aged.keeperIssues.size - issues.keeper} of ${aged.keeperIssues.size} keeper issues with kept events deleted`,
  );

  // The keeper's issues get no load: exact now. event_count still counts the removed events.
  const keeper = await query<{ id: number; event_count: number; events: number; hourly: number }>(
    url,
    `SELECT i.id, i.event_count,
            (SELECT count(*)::int FROM events e WHERE e.issue_id = i.id) AS events,
            (SELECT coalesce(sum(count), 0)::int FROM issue_hourly h WHERE h.issue_id = i.id) AS hourly
       FROM issues i WHERE i.id = ANY($1::int[])`,
    [[...aged.keeperIssues.keys()]],
  );
  for (const row of keeper) {
    const expected = aged.keeperIssues.get(row.id)!;
    expect(
      row.events === expected.events &&
        row.event_count === expected.eventCount &&
        row.hourly === expected.events,
      `keeper issue ${row.id}: ${row.events} events, event_count ${row.event_count}, hourly sum ${row.hourly}; ` +
        `expected ${expected.events}, ${expected.eventCount}, ${expected.events}`,
    );
  }

  // Hourly rollups older than each project's retention at the run's clock: none left.
  const [hours] = await query<{
    live_issue: number;
    live_project: number;
    keeper_issue: number;
    keeper_project: number;
  }>(
    url,
    `SELECT (SELECT count(*)::int FROM issue_hourly h JOIN issues i ON i.id = h.issue_id
              WHERE i.project_id = $1 AND h.hour < $2) AS live_issue,
            (SELECT count(*)::int FROM project_hourly WHERE project_id = $1 AND hour < $2) AS live_project,
            (SELECT count(*)::int FROM issue_hourly h JOIN issues i ON i.id = h.issue_id
              WHERE i.project_id = $3 AND h.hour < $4) AS keeper_issue,
            (SELECT count(*)::int FROM project_hourly WHERE project_id = $3 AND hour < $4) AS keeper_project`,
    [
      liveProjectId,
      new Date(runAt - LIVE_RETENTION_DAYS * DAY_MS),
      aged.keeperProjectId,
      new Date(runAt - defaultRetentionDays * DAY_MS),
    ],
  );
  expect(
    hours.live_issue + hours.live_project + hours.keeper_issue + hours.keeper_project === 0,
    `hourly rows older than the retention left: live project ${hours.live_issue} issue / ${hours.live_project} project, ` +
      `keeper ${hours.keeper_issue} / ${hours.keeper_project}`,
  );

  // Partitions ahead of the run's clock: the day before it to three days after.
  const ahead: string[] = [];
  for (let day = runAt - DAY_MS; day <= runAt + 3 * DAY_MS; day += DAY_MS) ahead.push(utcDay(day));
  const missing = await query<{ name: string }>(
    url,
    `SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL`,
    [ahead.flatMap((day) => [partitionOf(day), partitionOf(day, 'event_parts')])],
  );
  expect(missing.length === 0, `partitions ahead missing: ${missing.map((row) => row.name).join(', ')}`);

  facts.push(
    `after it: ${aged.dropDay} ${drop.gone ? 'dropped' : 'still there'}, ${expired.length} partitions past every retention; ` +
      `${aged.batchDay}: ${batchRows(liveProjectId)} rows of the live project, ${batchRows(aged.keeperProjectId)} of the keeper; ` +
      `issues: ${issues.expiring} of ${aged.expiringIssues.length} with only expired events left, ` +
      `${issues.shared} of ${aged.sharedIssues.length} shared and ${issues.keeper} of ${aged.keeperIssues.size} keeper issues kept; ` +
      `${missing.length} of the partitions ${ahead[0]}…${ahead[ahead.length - 1]} missing`,
  );
  return { failures, facts };
}
