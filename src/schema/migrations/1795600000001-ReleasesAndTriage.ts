import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Releases, and what triage records on issues:
 * - `releases`: one row per project and release version, with its first and last event, its event
 *   count (added by the rollup fold) and the issues it opened (counted when the digest creates one);
 *   backfilled from the release tag rollups;
 * - `issues.first_release` / `last_release`: the release of the first and latest event;
 * - how an issue was resolved (`resolved_in`: `next_release` or a version, and `resolved_above`, the
 *   release above which an event reopens it) and how long it is muted (`mute_until`,
 *   `mute_until_count`, `mute_until_users`, with the counts when it was muted);
 * - `issues.merged_into_id`: an issue merged into another;
 * - `issue_activity`: each change of an issue's state, with its time; it goes with its issue (its
 *   rows grow only with changes of state, and retention deletes the issues whose events expired).
 */
export class ReleasesAndTriage1795600000001 implements MigrationInterface {
  name = 'ReleasesAndTriage1795600000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE releases (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        version text NOT NULL,
        first_event timestamptz,
        last_event timestamptz,
        event_count bigint NOT NULL DEFAULT 0,
        new_issues int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, version)
      ) WITH (fillfactor = 80);
      CREATE INDEX releases_project_recent_idx
        ON releases (project_id, (coalesce(last_event, '-infinity'::timestamptz)) DESC, version DESC);

      ALTER TABLE issues
        ADD COLUMN first_release text,
        ADD COLUMN last_release text,
        ADD COLUMN resolved_in text,
        ADD COLUMN resolved_above text,
        ADD COLUMN mute_until timestamptz,
        ADD COLUMN mute_until_count int,
        ADD COLUMN mute_until_users int,
        ADD COLUMN muted_event_count int,
        ADD COLUMN muted_user_count int;
      -- The sweep that ends snoozes looks only at muted issues with a condition.
      CREATE INDEX issues_snoozed_idx ON issues (id) WHERE state = 'muted'
        AND (mute_until IS NOT NULL OR mute_until_users IS NOT NULL);

      UPDATE issues i SET
        first_release = (SELECT value FROM issue_tag_values tv WHERE tv.issue_id = i.id AND tv.key = 'release'
                          ORDER BY first_seen, value LIMIT 1),
        last_release = (SELECT value FROM issue_tag_values tv WHERE tv.issue_id = i.id AND tv.key = 'release'
                         ORDER BY last_seen DESC, value LIMIT 1)
       WHERE EXISTS (SELECT 1 FROM issue_tag_values tv WHERE tv.issue_id = i.id AND tv.key = 'release');

      INSERT INTO releases (project_id, version, first_event, last_event, event_count, new_issues)
        SELECT i.project_id, tv.value, min(tv.first_seen), max(tv.last_seen), sum(tv.count),
               count(*) FILTER (WHERE i.first_release = tv.value)
          FROM issue_tag_values tv JOIN issues i ON i.id = tv.issue_id
         WHERE tv.key = 'release'
         GROUP BY i.project_id, tv.value;

      -- A merged issue stays as a pointer to the issue it was merged into: its id answers with the
      -- survivor's, and later events of its group land there.
      ALTER TABLE issues ADD COLUMN merged_into_id int REFERENCES issues(id) ON DELETE CASCADE;
      CREATE INDEX issues_merged_into_idx ON issues (merged_into_id) WHERE merged_into_id IS NOT NULL;

      CREATE TABLE issue_activity (
        id bigserial PRIMARY KEY,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        kind text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX issue_activity_issue_idx ON issue_activity (issue_id, id);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS issue_activity;
      -- Merged issues go (their events were moved to the survivors).
      DELETE FROM issues WHERE merged_into_id IS NOT NULL;
      ALTER TABLE issues DROP COLUMN IF EXISTS merged_into_id;
      DROP INDEX IF EXISTS issues_snoozed_idx;
      ALTER TABLE issues
        DROP COLUMN IF EXISTS first_release,
        DROP COLUMN IF EXISTS last_release,
        DROP COLUMN IF EXISTS resolved_in,
        DROP COLUMN IF EXISTS resolved_above,
        DROP COLUMN IF EXISTS mute_until,
        DROP COLUMN IF EXISTS mute_until_count,
        DROP COLUMN IF EXISTS mute_until_users,
        DROP COLUMN IF EXISTS muted_event_count,
        DROP COLUMN IF EXISTS muted_user_count;
      DROP TABLE IF EXISTS releases;
    `);
  }
}
