import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-project event quotas and spike protection (docs/data-protection.md#quotas-and-spike-protection):
 * the settings (a project without a row has no quotas and spike protection on), the spikes that
 * engaged, and the `spike_protection` alert rule type with what its notifications say.
 */
export class QuotasAndSpikeProtection1797300000000 implements MigrationInterface {
  name = 'QuotasAndSpikeProtection1797300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE project_quotas (
        project_id int PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        daily_quota int CHECK (daily_quota >= 0),
        monthly_quota int CHECK (monthly_quota >= 0),
        spike_protection boolean NOT NULL DEFAULT true,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE project_spikes (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        limit_per_hour int NOT NULL,
        current_hour timestamptz NOT NULL,
        dropped_earlier bigint NOT NULL DEFAULT 0,
        dropped_this_hour bigint NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX project_spikes_open_idx ON project_spikes (project_id) WHERE ended_at IS NULL;
      CREATE INDEX project_spikes_project_idx ON project_spikes (project_id, started_at);
      ALTER TABLE alert_history ADD COLUMN spike jsonb;
    `);
    await setAlertTypes(queryRunner, (types) => [
      ...types.filter((type) => type !== 'spike_protection'),
      'spike_protection',
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM alert_rules WHERE alert_type = 'spike_protection'`);
    await setAlertTypes(queryRunner, (types) => types.filter((type) => type !== 'spike_protection'));
    await queryRunner.query(`
      ALTER TABLE alert_history DROP COLUMN spike;
      DROP TABLE project_spikes;
      DROP TABLE project_quotas;
    `);
  }
}

/** Rewrites the check on alert_rules.alert_type with the types `change` makes of the allowed ones. */
export async function setAlertTypes(queryRunner: QueryRunner, change: (types: string[]) => string[]): Promise<void> {
  const [row] = (await queryRunner.query(
    `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'alert_rules'::regclass AND conname = 'alert_rules_alert_type_check'`,
  )) as { definition: string }[];
  const allowed = row ? [...row.definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]) : [];
  const list = change(allowed)
    .map((type) => `'${type.replace(/[^a-z_]/g, '')}'`)
    .join(', ');
  await queryRunner.query(`
    ALTER TABLE alert_rules DROP CONSTRAINT IF EXISTS alert_rules_alert_type_check;
    ALTER TABLE alert_rules ADD CONSTRAINT alert_rules_alert_type_check CHECK (alert_type IN (${list}));
  `);
}
