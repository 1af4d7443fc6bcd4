import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Release health (see docs/release-health.md): sessions counted per project, hour (of the
 * session's start), environment and release; the distinct users of each, by keyed hash, with the
 * worst their sessions reached; the ids of the batches folded in from Redis, so that a fold retried
 * after its commit adds nothing twice; and the installation's key for hashing distinct ids, made
 * here once. Rows go with their project and with the project's retention.
 */
export class ReleaseHealth1796300000000 implements MigrationInterface {
  name = 'ReleaseHealth1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE release_health_hourly (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        environment text NOT NULL,
        release text NOT NULL,
        sessions bigint NOT NULL,
        errored bigint NOT NULL,
        abnormal bigint NOT NULL,
        crashed bigint NOT NULL,
        PRIMARY KEY (project_id, hour, environment, release)
      );
      CREATE INDEX release_health_hourly_hour_idx ON release_health_hourly (hour);
      CREATE TABLE release_health_users (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        environment text NOT NULL,
        release text NOT NULL,
        user_hash uuid NOT NULL,
        worst smallint NOT NULL,
        PRIMARY KEY (project_id, hour, environment, release, user_hash)
      );
      CREATE INDEX release_health_users_hour_idx ON release_health_users (hour);
      CREATE TABLE release_health_folds (
        batch_id uuid PRIMARY KEY,
        folded_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX release_health_folds_folded_at_idx ON release_health_folds (folded_at);
      CREATE TABLE release_health_key (
        id smallint PRIMARY KEY CHECK (id = 1),
        key bytea NOT NULL
      );
    `);
    await queryRunner.query('INSERT INTO release_health_key (id, key) VALUES (1, $1)', [randomBytes(32)]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'DROP TABLE release_health_key; DROP TABLE release_health_folds; DROP TABLE release_health_users; DROP TABLE release_health_hourly',
    );
  }
}
