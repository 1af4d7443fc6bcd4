import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RollupFolder } from '../../src/rollups/rollup-folder';
import { eventually } from './queues';

/**
 * Waits until every count the digest recorded is in the rollups: folds what is pending, and waits
 * for folds other workers hold (their rows are skipped, not waited for, by this app's fold).
 */
export async function settleRollups(app: INestApplication): Promise<void> {
  const folder = app.get(RollupFolder);
  const db = app.get(DataSource);
  await eventually(async () => {
    await folder.foldAll();
    const [{ pending }]: { pending: number }[] = await db.query(
      'SELECT count(*)::int AS pending FROM rollup_pending',
    );
    return pending === 0;
  }, 30_000);
}
