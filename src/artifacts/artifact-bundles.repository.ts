import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { RowDeletion } from '../events/event-partitions';
import { BlobStore } from '../storage/blob-store';
import type { BundleFileInfo } from './artifact-bundle';

/** The advisory lock space of bundle assemblies (pg_try_advisory_xact_lock(space, hashtext(checksum))). */
const ASSEMBLE_LOCK = 0x4142;

/** Which upload a bundle came from: its checksum, with the release and dist it was uploaded for. */
export interface BundleUpload {
  checksum: string;
  release: string | null;
  dist: string | null;
}

/** A stored file, without its bytes. */
export interface StoredFileRef {
  id: string;
  bundle_id: string;
  url: string;
  size: number;
}

export interface BundleRow {
  id: string;
  checksum: string;
  bundle_debug_id: string | null;
  release: string | null;
  dist: string | null;
  file_count: number;
  size: string;
  created_at: Date;
  last_used_at: Date | null;
  files: {
    path: string;
    url: string;
    type: string;
    debug_id: string | null;
    source_map: string | null;
    size: number;
  }[];
}

/**
 * The `artifact_bundles` and `artifact_files` tables. A file's bytes are in its row, or, when the
 * blob store is S3, in an object the row names (`blob_key`).
 */
@Injectable()
export class ArtifactBundlesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: BlobStore,
  ) {}

  /**
   * Whether this upload is stored for every one of the projects. Without a release, any bundle of
   * these bytes counts: its release then came from its manifest, which the same bytes repeat.
   */
  async isStored(
    projectIds: number[],
    upload: BundleUpload,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const [{ count }]: { count: number }[] = await manager.query(
      `SELECT count(DISTINCT project_id)::int AS count FROM artifact_bundles
        WHERE project_id = ANY($1::int[]) AND checksum = $2
          AND ($3::text IS NULL OR (release = $3 AND dist IS NOT DISTINCT FROM $4))`,
      [projectIds, upload.checksum, upload.release, upload.dist],
    );
    return count === new Set(projectIds).size;
  }

  /**
   * Runs `work` in a transaction holding the assembly lock of the bundle `checksum`, or answers
   * `busy` at once when another transaction holds it (it will have stored the bundle when done).
   */
  inAssembly<T>(checksum: string, work: (manager: EntityManager) => Promise<T>): Promise<T | 'busy'> {
    return this.dataSource.transaction(async (manager) => {
      const [{ locked }]: { locked: boolean }[] = await manager.query(
        'SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked',
        [ASSEMBLE_LOCK, checksum],
      );
      return locked ? work(manager) : 'busy';
    });
  }

  /**
   * In the caller's transaction: the bundle's row for a project, or null when this upload is stored
   * for it already. The caller then adds its files.
   */
  async insertBundle(
    manager: EntityManager,
    projectId: number,
    upload: BundleUpload,
    bundle: { debugId: string | null; fileCount: number; size: number },
  ): Promise<string | null> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO artifact_bundles (project_id, checksum, bundle_debug_id, release, dist, file_count, size)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, checksum, coalesce(release, ''), coalesce(dist, '')) DO NOTHING
       RETURNING id`,
      [
        projectId,
        upload.checksum,
        bundle.debugId,
        upload.release,
        upload.dist,
        bundle.fileCount,
        bundle.size,
      ],
    );
    return rows[0]?.id ?? null;
  }

  async insertFile(
    manager: EntityManager,
    bundleId: string,
    projectId: number,
    file: BundleFileInfo & { data: Buffer },
    blobKey?: string,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO artifact_files (bundle_id, project_id, path, url, file_type, debug_id, source_map_ref, size, data, blob_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        bundleId,
        projectId,
        file.path,
        file.url,
        file.type,
        file.debugId,
        file.sourceMapRef,
        file.data.length,
        blobKey === undefined ? file.data : null,
        blobKey ?? null,
      ],
    );
  }

  /** A page of a project's bundles, the newest first, with their files (without their bytes). */
  list(projectId: number, limit: number, beforeId?: string, release?: string): Promise<BundleRow[]> {
    return this.dataSource.query(
      `SELECT b.id::text AS id, b.checksum, b.bundle_debug_id, b.release, b.dist, b.file_count, b.size::text AS size,
              b.created_at, b.last_used_at,
              coalesce((SELECT json_agg(json_build_object('path', f.path, 'url', f.url, 'type', f.file_type,
                                                          'debug_id', f.debug_id, 'source_map', f.source_map_ref,
                                                          'size', f.size) ORDER BY f.url, f.id)
                          FROM artifact_files f WHERE f.bundle_id = b.id), '[]') AS files
         FROM artifact_bundles b
        WHERE b.project_id = $1 AND ($2::bigint IS NULL OR b.id < $2) AND ($4::text IS NULL OR b.release = $4)
        ORDER BY b.id DESC
        LIMIT $3`,
      [projectId, beforeId ?? null, limit, release ?? null],
    );
  }

  /** The newest source map of each debug id, of a project. */
  async sourceMapsByDebugId(projectId: number, debugIds: string[]): Promise<Map<string, StoredFileRef>> {
    const rows: (StoredFileRef & { debug_id: string })[] = await this.dataSource.query(
      `SELECT DISTINCT ON (debug_id) debug_id, id::text AS id, bundle_id::text AS bundle_id, url, size
         FROM artifact_files
        WHERE project_id = $1 AND debug_id = ANY($2::uuid[]) AND file_type = 'source_map'
        ORDER BY debug_id, id DESC`,
      [projectId, debugIds],
    );
    return new Map(rows.map(({ debug_id, ...ref }) => [debug_id, ref]));
  }

  /**
   * The files of a project's bundles of a release (and dist) whose URL is one of `urls`, the
   * newest bundle's first: where frames of events without debug ids find their maps.
   */
  filesOfRelease(
    projectId: number,
    release: string,
    dist: string | null,
    urls: string[],
  ): Promise<(StoredFileRef & { file_type: string; source_map_ref: string | null })[]> {
    return this.dataSource.query(
      `SELECT f.id::text AS id, f.bundle_id::text AS bundle_id, f.url, f.size, f.file_type, f.source_map_ref
         FROM artifact_bundles b JOIN artifact_files f ON f.bundle_id = b.id
        WHERE b.project_id = $1 AND b.release = $2 AND b.dist IS NOT DISTINCT FROM $3 AND f.url = ANY($4::text[])
        ORDER BY b.id DESC, f.id DESC`,
      [projectId, release, dist, urls],
    );
  }

  /** A stored file's bytes, or undefined if it is gone. */
  async fileData(fileId: string): Promise<Buffer | undefined> {
    const rows: { data: Buffer | null; blob_key: string | null }[] = await this.dataSource.query(
      'SELECT data, blob_key FROM artifact_files WHERE id = $1',
      [fileId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.blob_key === null) return row.data ?? undefined;
    // A source map is parsed whole: read all of it (a bundle's files are bounded by its upload limit).
    const chunks: Buffer[] = [];
    for await (const chunk of this.store.read(row.blob_key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * Notes that bundles were used (at most once an hour each), which keeps them from expiring; a
   * bundle another transaction holds (retention deleting it) is skipped, not waited for.
   */
  async markUsed(bundleIds: string[]): Promise<void> {
    if (bundleIds.length === 0) return;
    await this.dataSource.query(
      `UPDATE artifact_bundles SET last_used_at = now()
        WHERE id IN (SELECT id FROM artifact_bundles
                      WHERE id = ANY($1::bigint[])
                        AND (last_used_at IS NULL OR last_used_at < now() - interval '1 hour')
                      ORDER BY id FOR UPDATE SKIP LOCKED)`,
      [bundleIds],
    );
  }

  /**
   * Deletes up to `limit` bundles (with their files) neither uploaded nor used since the
   * deletion's cutoff, of the projects it covers; returns how many went.
   */
  async deleteUnused(deletion: RowDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM artifact_bundles WHERE id = ANY(ARRAY(
         SELECT id FROM artifact_bundles
          WHERE coalesce(last_used_at, created_at) < $1
            AND ($2::int[] IS NULL OR project_id = ANY($2))
            AND ($3::int[] IS NULL OR project_id <> ALL($3))
          ORDER BY id
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** Deletes a project's bundle with its files; whether there was one. */
  async delete(projectId: number, bundleId: string): Promise<boolean> {
    const [, deleted] = (await this.dataSource.query(
      'DELETE FROM artifact_bundles WHERE project_id = $1 AND id = $2',
      [projectId, bundleId],
    )) as [unknown, number];
    return deleted > 0;
  }
}
