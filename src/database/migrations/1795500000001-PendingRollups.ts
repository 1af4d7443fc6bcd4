import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the digest has counted but not yet added to the rollups: one row per issue and stored batch,
 * written in the transaction that stores the batch's events (so a retried batch records nothing
 * twice), and deleted by the fold that adds it to the rollups (see RollupsRepository.fold). Rows go
 * with their issue.
 */
export class PendingRollups1795500000001 implements MigrationInterface {
  name = 'PendingRollups1795500000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE rollup_pending (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        delta jsonb NOT NULL
      );
      CREATE INDEX rollup_pending_issue_id_idx ON rollup_pending (issue_id);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE rollup_pending');
  }
}
