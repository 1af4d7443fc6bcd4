import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Files SDKs attach to events (see docs/attachments.md), and the blobs that hold them.
 *
 * - `blob_chunks`: blobs kept in PostgreSQL (BLOB_STORAGE=postgres), a row per 512 KiB chunk so
 *   that no value is huge; stored out of line and uncompressed (most files are compressed already).
 * - `pending_blobs`: blobs to delete once `delete_after` passes, unless committed before: ingest
 *   registers a blob here before writing it and removes it in the transaction that records the
 *   attachment, so that a crash between leaves a blob the sweep finds. Deleting an attachment row
 *   (retention, the project's deletion, whatever deletes it) puts its blob here too, by trigger.
 * - `artifact_files.blob_key`: with BLOB_STORAGE=s3, a source map bundle's files go to the object
 *   storage too, and the row keeps the key instead of the bytes (`data` NULL); deleting the row
 *   (the bundle's deletion, retention) puts the blob on the pending list, by trigger.
 * - `attachments`: one row per stored file; a file sent again with its event (an SDK retrying) is
 *   the same row, by (project, event, name, checksum). No foreign key to its event (files are
 *   recorded before the digest stores the event): a statement that deletes events from the events
 *   table (an issue's deletion, by cascade) deletes their files by trigger. Retention, which drops
 *   partitions or deletes from a partition by name, deletes the files of the same days itself.
 */
export class Attachments1796600000000 implements MigrationInterface {
  name = 'Attachments1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE blob_chunks (
        key text NOT NULL,
        seq int NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (key, seq)
      );
      ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE TABLE pending_blobs (
        key text PRIMARY KEY,
        delete_after timestamptz NOT NULL
      );
      CREATE INDEX pending_blobs_delete_after_idx ON pending_blobs (delete_after);
      CREATE TABLE attachments (
        id bigserial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        name text NOT NULL,
        content_type text NOT NULL,
        attachment_type text NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        blob_key text NOT NULL,
        received_at timestamptz NOT NULL,
        UNIQUE (project_id, event_id, name, sha256)
      );
      CREATE INDEX attachments_received_at_idx ON attachments (received_at);
      CREATE FUNCTION attachments_release_blobs() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pending_blobs (key, delete_after)
        SELECT blob_key, now() FROM gone
        ON CONFLICT (key) DO UPDATE SET delete_after = now();
        RETURN NULL;
      END $$;
      CREATE TRIGGER attachments_release_blobs AFTER DELETE ON attachments
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION attachments_release_blobs();
      ALTER TABLE artifact_files ADD COLUMN blob_key text;
      ALTER TABLE artifact_files ALTER COLUMN data DROP NOT NULL;
      ALTER TABLE artifact_files ADD CONSTRAINT artifact_files_bytes_or_blob
        CHECK ((data IS NULL) <> (blob_key IS NULL));
      CREATE FUNCTION artifact_files_release_blobs() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pending_blobs (key, delete_after)
        SELECT blob_key, now() FROM gone WHERE blob_key IS NOT NULL
        ON CONFLICT (key) DO UPDATE SET delete_after = now();
        RETURN NULL;
      END $$;
      CREATE TRIGGER artifact_files_release_blobs AFTER DELETE ON artifact_files
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION artifact_files_release_blobs();
      CREATE FUNCTION events_delete_attachments() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM attachments a USING gone g WHERE a.project_id = g.project_id AND a.event_id = g.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER events_delete_attachments AFTER DELETE ON events
        REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION events_delete_attachments();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER events_delete_attachments ON events;
      DROP FUNCTION events_delete_attachments();
      DROP TABLE attachments;
      DROP TRIGGER artifact_files_release_blobs ON artifact_files;
      DROP FUNCTION artifact_files_release_blobs();
      DELETE FROM artifact_files WHERE data IS NULL;
      ALTER TABLE artifact_files DROP CONSTRAINT artifact_files_bytes_or_blob;
      ALTER TABLE artifact_files ALTER COLUMN data SET NOT NULL;
      ALTER TABLE artifact_files DROP COLUMN blob_key;
      DROP FUNCTION attachments_release_blobs();
      DROP TABLE pending_blobs;
      DROP TABLE blob_chunks;
    `);
  }
}
