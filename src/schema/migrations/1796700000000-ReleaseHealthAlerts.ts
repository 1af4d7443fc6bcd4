import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Alerts on release health (docs/alerts.md): a history row names the release it is about, and
 * keeps what was measured (metric, value, threshold, window, environments) for its notification.
 * One state row per rule and release in breach: inserted when the breach is first seen, so that a
 * release that stays below the threshold alerts once, and deleted when it recovers; its primary key
 * makes two workers' evaluations of the same breach fire once.
 *
 * The new type joins the types alert_rules' check allows, whichever other migrations added before.
 */
export class ReleaseHealthAlerts1796700000000 implements MigrationInterface {
  name = 'ReleaseHealthAlerts1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await setAlertTypes(queryRunner, (types) => [
      ...types.filter((type) => type !== 'release_health'),
      'release_health',
    ]);
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
    await queryRunner.query(`DELETE FROM alert_rules WHERE alert_type = 'release_health'`);
    await setAlertTypes(queryRunner, (types) => types.filter((type) => type !== 'release_health'));
    await queryRunner.query(`
      DROP TABLE release_health_alert_states;
      ALTER TABLE alert_history DROP COLUMN release_breach, DROP COLUMN release;
    `);
  }
}

/** Rewrites the check on alert_rules.alert_type with the types `change` makes of the allowed ones (later migrations use it too). */
export async function setAlertTypes(queryRunner: QueryRunner, change: (types: string[]) => string[]): Promise<void> {
  const [row] = (await queryRunner.query(
    `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'alert_rules'::regclass AND conname = 'alert_rules_alert_type_check'`,
  )) as { definition: string }[];
  const allowed = row ? [...row.definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]) : [];
  const types = change(allowed);
  const list = types.map((type) => `'${type.replace(/[^a-z_]/g, '')}'`).join(', ');
  await queryRunner.query(`
    ALTER TABLE alert_rules DROP CONSTRAINT IF EXISTS alert_rules_alert_type_check;
    ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_alert_type_check CHECK (alert_type IN (${list}));
  `);
}
