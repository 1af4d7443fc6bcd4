import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What sentry-cli and the bundler plugins upload, kept in PostgreSQL so that every worker reaches it
 * without anything else to run:
 * - `file_chunks`: pieces of an upload by their SHA-1, until an assemble call puts them together
 *   (and for a day after, so that a repeated upload finds them and sends nothing);
 * - `artifact_bundles`: one row per assembled bundle and project, with the release and dist it was
 *   uploaded for; `artifact_files`: the bundle's files (minified sources and their source maps), by
 *   debug id and by URL, each file's bytes in its row (TOASTed, so a lookup reads only its index);
 * - `releases.date_released` (`sentry-cli releases finalize`) and `release_deploys`.
 */
export class SourceMapArtifacts1795800000000 implements MigrationInterface {
  name = 'SourceMapArtifacts1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE file_chunks (
        checksum text PRIMARY KEY CHECK (checksum ~ '^[0-9a-f]{40}$'),
        data bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- Chunks are mostly zip data: compressing them again costs CPU for nothing.
      ALTER TABLE file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE INDEX file_chunks_created_idx ON file_chunks (created_at);

      CREATE TABLE artifact_bundles (
        id bigserial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        checksum text NOT NULL,
        bundle_debug_id uuid,
        release text,
        dist text,
        file_count int NOT NULL,
        size bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );
      -- One row per upload; without a release or dist, as one with an empty one (PostgreSQL 14 has
      -- no NULLS NOT DISTINCT).
      CREATE UNIQUE INDEX artifact_bundles_upload_key
        ON artifact_bundles (project_id, checksum, coalesce(release, ''), coalesce(dist, ''));
      CREATE INDEX artifact_bundles_release_idx ON artifact_bundles (project_id, release, dist);

      CREATE TABLE artifact_files (
        id bigserial PRIMARY KEY,
        bundle_id bigint NOT NULL REFERENCES artifact_bundles(id) ON DELETE CASCADE,
        project_id int NOT NULL,
        path text NOT NULL,
        url text NOT NULL,
        file_type text NOT NULL,
        debug_id uuid,
        source_map_ref text,
        size int NOT NULL,
        data bytea NOT NULL
      );
      CREATE INDEX artifact_files_debug_id_idx ON artifact_files (project_id, debug_id, file_type)
        WHERE debug_id IS NOT NULL;
      CREATE INDEX artifact_files_bundle_url_idx ON artifact_files (bundle_id, url);

      ALTER TABLE releases ADD COLUMN date_released timestamptz;
      CREATE TABLE release_deploys (
        id bigserial PRIMARY KEY,
        project_id int NOT NULL,
        version text NOT NULL,
        environment text NOT NULL,
        name text,
        url text,
        date_started timestamptz,
        date_finished timestamptz NOT NULL,
        FOREIGN KEY (project_id, version) REFERENCES releases (project_id, version) ON DELETE CASCADE
      );
      CREATE INDEX release_deploys_release_idx ON release_deploys (project_id, version, date_finished DESC);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS release_deploys;
      ALTER TABLE releases DROP COLUMN IF EXISTS date_released;
      DROP TABLE IF EXISTS artifact_files;
      DROP TABLE IF EXISTS artifact_bundles;
      DROP TABLE IF EXISTS file_chunks;
    `);
  }
}
