import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting an issue or a channel sets `alert_history.issue_id` / `channel_id` to NULL: without an
 * index on those columns every such delete scans the whole history. Every other foreign key already
 * leads an index (test/schema.e2e-spec.ts keeps it that way).
 */
export class ForeignKeyIndexes1795300000001 implements MigrationInterface {
  name = 'ForeignKeyIndexes1795300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX IF NOT EXISTS alert_history_issue_idx ON alert_history (issue_id);
      CREATE INDEX IF NOT EXISTS alert_history_channel_idx ON alert_history (channel_id);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS alert_history_channel_idx;
      DROP INDEX IF EXISTS alert_history_issue_idx;
    `);
  }
}
