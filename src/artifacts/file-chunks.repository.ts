import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UploadedChunk } from './chunk-upload';

/** Pieces of uploads by their SHA-1, kept until assembled and for a while after (see expireOlderThan). */
@Injectable()
export class FileChunksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores chunks; one already there is kept, and counts as just uploaded. A request may carry the
   * same chunk twice (a bundle with two equal slices); rows go in checksum order, so that two
   * uploads of the same chunks never wait for each other in a cycle.
   */
  async store(chunks: UploadedChunk[]): Promise<void> {
    const unique = [...new Map(chunks.map((chunk) => [chunk.checksum, chunk])).values()].sort((a, b) =>
      a.checksum < b.checksum ? -1 : 1,
    );
    await this.dataSource.query(
      `INSERT INTO file_chunks (checksum, data)
       SELECT * FROM unnest($1::text[], $2::bytea[])
       ON CONFLICT (checksum) DO UPDATE SET created_at = now()`,
      [unique.map((chunk) => chunk.checksum), unique.map((chunk) => chunk.data)],
    );
  }

  /**
   * Which of these chunks are stored. Those that are count as just uploaded: sentry-cli will not
   * send them, so they must outlast the assembly that follows.
   */
  async stored(checksums: string[]): Promise<Set<string>> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows] = (await this.dataSource.query(
      `UPDATE file_chunks SET created_at = now()
        WHERE checksum = ANY(ARRAY(SELECT DISTINCT c FROM unnest($1::text[]) AS c ORDER BY c))
        RETURNING checksum`,
      [checksums],
    )) as [{ checksum: string }[], number];
    return new Set(rows.map((row) => row.checksum));
  }

  /** The chunks' bytes in the order asked; undefined where one is gone. */
  async read(manager: EntityManager, checksums: string[]): Promise<(Buffer | undefined)[]> {
    const rows: { checksum: string; data: Buffer }[] = await manager.query(
      'SELECT checksum, data FROM file_chunks WHERE checksum = ANY($1::text[])',
      [[...new Set(checksums)]],
    );
    const byChecksum = new Map(rows.map((row) => [row.checksum, row.data]));
    return checksums.map((checksum) => byChecksum.get(checksum));
  }

  /** Deletes up to `limit` chunks uploaded (or reused) before `cutoff`; returns how many went. */
  async expireOlderThan(cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM file_chunks WHERE checksum = ANY(ARRAY(
         SELECT checksum FROM file_chunks WHERE created_at < $1 ORDER BY created_at LIMIT $2))`,
      [cutoff, limit],
    )) as [unknown, number];
    return deleted;
  }
}
