/**
 * The chaos suite's checks over the whole run, once the load has stopped and the backlog drained:
 * the rollups folded, no id stored twice, none stored that was never sent, the counts agree with the
 * events (counts.ts), and the failed sets are empty.
 */
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Client } from 'pg';
import { pendingRollups } from '../../bench/support';
import { QueueName } from '../../src/common/queues';
import { queueKey, QueueSettings } from '../../src/jobs/queue-layout';
import { checkCounts, CountCheck, countCheckPassed } from './counts';
import { query } from './db';
import { LoadGenerator } from './load';
import { sleep } from './processes';
import { Backlog, backlog, describeBacklog, failedJobReasons } from './queue-state';
import { log, startedAt } from './suite';

export interface Consistency {
  events: number;
  eventCountSum: number;
  removedByRetention: number;
  issues: number;
  duplicateIds: number;
  failedJobs: number;
  maintenanceFailedJobs: number;
  backlogLeft: number;
  drained: boolean;
  rollupPending: number;
  countChecks: CountCheck[];
  phantoms: number;
  passed: boolean;
}

export interface RunChecks {
  consistency: Consistency;
  /** Ids of the load's project stored during this run. */
  stored: Set<string>;
  /** Ids stored more than once, with how many times. */
  duplicates: Map<string, number>;
  final: Backlog;
  failedReasons: string[];
}

export async function checkRun(options: {
  databaseUrl: string;
  projectId: number;
  redis: Redis;
  queues: QueueSettings;
  maintenance: Queue;
  load: LoadGenerator;
  drained: boolean;
  defaultRetentionDays: number;
  /** Per issue, the counted events retention removed. */
  removed: Map<number, number>;
}): Promise<RunChecks> {
  const { databaseUrl, projectId, redis, queues, maintenance, load, drained, removed } = options;
  // Recorded rollup shares are folded right after a batch, and what a killed worker left within 10 s.
  // Rows set aside as unfoldable are not waited for, but they are counts the rollups lack: what is
  // checked is every row left, waiting or set aside.
  let pending = -1;
  const folds = new Client({ connectionString: databaseUrl });
  await folds.connect();
  try {
    for (const pendingDeadline = Date.now() + 30_000; ; await sleep(250)) {
      if ((await pendingRollups(folds)) === 0 || Date.now() > pendingDeadline) break;
    }
    [{ n: pending }] = (
      await folds.query<{ n: number }>('SELECT count(*)::int AS n FROM rollup_pending')
    ).rows;
  } finally {
    await folds.end().catch(() => undefined);
  }
  if (pending !== 0) log(`rollup_pending NOT folded within 30 s: ${pending} rows`);

  // Arrived during this run: the aged days' events are neither the load's nor phantoms.
  const storedRows = await query<{ id: string }>(
    databaseUrl,
    'SELECT id::text AS id FROM events WHERE project_id = $1 AND received_at >= $2',
    [projectId, new Date(startedAt)],
  );
  const stored = new Set(storedRows.map((row) => row.id));
  const duplicates = new Map(
    (
      await query<{ id: string; n: number }>(
        databaseUrl,
        'SELECT id::text AS id, count(*)::int AS n FROM events WHERE project_id = $1 GROUP BY id HAVING count(*) > 1',
        [projectId],
      )
    ).map((row) => [row.id, row.n]),
  );
  const [totals] = await query<{ events: number; counted: number; issues: number; removed: number }>(
    databaseUrl,
    `SELECT (SELECT count(*)::int FROM events WHERE project_id = $1) AS events,
            (SELECT coalesce(sum(event_count), 0)::int FROM issues WHERE project_id = $1 AND kind = 'error') AS counted,
            (SELECT count(*)::int FROM issues WHERE project_id = $1 AND kind = 'error') AS issues,
            (SELECT coalesce(sum(r.n), 0)::int FROM unnest($2::int[], $3::int[]) AS r(id, n)
               JOIN issues i ON i.id = r.id WHERE i.project_id = $1) AS removed`,
    [projectId, [...removed.keys()], [...removed.values()]],
  );
  const countChecks = await checkCounts(databaseUrl, options.defaultRetentionDays, removed);
  const final = await backlog(redis, queues);
  const maintenanceFailed = await maintenance.getFailedCount();
  const failedReasons = await failedJobReasons(redis, queues);
  const sentIds = new Set(load.records.map((record) => record.id));
  const phantoms = [...stored].filter((id) => !sentIds.has(id)).length;

  const consistency = {
    events: totals.events,
    eventCountSum: totals.counted,
    removedByRetention: totals.removed,
    issues: totals.issues,
    duplicateIds: duplicates.size,
    failedJobs: final.failed,
    maintenanceFailedJobs: maintenanceFailed,
    backlogLeft: final.total,
    drained,
    rollupPending: pending,
    countChecks,
    phantoms,
    passed:
      countChecks.every(countCheckPassed) &&
      pending === 0 &&
      duplicates.size === 0 &&
      final.failed === 0 &&
      maintenanceFailed === 0 &&
      drained &&
      phantoms === 0,
  };

  return { consistency, stored, duplicates, final, failedReasons };
}

export function printConsistency(consistency: Consistency, queues: QueueSettings, final: Backlog): void {
  const c = consistency;
  console.log(
    `consistency: ${c.passed ? 'PASS' : 'FAIL'} — ${c.events} events stored, SUM(issues.event_count) ${c.eventCountSum} ` +
      `(${c.removedByRetention} of them removed by retention) over ${c.issues} issues, ${c.duplicateIds} duplicated ids, ` +
      `${c.failedJobs} jobs in ${queueKey(queues, QueueName.Digest, 'failed')}, ` +
      `${c.maintenanceFailedJobs} in ${queueKey(queues, QueueName.Maintenance, 'failed')}, ` +
      `backlog ${c.drained ? 'drained' : `NOT drained (${describeBacklog(final)})`}, rollup_pending ${c.rollupPending}, ` +
      `${c.phantoms} stored ids never sent`,
  );
  for (const check of c.countChecks) {
    console.log(
      `  ${countCheckPassed(check) ? 'ok  ' : 'FAIL'} ${check.name}: ${check.compared} rows compared, ${check.mismatched} differ` +
        (check.compared === 0 ? ' (nothing compared: proves nothing)' : '') +
        (check.sample.length > 0 ? `, e.g. ${check.sample.join(' ')}` : ''),
    );
  }
}
