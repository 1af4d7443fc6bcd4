import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The rows of blobs stored in PostgreSQL: one row per chunk, numbered from 0. */
@Injectable()
export class BlobChunksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(key: string, seq: number, data: Buffer): Promise<void> {
    await this.dataSource.query('INSERT INTO blob_chunks (key, seq, data) VALUES ($1, $2, $3)', [
      key,
      seq,
      data,
    ]);
  }

  /** One chunk's bytes, or undefined past the last one. */
  async chunk(key: string, seq: number): Promise<Buffer | undefined> {
    const rows: { data: Buffer }[] = await this.dataSource.query(
      'SELECT data FROM blob_chunks WHERE key = $1 AND seq = $2',
      [key, seq],
    );
    return rows[0]?.data;
  }

  async exists(key: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM blob_chunks WHERE key = $1 LIMIT 1', [
      key,
    ]);
    return rows.length > 0;
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.dataSource.query('DELETE FROM blob_chunks WHERE key = ANY($1::text[])', [keys]);
  }
}
