/** The chaos suite's report: one row per fault, and the ends of the logs when something failed. */
import Redis from 'ioredis';
import type { QueueSettings } from '../../src/jobs/queue-layout';
import { ACK, formatOutcomes, LoadGenerator } from './load';
import { tail } from './processes';
import { explainLost, failedJobReasons } from './queue-state';
import type { Phase } from './suite';

export interface PhaseReport {
  fault: string;
  sent: number;
  acknowledged: number;
  stored: number;
  lost: number;
  duplicated: number;
  storedWithoutAck: number;
  statuses: string;
  lostBreakdown: string;
  notes: string[];
  failures: string[];
  /** Why the fault was not injected; such a phase is neither passed nor failed. */
  skipped?: string;
  /** Seconds from the phase's start to the next one's (or to the end of the load). */
  seconds: number;
  result: 'PASS' | 'FAIL' | 'SKIP';
  /** False for a skipped phase too, which is not counted as failed. */
  passed: boolean;
}

/**
 * One report per phase: its requests (by the phase they were sent in) and what became of the
 * acknowledged ones, plus, for a fault that ran, the api's 5xx other than 503 and the digest jobs
 * that landed in the failed set from its start to the next fault's (the last one's: to now).
 */
export async function phaseReports(options: {
  phases: Phase[];
  load: LoadGenerator;
  redis: Redis;
  queues: QueueSettings;
  stored: Set<string>;
  duplicates: Map<string, number>;
  loadStoppedAt: number;
}): Promise<PhaseReport[]> {
  const { phases, load, redis, queues, stored, duplicates, loadStoppedAt } = options;
  const reports: PhaseReport[] = [];
  const windows = phases.filter((phase) => !phase.skipped);
  for (const phase of phases) {
    const records = load.records.filter((record) => record.phase === phase.name);
    const acked = records.filter((record) => record.outcome === ACK);
    const lostIds = acked.filter((record) => !stored.has(record.id)).map((record) => record.id);
    const duplicated = acked.filter((record) => duplicates.has(record.id)).length;
    const failures = [...phase.failures];
    const next = windows[windows.indexOf(phase) + 1];
    const endedAt = next?.startedAt ?? loadStoppedAt;
    if (!phase.skipped) {
      // 503 says "try again later"; any other 5xx is a request the api broke on.
      const serverErrors = [...load.outcomes(phase.name)].filter(
        ([outcome]) => /^5\d\d$/.test(outcome) && outcome !== '503',
      );
      if (serverErrors.length > 0) {
        failures.push(`the api answered ${formatOutcomes(new Map(serverErrors))}`);
      }
      // Jobs that failed from the phase's start to the next one's (the last phase's: to the end of the drain).
      const failedJobs = await failedJobReasons(redis, queues, {
        from: phase.startedAt,
        to: next?.startedAt ?? Date.now(),
      });
      if (failedJobs.length > 0)
        failures.push(`digest jobs moved to the failed set: ${failedJobs.join('; ')}`);
    }
    const report: PhaseReport = {
      fault: phase.label,
      seconds: phase.skipped ? 0 : (endedAt - phase.startedAt) / 1000,
      sent: records.length,
      acknowledged: acked.length,
      stored: acked.length - lostIds.length,
      lost: lostIds.length,
      duplicated,
      storedWithoutAck: records.filter((record) => record.outcome !== ACK && stored.has(record.id)).length,
      statuses: formatOutcomes(load.outcomes(phase.name)),
      lostBreakdown: lostIds.length > 0 ? await explainLost(queues, lostIds) : '',
      notes: phase.notes,
      failures,
      skipped: phase.skipped,
      result: 'FAIL',
      passed:
        !phase.skipped &&
        acked.length > 0 &&
        lostIds.length === 0 &&
        duplicated === 0 &&
        failures.length === 0,
    };
    report.result = phase.skipped ? 'SKIP' : report.passed ? 'PASS' : 'FAIL';
    if (acked.length === 0 && !phase.skipped)
      report.notes.push('nothing was acknowledged: the phase proves nothing');
    reports.push(report);
  }
  return reports;
}

export function printTable(reports: PhaseReport[]): void {
  const rows = reports.map((r) =>
    r.skipped
      ? [r.fault, ...Array<string>(7).fill('-'), r.result, `skipped: ${r.skipped}`]
      : [
          r.fault,
          r.seconds.toFixed(0),
          String(r.sent),
          String(r.acknowledged),
          String(r.stored),
          String(r.lost),
          String(r.duplicated),
          String(r.storedWithoutAck),
          r.result,
          r.statuses,
        ],
  );
  const head = [
    'fault',
    's',
    'sent',
    'acknowledged',
    'stored',
    'lost',
    'duplicated',
    'stored w/o ack',
    'result',
    'statuses during the phase',
  ];
  const widths = head.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 || column === cells.length - 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  console.log('');
  console.log(line(head));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log('');
}

/** The end of each log, lines cut at 300 characters, runs of lines differing only in numbers and ids folded. */
export function printLogTails(files: string[]): void {
  for (const file of files) {
    const lines = tail(file, 400)
      .split('\n')
      .filter((line) => line.trim() !== '');
    if (lines.length === 0) continue;
    const folded: string[] = [];
    let previous = '';
    let repeats = 0;
    const flush = () => {
      if (repeats > 0) folded.push(`    … ${repeats} more like the line above`);
      repeats = 0;
    };
    for (const line of lines) {
      const shape = line.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, '#');
      if (shape === previous) {
        repeats++;
        continue;
      }
      flush();
      previous = shape;
      folded.push(line.length > 300 ? `${line.slice(0, 300)} …` : line);
    }
    flush();
    const keep = file.endsWith('postgres.log') || file.endsWith('redis.log') ? 12 : 30;
    console.log(`\n---- end of ${file} ----\n${folded.slice(-keep).join('\n')}`);
  }
  console.log('');
}
