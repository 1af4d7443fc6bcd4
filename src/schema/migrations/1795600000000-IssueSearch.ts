import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the issue search and its sorts read (see IssueSearch):
 * - one index per sort other than `last_seen`, in list order, so that a page is an index range;
 * - the tag rollups by (key, value), so that `environment:production` finds its issues without
 *   probing every issue of the project;
 * - `issue_search_text`, the text free-text search matches (type, message, culprit: they never
 *   change once the issue exists), written by a trigger when an issue is created, with a trigram index where
 *   the server has `pg_trgm` (a contrib extension in every PostgreSQL package, trusted since
 *   PostgreSQL 13, so a database owner may create it); without it the search works, by scanning
 *   the project's texts. A table of its own because the digest rewrites an issue's row with every
 *   batch, and each rewrite would add every trigram of the text to the index again;
 * - for each new sort, the transaction that last changed an issue's place in it (its sort column or
 *   its state), as `position_xid` is for `last_seen` (see IssuePositionXid): one stamp per sort,
 *   so that an event that only raises a count does not make the `last_seen` list return the issue
 *   again, nor an event with a new `last_seen` the `events` list. Not indexed: every index of
 *   `issues` costs the digest an entry per issue and batch, and the rows above a cursor are found
 *   through the sort's own index.
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
      CREATE TABLE issue_search_text (
        issue_id int PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
        project_id int NOT NULL,
        text text NOT NULL
      );
      INSERT INTO issue_search_text (issue_id, project_id, text)
        SELECT id, project_id, type || ' ' || message || ' ' || culprit FROM issues;
      CREATE INDEX issue_search_text_project_idx ON issue_search_text (project_id);
      -- Every writer of issues (the digest, the CLI, tools) gets it right without knowing of it.
      CREATE FUNCTION issues_record_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO issue_search_text (issue_id, project_id, text)
          VALUES (NEW.id, NEW.project_id, NEW.type || ' ' || NEW.message || ' ' || NEW.culprit);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER issues_search_text_created AFTER INSERT ON issues
        FOR EACH ROW EXECUTE FUNCTION issues_record_search_text();
      DO $$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
          EXECUTE 'CREATE INDEX issue_search_text_trgm_idx ON issue_search_text USING gin (text gin_trgm_ops)';
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
      DROP TRIGGER IF EXISTS issues_search_text_created ON issues;
      DROP FUNCTION IF EXISTS issues_record_search_text();
      DROP TABLE IF EXISTS issue_search_text;
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
