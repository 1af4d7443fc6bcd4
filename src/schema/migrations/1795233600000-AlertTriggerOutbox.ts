import { MigrationInterface, QueryRunner } from 'typeorm';

export class AlertTriggerOutbox1795233600000 implements MigrationInterface {
  name = 'AlertTriggerOutbox1795233600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE alert_trigger_outbox (
        id bigserial PRIMARY KEY,
        alert_type text NOT NULL,
        project_id int NOT NULL,
        issue_id int NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX alert_trigger_outbox_created_idx ON alert_trigger_outbox (created_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE alert_trigger_outbox');
  }
}
