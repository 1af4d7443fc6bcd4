import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { RowDeletion } from '../events/event-partitions';
import { deleteProjectHours } from '../database/project-hours-deletion';
import type { DroppedOutcome } from './envelope-outcomes';
import type { HourlyOutcomeCount } from './outcome-fields';

export interface OutcomeTotalRow {
  outcome: DroppedOutcome;
  category: string;
  reason: string;
  quantity: number;
}

export interface OutcomeBucketRow {
  start: Date;
  outcome: DroppedOutcome;
  category: string;
  quantity: number;
}

/**
 * Records the batch and adds its counts in one statement: when the batch id is already recorded
 * (a fold that committed, then died before cleaning up Redis), `recorded` is empty and nothing is
 * added. Two folds of one batch at once: the second insert waits for the first's commit, then
 * conflicts. Counts of a project deleted since are dropped with it; rows are written in key order
 * so that concurrent folds do not deadlock.
 */
const FOLD_BATCH = `
  WITH recorded AS (
    INSERT INTO outcome_folds (batch_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING batch_id
  ), added AS (
    INSERT INTO outcomes_hourly AS o (project_id, hour, outcome, category, reason, quantity)
    SELECT c.project_id, c.hour, c.outcome, c.category, c.reason, sum(c.quantity)
      FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::bigint[])
           AS c(project_id, hour, outcome, category, reason, quantity)
      JOIN projects p ON p.id = c.project_id
     WHERE EXISTS (SELECT 1 FROM recorded)
     GROUP BY 1, 2, 3, 4, 5
     ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, hour, outcome, category, reason)
    DO UPDATE SET quantity = o.quantity + EXCLUDED.quantity
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM recorded)::int AS recorded, (SELECT count(*) FROM added)::int AS added`;

/** The hourly outcome counts: what the fold adds, what the API reads, what retention removes. */
@Injectable()
export class OutcomesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Adds a batch's counts unless the batch was folded before; false when it was. */
  async foldBatch(batchId: string, counts: HourlyOutcomeCount[]): Promise<boolean> {
    const [{ recorded }]: { recorded: number }[] = await this.dataSource.query(FOLD_BATCH, [
      batchId,
      counts.map((count) => count.projectId),
      counts.map((count) => count.hour),
      counts.map((count) => count.outcome),
      counts.map((count) => count.category),
      counts.map((count) => count.reason),
      counts.map((count) => count.quantity),
    ]);
    return recorded === 1;
  }

  /** Batch ids are kept long enough for any retry of their fold; older ones are forgotten. */
  async forgetFoldsBefore(before: Date): Promise<number> {
    const [, deleted] = (await this.dataSource.query('DELETE FROM outcome_folds WHERE folded_at < $1', [
      before,
    ])) as [unknown, number];
    return deleted;
  }

  async totals(projectId: number, window: { from: Date; to: Date }): Promise<OutcomeTotalRow[]> {
    const rows = await this.dataSource.query<Array<OutcomeTotalRow & { quantity: string | number }>>(
      `SELECT outcome, category, reason, sum(quantity)::float8 AS quantity
         FROM outcomes_hourly
        WHERE project_id = $1 AND hour >= $2 AND hour < $3
        GROUP BY outcome, category, reason
        ORDER BY sum(quantity) DESC, outcome, category, reason`,
      [projectId, window.from, window.to],
    );
    return rows.map((row) => ({ ...row, quantity: Number(row.quantity) }));
  }

  /** Quantities per bucket, outcome and category (buckets of `bucketHours`, aligned on `from`). */
  async buckets(
    projectId: number,
    window: { from: Date; to: Date; bucketHours: number },
  ): Promise<OutcomeBucketRow[]> {
    const rows = await this.dataSource.query<
      Array<{ start: Date; outcome: DroppedOutcome; category: string; quantity: number }>
    >(
      `SELECT date_bin(make_interval(hours => $4), hour, $2) AS start, outcome, category,
              sum(quantity)::float8 AS quantity
         FROM outcomes_hourly
        WHERE project_id = $1 AND hour >= $2 AND hour < $3
        GROUP BY 1, 2, 3`,
      [projectId, window.from, window.to, window.bucketHours],
    );
    return rows.map((row) => ({
      start: new Date(row.start),
      outcome: row.outcome,
      category: row.category,
      quantity: Number(row.quantity),
    }));
  }

  /** Deletes up to `limit` rows older than the deletion's cutoff, of the projects it covers. */
  deleteHours(deletion: RowDeletion, limit: number): Promise<number> {
    return deleteProjectHours(this.dataSource, 'outcomes_hourly', deletion, limit);
  }
}
