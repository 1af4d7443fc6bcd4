import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The releases the session fold made per project and hour (docs/release-health.md): sessions may
 * name a new release only while the project's hour has room under
 * MAX_NEW_RELEASES_FROM_SESSIONS_PER_HOUR. The fold locks the row while it makes releases, so that
 * two folds do not both use the same room; rows older than a day are deleted by the fold.
 */
export class SessionReleaseBudget1797420000000 implements MigrationInterface {
  name = 'SessionReleaseBudget1797420000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE release_health_new_releases (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        made int NOT NULL,
        PRIMARY KEY (project_id, hour)
      );
      CREATE INDEX release_health_new_releases_hour_idx ON release_health_new_releases (hour);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE release_health_new_releases');
  }
}
