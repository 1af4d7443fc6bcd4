/**
 * The retention fault of the chaos suite (the aged days it works on are seeded by retention.ts):
 * retention run under load, the worker SIGKILLed between two delete batches, started again, a second
 * run enqueued, and what the runs left checked; at the end of the suite, what became of the cut run's
 * job, which BullMQ's stalled-job check gives back 30 to 90 s after the kill.
 */
import { readFileSync, statSync } from 'node:fs';
import { Job, Queue } from 'bullmq';
import { Client } from 'pg';
import { MaintenanceJobName } from '../../src/retention/maintenance.processor';
import type { RetentionReport } from '../../src/retention/retention.service';
import { partitionOf } from './db';
import { sleep } from './processes';
import { jobOutcome } from './queue-state';
import { AgedData, checkRetention, retentionProgress } from './retention';
import { begin, log, note, Phase, Suite } from './suite';

const RETENTION_JOB_OPTIONS = { removeOnComplete: 100, removeOnFail: 100 };

export interface KilledRun {
  job: Job;
  killedAt: number;
  phase: Phase;
  logOffset: number;
}

export async function retentionUnderLoad(
  suite: Suite,
  aged: AgedData,
  maintenance: Queue,
  defaultRetentionDays: number,
): Promise<KilledRun> {
  const { pg, worker, databaseUrl, projectId } = suite;
  const phase = begin(suite, 'retention', '4. retention under load, worker SIGKILL mid-run');
  const logOffset = statSync(pg.logFile).size;
  await sleep(3_000);
  const first = await maintenance.add(MaintenanceJobName.Retention, {}, RETENTION_JOB_OPTIONS);
  const enqueuedAt = Date.now();
  // Killed between two commits of the batch day's deletes: some of the live project's rows gone,
  // some left. The expired day (an earlier partition) is dropped before those batches start.
  let evidence = '';
  const deadline = Date.now() + 30_000;
  const monitor = new Client({ connectionString: databaseUrl });
  await monitor.connect();
  try {
    while (Date.now() < deadline) {
      const [{ n }] = (
        await monitor.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${partitionOf(aged.batchDay)} WHERE project_id = $1`,
          [projectId],
        )
      ).rows;
      if (n > 0 && n < aged.liveBatchRows) {
        evidence = `${aged.liveBatchRows - n} of ${aged.liveBatchRows} rows of the batch day deleted, ${n} left`;
        break;
      }
      const state = await first.getState();
      if (n === 0 || state === 'completed' || state === 'failed') break;
      await sleep(2);
    }
  } finally {
    await monitor.end().catch(() => undefined);
  }
  await worker.kill();
  const killedAt = Date.now();
  const cut = await retentionProgress(databaseUrl, aged, projectId);
  const stateAfterKill = await first.getState();
  note(
    phase,
    `worker SIGKILLed ${killedAt - enqueuedAt} ms after retention was enqueued: ${evidence || 'NO evidence of a run in progress'}; ` +
      `its job is ${stateAfterKill}`,
  );
  note(
    phase,
    `left by the cut run: ${aged.dropDay} ${cut.dropEvents ? 'still there' : 'dropped'} (event parts ${cut.dropParts ? 'still there' : 'dropped'}), ` +
      `${cut.liveBatchRows} of ${aged.liveBatchRows} rows of the batch day, ` +
      `${cut.issuesLeft} of ${aged.expiringIssues.length} issues with only expired events`,
  );
  if (cut.dropEvents !== cut.dropParts) {
    phase.failures.push(
      `the cut run left ${aged.dropDay} half dropped (events ${cut.dropEvents}, event parts ${cut.dropParts})`,
    );
  }
  const killedRun = { job: first, killedAt, phase, logOffset };
  await sleep(1_000);
  await worker.start();
  note(phase, 'worker started again; retention enqueued again');
  const second = await maintenance.add(MaintenanceJobName.Retention, {}, RETENTION_JOB_OPTIONS);
  const outcome = await jobOutcome(maintenance, second.id!, Date.now() + 60_000);
  if (outcome.state !== 'completed' || !outcome.finishedAt) {
    phase.failures.push(
      `the second retention run did not complete within 60 s: ${outcome.state} ${outcome.reason ?? ''}`,
    );
  } else {
    const report = outcome.report!;
    note(phase, `the second run found and did: ${describeRetention(report)}`);
    if (report.partitionsPostponed.length > 0) {
      phase.failures.push(`the second run postponed ${report.partitionsPostponed.join(', ')} (lock busy)`);
    }
    const checked = await checkRetention(
      databaseUrl,
      aged,
      projectId,
      defaultRetentionDays,
      outcome.startedAt!,
    );
    for (const fact of checked.facts) note(phase, fact);
    phase.failures.push(...checked.failures);
  }
  for (const failure of phase.failures) log(`   FAILED: ${failure}`);
  await sleep(3_000);
  return killedRun;
}

/**
 * The retention job the kill cut short is given back by BullMQ's stalled-job check 30 to 90 s after
 * the kill. It is not waited for (that would cost the run up to a minute): when it runs, it finds
 * nothing left to do, and its lone run cannot stall twice, which alone would fail it. What became
 * of it so far is reported.
 */
export async function reportKilledRun(suite: Suite, maintenance: Queue, killedRun: KilledRun): Promise<void> {
  const outcome = await jobOutcome(maintenance, killedRun.job.id!, Date.now());
  const finishedAt = outcome.finishedAt ?? Date.now();
  const before = finishedAt < killedRun.killedAt;
  const when = before
    ? 'before the kill'
    : `${((finishedAt - killedRun.killedAt) / 1000).toFixed(0)} s after the kill`;
  if (outcome.state === 'failed') {
    killedRun.phase.failures.push(`the first run's job failed ${when}: ${outcome.reason}`);
  } else if (outcome.state === 'completed' && before) {
    note(killedRun.phase, 'the first run had completed before the kill: the kill cut nothing short');
  } else if (outcome.state === 'completed') {
    note(
      killedRun.phase,
      `the cut run's job came back through the stalled-job check and completed ${when}: ${describeRetention(outcome.report!)}`,
    );
  } else {
    note(killedRun.phase, `the cut run's job is ${outcome.state} ${when}`);
  }
  // The digest retries a deadlock at once (DigestService: normal under load), so one is only
  // reported here; one that makes a retention run fail shows as that run's failed job.
  for (const deadlock of deadlocksLogged(suite.pg.logFile, killedRun.logOffset)) {
    note(killedRun.phase, `PostgreSQL: ${deadlock}`);
  }
}

/** PostgreSQL's deadlock reports in its log from `offset` on, each with the statements it names. */
function deadlocksLogged(file: string, offset: number): string[] {
  const lines = readFileSync(file).subarray(offset).toString('utf8').split('\n');
  const found: string[] = [];
  lines.forEach((line, index) => {
    if (!line.includes('ERROR:  deadlock detected')) return;
    const detail: string[] = [];
    for (const next of lines.slice(index + 1, index + 40)) {
      if (/^\S.*(HINT|STATEMENT|LOG|ERROR):/.test(next)) break;
      detail.push(next.replace(/^.*DETAIL:\s*/, '').trim());
    }
    found.push(`deadlock detected: ${detail.join(' ').replace(/\s+/g, ' ').slice(0, 600)}`);
  });
  return found;
}

function describeRetention(report: RetentionReport): string {
  return (
    `${report.partitionsCreated} partitions created, dropped [${report.partitionsDropped.join(', ')}], ` +
    `postponed [${report.partitionsPostponed.join(', ')}], ${report.eventsDeleted} events, ` +
    `${report.hourlyRowsDeleted} hourly rows, ${report.issuesDeleted} issues deleted`
  );
}
