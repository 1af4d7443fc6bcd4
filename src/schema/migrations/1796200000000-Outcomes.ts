import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What became of the data SDKs send, besides the events stored: per project, hour, outcome,
 * category and reason (see docs/outcomes.md). Counted in Redis at ingest, folded in here once a
 * minute; `outcome_folds` holds the ids of the folded batches, so that a fold retried after its
 * commit adds nothing twice. Rows go with their project and, like the hourly rollups, with the
 * project's retention.
 */
export class Outcomes1796200000000 implements MigrationInterface {
  name = 'Outcomes1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE outcomes_hourly (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        outcome text NOT NULL,
        category text NOT NULL,
        reason text NOT NULL,
        quantity bigint NOT NULL,
        PRIMARY KEY (project_id, hour, outcome, category, reason)
      );
      CREATE INDEX outcomes_hourly_hour_idx ON outcomes_hourly (hour);
      CREATE TABLE outcome_folds (
        batch_id uuid PRIMARY KEY,
        folded_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX outcome_folds_folded_at_idx ON outcome_folds (folded_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE outcome_folds; DROP TABLE outcomes_hourly');
  }
}
