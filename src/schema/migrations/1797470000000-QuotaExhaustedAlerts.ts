import { MigrationInterface, QueryRunner } from 'typeorm';
import { setAlertTypes } from './1797300000000-QuotasAndSpikeProtection';

/**
 * The `quota_exhausted` alert rule type (docs/data-protection.md#quotas-and-spike-protection): one
 * alert per period a quota refuses a project's events, with what its notifications say.
 */
export class QuotaExhaustedAlerts1797470000000 implements MigrationInterface {
  name = 'QuotaExhaustedAlerts1797470000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE alert_history ADD COLUMN quota jsonb');
    await setAlertTypes(queryRunner, (types) => [
      ...types.filter((type) => type !== 'quota_exhausted'),
      'quota_exhausted',
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM alert_rules WHERE alert_type = 'quota_exhausted'`);
    await setAlertTypes(queryRunner, (types) => types.filter((type) => type !== 'quota_exhausted'));
    await queryRunner.query('ALTER TABLE alert_history DROP COLUMN quota');
  }
}
