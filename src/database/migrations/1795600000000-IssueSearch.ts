import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the issue search and its sorts read (see IssueSearch):
 * - one index per sort other than `last_seen`, in list order, so that a page is an index range;
 * - the tag rollups by (key, value), so that `environment:production` finds its issues without
 *   probing every issue of the project;
 * - a trigram index on the text free-text search matches, where the server has `pg_trgm` (a
 *   contrib extension in every PostgreSQL package, trusted since PostgreSQL 13, so a database owner
 *   may create it); without it the search works, by scanning the project's issues.
 * - for each new sort, the transaction that last changed an issue's place in it (its sort column or
 *   its state), as `position_xid` is for `last_seen` (see IssuePositionXid): one stamp per sort,
 *   so that an event that only raises a count does not make the `last_seen` list return the issue
 *   again, nor an event with a new `last_seen` the `events` list.
 */
export class IssueSearch1795600000000 implements MigrationInterface {
  name = 'IssueSearch1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $$
      BEGIN
        CREATE EXTENSION IF NOT EXISTS pg_trgm;
      EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm is not available (%): free-text search scans the issues', SQLERRM;
      END
      $$;
      DO $$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
          EXECUTE 'CREATE INDEX IF NOT EXISTS issues_search_text_idx ON issues
                   USING gin ((type || '' '' || message || '' '' || culprit) gin_trgm_ops)';
        END IF;
      END
      $$;

      CREATE INDEX IF NOT EXISTS issues_project_first_seen_idx ON issues (project_id, first_seen DESC, id DESC);
      CREATE INDEX IF NOT EXISTS issues_project_event_count_idx ON issues (project_id, event_count DESC, id DESC);
      CREATE INDEX IF NOT EXISTS issues_project_user_count_idx ON issues (project_id, user_count DESC, id DESC);
      CREATE INDEX IF NOT EXISTS issue_tag_values_key_value_idx ON issue_tag_values (key, value, issue_id);

      ALTER TABLE issues ADD COLUMN IF NOT EXISTS first_seen_position_xid xid8;
      ALTER TABLE issues ADD COLUMN IF NOT EXISTS events_position_xid xid8;
      ALTER TABLE issues ADD COLUMN IF NOT EXISTS users_position_xid xid8;
      ALTER TABLE issues ALTER COLUMN first_seen_position_xid SET DEFAULT pg_current_xact_id();
      ALTER TABLE issues ALTER COLUMN events_position_xid SET DEFAULT pg_current_xact_id();
      ALTER TABLE issues ALTER COLUMN users_position_xid SET DEFAULT pg_current_xact_id();
      CREATE INDEX IF NOT EXISTS issues_project_first_seen_position_idx ON issues (project_id, first_seen_position_xid);
      CREATE INDEX IF NOT EXISTS issues_project_events_position_idx ON issues (project_id, events_position_xid);
      CREATE INDEX IF NOT EXISTS issues_project_users_position_idx ON issues (project_id, users_position_xid);

      CREATE OR REPLACE FUNCTION issues_stamp_sort_positions() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        state_changed boolean := OLD.state IS DISTINCT FROM NEW.state;
      BEGIN
        IF state_changed OR OLD.first_seen IS DISTINCT FROM NEW.first_seen THEN
          NEW.first_seen_position_xid := pg_current_xact_id();
        END IF;
        IF state_changed OR OLD.event_count IS DISTINCT FROM NEW.event_count THEN
          NEW.events_position_xid := pg_current_xact_id();
        END IF;
        IF state_changed OR OLD.user_count IS DISTINCT FROM NEW.user_count THEN
          NEW.users_position_xid := pg_current_xact_id();
        END IF;
        RETURN NEW;
      END
      $$;
      CREATE TRIGGER issues_sort_positions_changed
        BEFORE UPDATE OF state, first_seen, event_count, user_count ON issues
        FOR EACH ROW
        EXECUTE FUNCTION issues_stamp_sort_positions();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS issues_sort_positions_changed ON issues;
      DROP FUNCTION IF EXISTS issues_stamp_sort_positions();
      ALTER TABLE issues DROP COLUMN IF EXISTS first_seen_position_xid;
      ALTER TABLE issues DROP COLUMN IF EXISTS events_position_xid;
      ALTER TABLE issues DROP COLUMN IF EXISTS users_position_xid;
      DROP INDEX IF EXISTS issue_tag_values_key_value_idx;
      DROP INDEX IF EXISTS issues_project_user_count_idx;
      DROP INDEX IF EXISTS issues_project_event_count_idx;
      DROP INDEX IF EXISTS issues_project_first_seen_idx;
      DROP INDEX IF EXISTS issues_search_text_idx;
      -- Gone with this version, unless something else has come to use it.
      DO $$
      BEGIN
        DROP EXTENSION IF EXISTS pg_trgm;
      EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'pg_trgm kept: %', SQLERRM;
      END
      $$;
    `);
  }
}
