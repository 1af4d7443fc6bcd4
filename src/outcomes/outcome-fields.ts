import type { DroppedOutcome, OutcomeCount } from './envelope-outcomes';
import { OUTCOMES } from './envelope-outcomes';

const HOUR_MS = 3_600_000;

/**
 * Redis keys of the counts not yet folded into PostgreSQL. The `{outcomes}` hash tag keeps them in
 * one slot of a Redis Cluster, so that the fold's script may rename one into another.
 *
 * - `live`: the hash ingest adds to, one field per hour, project, outcome, category and reason;
 * - `fold:<batch id>`: a live hash a fold took (renamed), until its counts are in PostgreSQL;
 * - `folds`: the batch ids taken and not yet cleaned up, for a retry to find.
 */
export function outcomeKeys(prefix: string) {
  const base = `${prefix}:{outcomes}`;
  return {
    live: `${base}:live`,
    folds: `${base}:folds`,
    batch: (batchId: string) => `${base}:fold:${batchId}`,
  };
}

export interface HourlyOutcomeCount extends OutcomeCount {
  projectId: number;
  hour: Date;
}

/** Names come from closed sets of [a-z0-9_] names (envelope-outcomes.ts), so `:` separates the parts unambiguously. */
export function outcomeField(projectId: number, at: number, count: OutcomeCount): string {
  return `${Math.floor(at / HOUR_MS)}:${projectId}:${count.outcome}:${count.category}:${count.reason}`;
}

const FIELD = /^(\d{1,10}):(\d{1,10}):([a-z_]+):([a-z0-9_]{1,64}):([a-z0-9_]{1,64})$/;
const DROPPED: ReadonlySet<string> = new Set(OUTCOMES.filter((outcome) => outcome !== 'accepted'));

/** A taken hash's fields as counts; a field or value this code never wrote is skipped. */
export function readOutcomeFields(hash: Record<string, string>): HourlyOutcomeCount[] {
  const counts: HourlyOutcomeCount[] = [];
  for (const [field, value] of Object.entries(hash)) {
    const parts = FIELD.exec(field);
    const quantity = Number(value);
    if (!parts || !DROPPED.has(parts[3]) || !Number.isSafeInteger(quantity) || quantity <= 0) continue;
    counts.push({
      hour: new Date(Number(parts[1]) * HOUR_MS),
      projectId: Number(parts[2]),
      outcome: parts[3] as DroppedOutcome,
      category: parts[4],
      reason: parts[5],
      quantity,
    });
  }
  return counts;
}
