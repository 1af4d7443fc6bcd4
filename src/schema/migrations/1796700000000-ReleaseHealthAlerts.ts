import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alerts on release health (docs/alerts.md): a history row names the release it is about, and
 * keeps what was measured (metric, value, threshold, window, environments) for its notification.
 * One state row per rule and release in breach: inserted when the breach is first seen, so that a
 * release that stays below the threshold alerts once, and deleted when it recovers; its primary key
 * makes two workers' evaluations of the same breach fire once.
 */
export class ReleaseHealthAlerts1796700000000 implements MigrationInterface {
  name = 'ReleaseHealthAlerts1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE alert_history ADD COLUMN release text, ADD COLUMN release_breach jsonb;
      CREATE TABLE release_health_alert_states (
        rule_id int NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
        release text NOT NULL,
        breach_id uuid NOT NULL,
        breached_at timestamptz NOT NULL,
        PRIMARY KEY (rule_id, release)
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE release_health_alert_states;
      ALTER TABLE alert_history DROP COLUMN release_breach, DROP COLUMN release;
    `);
  }
}
