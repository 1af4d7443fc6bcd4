import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `issues.position_xid`: the transaction that last changed where an issue sorts in the issue lists
 * (created, `last_seen` moved, or `state` changed). The issue list's cursor carries the snapshot its
 * page was read under, and the next page also returns the issues changed by transactions that
 * snapshot did not see, so an issue that moves above the cursor while a client pages is not skipped.
 *
 * A trigger keeps the column right for every writer (the digest, the state API, future code) without
 * any of them knowing about it; it only fires when the sort position really changes.
 */
export class IssuePositionXid1795300000002 implements MigrationInterface {
  name = 'IssuePositionXid1795300000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // The default is set after the column is added: existing rows stay NULL ("not changed since any
    // cursor was issued") instead of the whole table being rewritten.
    await queryRunner.query(`
      ALTER TABLE issues ADD COLUMN IF NOT EXISTS position_xid xid8;
      ALTER TABLE issues ALTER COLUMN position_xid SET DEFAULT pg_current_xact_id();

      CREATE OR REPLACE FUNCTION issues_stamp_position_xid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.position_xid := pg_current_xact_id();
        RETURN NEW;
      END
      $$;

      DROP TRIGGER IF EXISTS issues_position_changed ON issues;
      CREATE TRIGGER issues_position_changed
        BEFORE UPDATE OF last_seen, state ON issues
        FOR EACH ROW
        WHEN (OLD.last_seen IS DISTINCT FROM NEW.last_seen OR OLD.state IS DISTINCT FROM NEW.state)
        EXECUTE FUNCTION issues_stamp_position_xid();

      CREATE INDEX IF NOT EXISTS issues_project_position_xid_idx ON issues (project_id, position_xid);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS issues_position_changed ON issues;
      DROP FUNCTION IF EXISTS issues_stamp_position_xid();
      DROP INDEX IF EXISTS issues_project_position_xid_idx;
      ALTER TABLE issues DROP COLUMN IF EXISTS position_xid;
    `);
  }
}
