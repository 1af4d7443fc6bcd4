import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A project's daily session quota (docs/data-protection.md#quotas-and-spike-protection): session
 * items accepted per UTC day; null, the default, is none.
 */
export class DailySessionQuota1797440000000 implements MigrationInterface {
  name = 'DailySessionQuota1797440000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE project_quotas ADD COLUMN daily_session_quota int CHECK (daily_session_quota >= 0)',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE project_quotas DROP COLUMN daily_session_quota');
  }
}
