import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the digest has counted but not yet added to the rollups: one row per issue and stored batch,
 * written in the transaction that stores the batch's events (so a retried batch records nothing
 * twice), and deleted by the fold that adds it to the rollups (see RollupsRepository.fold). Rows go
 * with their issue. A row that cannot be folded is set aside (`failed_at`, `error`) so that it does
 * not hold back the others.
 */
export class PendingRollups1795500000001 implements MigrationInterface {
  name = 'PendingRollups1795500000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE rollup_pending (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        delta jsonb NOT NULL,
        failed_at timestamptz,
        error text
      );
      CREATE INDEX rollup_pending_issue_id_idx ON rollup_pending (issue_id);
      CREATE INDEX rollup_pending_waiting_idx ON rollup_pending (id) WHERE failed_at IS NULL;
    `);
  }

  /** Refuses while counts wait to be folded: dropping them would leave the rollups short for good. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    const [{ waiting }] = await queryRunner.query(
      'SELECT count(*)::int AS waiting FROM rollup_pending WHERE failed_at IS NULL',
    );
    if (waiting > 0) {
      throw new Error(
        `rollup_pending holds ${waiting} row(s) of counts not yet added to the rollups: ` +
          'let a worker of this version fold them (it does within seconds), then revert',
      );
    }
    await queryRunner.query('DROP TABLE rollup_pending');
  }
}
