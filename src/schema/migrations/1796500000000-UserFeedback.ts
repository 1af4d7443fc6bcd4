import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User feedback (see docs/feedback.md): one row per feedback, keyed by the feedback's own event id
 * within its project, so that a feedback queued twice is stored once and its attachments can be
 * found by that id. `associated_event_id` is the event the user reacted to; `issue_id` is filled
 * once that event is stored (at once, or by the digest when the event comes later). The partial
 * index holds only the feedback still waiting for its event: the digest's link statement probes
 * it for every batch, and it stays small whatever the number of feedback rows.
 */
export class UserFeedback1796500000000 implements MigrationInterface {
  name = 'UserFeedback1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE feedback (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        associated_event_id uuid,
        issue_id int REFERENCES issues(id) ON DELETE SET NULL,
        name text,
        contact_email text,
        message text NOT NULL,
        url text,
        source text NOT NULL,
        environment text,
        release text,
        status text NOT NULL DEFAULT 'unresolved' CHECK (status IN ('unresolved', 'resolved')),
        received_at timestamptz NOT NULL,
        UNIQUE (project_id, event_id)
      );
      CREATE INDEX feedback_project_received_idx ON feedback (project_id, received_at DESC, id DESC);
      CREATE INDEX feedback_issue_idx ON feedback (issue_id, received_at DESC, id DESC) WHERE issue_id IS NOT NULL;
      CREATE INDEX feedback_unlinked_idx ON feedback (project_id, associated_event_id)
        WHERE issue_id IS NULL AND associated_event_id IS NOT NULL;
      CREATE INDEX feedback_received_idx ON feedback (received_at);
      ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_alert_type_check;
      ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_alert_type_check
        CHECK (alert_type IN ('new_issue', 'regression', 'unmute', 'new_feedback'));
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DELETE FROM alert_rules WHERE alert_type = 'new_feedback';
      ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_alert_type_check;
      ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_alert_type_check
        CHECK (alert_type IN ('new_issue', 'regression', 'unmute'));
      DROP TABLE feedback;
    `);
  }
}
