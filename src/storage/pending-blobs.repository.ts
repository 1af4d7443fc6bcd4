import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** How long a blob may stay staged: far longer than any request or assembly may last. */
const STAGED_LIFETIME = '1 hour';

/**
 * The pending list (`pending_blobs`): blobs to delete once due, unless taken off first. A writer
 * stages a blob's key before writing it and takes it off in the transaction that records what
 * holds the blob, so that a crash between leaves a blob the sweep finds; rows that held blobs put
 * them back on the list when deleted (triggers of `attachments` and `artifact_files`).
 */
@Injectable()
export class PendingBlobsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Registers a blob about to be written: deleted by the sweep unless taken off within the hour. */
  async stage(key: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO pending_blobs (key, delete_after) VALUES ($1, now() + interval '${STAGED_LIFETIME}')`,
      [key],
    );
  }

  /** In the transaction that records what holds them: the blobs are kept. */
  async takeOff(manager: EntityManager, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await manager.query('DELETE FROM pending_blobs WHERE key = ANY($1::text[])', [keys]);
  }

  /** Blobs abandoned (a refused upload): due for deletion now. */
  async release(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.dataSource.query('UPDATE pending_blobs SET delete_after = now() WHERE key = ANY($1::text[])', [
      keys,
    ]);
  }

  /** Blobs due for deletion, oldest first. */
  async due(limit: number): Promise<string[]> {
    const rows: { key: string }[] = await this.dataSource.query(
      'SELECT key FROM pending_blobs WHERE delete_after <= now() ORDER BY delete_after LIMIT $1',
      [limit],
    );
    return rows.map((row) => row.key);
  }

  /** Takes deleted blobs off the list (after the store deleted them). */
  async forget(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.dataSource.query('DELETE FROM pending_blobs WHERE key = ANY($1::text[])', [keys]);
  }
}
