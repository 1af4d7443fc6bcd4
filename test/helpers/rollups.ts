import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RollupsRepository } from '../../src/rollups/rollups.repository';
import { eventually } from './queues';

/**
 * Waits until every count the digest recorded is in the rollups: folds what is pending (in any
 * role), and waits for folds other workers hold (their rows are skipped, not waited for).
 */
export async function settleRollups(app: INestApplication): Promise<void> {
  const rollups = app.get(RollupsRepository);
  const db = app.get(DataSource);
  await eventually(async () => {
    while ((await rollups.fold(5_000)) > 0);
    const [{ pending }]: { pending: number }[] = await db.query(
      'SELECT count(*)::int AS pending FROM rollup_pending WHERE failed_at IS NULL',
    );
    return pending === 0;
  }, 30_000);
}
