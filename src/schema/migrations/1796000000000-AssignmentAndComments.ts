import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who is on an issue (a member or a team, not both), what people said about it, and who did each
 * thing its activity log records (null: the tracker itself, e.g. a regression). A rule may e-mail
 * the assignee besides its channels.
 */
export class AssignmentAndComments1796000000000 implements MigrationInterface {
  name = 'AssignmentAndComments1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE issues
        ADD COLUMN assignee_user_id int REFERENCES users(id) ON DELETE SET NULL,
        ADD COLUMN assignee_team_id int REFERENCES teams(id) ON DELETE SET NULL,
        ADD CONSTRAINT issues_one_assignee_check CHECK (assignee_user_id IS NULL OR assignee_team_id IS NULL);
      CREATE INDEX issues_assignee_user_idx ON issues (project_id, assignee_user_id) WHERE assignee_user_id IS NOT NULL;
      CREATE INDEX issues_assignee_team_idx ON issues (project_id, assignee_team_id) WHERE assignee_team_id IS NOT NULL;
      CREATE INDEX issues_assignee_user_fk_idx ON issues (assignee_user_id) WHERE assignee_user_id IS NOT NULL;
      CREATE INDEX issues_assignee_team_fk_idx ON issues (assignee_team_id) WHERE assignee_team_id IS NOT NULL;

      ALTER TABLE issue_activity
        ADD COLUMN actor_user_id int,
        ADD COLUMN actor text;

      CREATE TABLE issue_comments (
        id serial PRIMARY KEY,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        author_user_id int REFERENCES users(id) ON DELETE SET NULL,
        author text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX issue_comments_issue_idx ON issue_comments (issue_id, id);
      CREATE INDEX issue_comments_author_idx ON issue_comments (author_user_id);

      ALTER TABLE alert_rules ADD COLUMN notify_assignee boolean NOT NULL DEFAULT false;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE alert_rules DROP COLUMN IF EXISTS notify_assignee;
      DROP TABLE IF EXISTS issue_comments;
      ALTER TABLE issue_activity DROP COLUMN IF EXISTS actor_user_id, DROP COLUMN IF EXISTS actor;
      ALTER TABLE issues
        DROP CONSTRAINT IF EXISTS issues_one_assignee_check,
        DROP COLUMN IF EXISTS assignee_user_id,
        DROP COLUMN IF EXISTS assignee_team_id;
    `);
  }
}
