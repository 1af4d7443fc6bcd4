import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row that readiness rewrites: a SELECT answers on a server that refuses every write (a standby
 * after failover, a revoked grant), an upsert does not.
 */
export class HealthProbe1796100000000 implements MigrationInterface {
  name = 'HealthProbe1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE health_probe (
        id smallint PRIMARY KEY CHECK (id = 1),
        probed_at timestamptz NOT NULL
      )
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE health_probe');
  }
}
