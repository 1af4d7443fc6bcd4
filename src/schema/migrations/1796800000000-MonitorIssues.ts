import { MigrationInterface, QueryRunner } from 'typeorm';
import { setAlertTypes } from './1796700000000-ReleaseHealthAlerts';

/**
 * Issues that cron and uptime monitors open (docs/monitors.md): `kind` says what opened an issue
 * (`error` for events, `cron`, `uptime`), and alert rules gain the `monitor_failed` and
 * `monitor_recovered` types. A monitor's issue is found by its grouping key (one per monitor and
 * environment); the partial index serves `kind:` searches, which pick the few monitor issues.
 */
export class MonitorIssues1796800000000 implements MigrationInterface {
  name = 'MonitorIssues1796800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE issues ADD COLUMN kind text NOT NULL DEFAULT 'error'
        CONSTRAINT issues_kind_check CHECK (kind IN ('error', 'cron', 'uptime'));
      CREATE INDEX issues_monitor_kind_idx ON issues (project_id, kind, last_seen) WHERE kind <> 'error';
    `);
    await setAlertTypes(queryRunner, (types) => [
      ...types.filter((type) => type !== 'monitor_failed' && type !== 'monitor_recovered'),
      'monitor_failed',
      'monitor_recovered',
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM alert_rules WHERE alert_type IN ('monitor_failed', 'monitor_recovered')`);
    await setAlertTypes(queryRunner, (types) =>
      types.filter((type) => type !== 'monitor_failed' && type !== 'monitor_recovered'),
    );
    await queryRunner.query(`
      DELETE FROM issues WHERE kind <> 'error';
      DROP INDEX issues_monitor_kind_idx;
      ALTER TABLE issues DROP COLUMN kind;
    `);
  }
}
