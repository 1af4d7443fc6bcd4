import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { BundleFileInfo } from './artifact-bundle';

/** Which upload a bundle came from: its checksum, with the release and dist it was uploaded for. */
export interface BundleUpload {
  checksum: string;
  release: string | null;
  dist: string | null;
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

/** The `artifact_bundles` and `artifact_files` tables. */
@Injectable()
export class ArtifactBundlesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Whether this upload is stored for every one of the projects. Without a release, any bundle of
   * these bytes counts: its release then came from its manifest, which the same bytes repeat.
   */
  async isStored(projectIds: number[], upload: BundleUpload): Promise<boolean> {
    const [{ count }]: { count: number }[] = await this.dataSource.query(
      `SELECT count(DISTINCT project_id)::int AS count FROM artifact_bundles
        WHERE project_id = ANY($1::int[]) AND checksum = $2
          AND ($3::text IS NULL OR (release = $3 AND dist IS NOT DISTINCT FROM $4))`,
      [projectIds, upload.checksum, upload.release, upload.dist],
    );
    return count === new Set(projectIds).size;
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
       ON CONFLICT ON CONSTRAINT artifact_bundles_upload_key DO NOTHING
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
  ): Promise<void> {
    await manager.query(
      `INSERT INTO artifact_files (bundle_id, project_id, path, url, file_type, debug_id, source_map_ref, size, data)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        bundleId,
        projectId,
        file.path,
        file.url,
        file.type,
        file.debugId,
        file.sourceMapRef,
        file.data.length,
        file.data,
      ],
    );
  }

  /** A page of a project's bundles, the newest first, with their files (without their bytes). */
  list(projectId: number, limit: number, beforeId?: string): Promise<BundleRow[]> {
    return this.dataSource.query(
      `SELECT b.id::text AS id, b.checksum, b.bundle_debug_id, b.release, b.dist, b.file_count, b.size::text AS size,
              b.created_at, b.last_used_at,
              coalesce((SELECT json_agg(json_build_object('path', f.path, 'url', f.url, 'type', f.file_type,
                                                          'debug_id', f.debug_id, 'source_map', f.source_map_ref,
                                                          'size', f.size) ORDER BY f.url, f.id)
                          FROM artifact_files f WHERE f.bundle_id = b.id), '[]') AS files
         FROM artifact_bundles b
        WHERE b.project_id = $1 AND ($2::bigint IS NULL OR b.id < $2)
        ORDER BY b.id DESC
        LIMIT $3`,
      [projectId, beforeId ?? null, limit],
    );
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
