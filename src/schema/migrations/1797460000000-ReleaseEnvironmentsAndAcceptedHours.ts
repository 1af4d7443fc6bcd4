import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two counts kept apart from the rollups that erasure corrects:
 *
 * - `release_environments`: a release's events and the issues it opened, per environment of the
 *   event ('' for none), for the release figures of one environment. Filled from the events still
 *   stored (and, for issues, the environment of each issue's first stored event).
 * - `project_accepted_hourly`: the events a project accepted per hour of receipt, the Usage page's
 *   history, which an erasure or an issue's deletion leaves as it was. Filled from the project's
 *   hourly event counts.
 */
export class ReleaseEnvironmentsAndAcceptedHours1797460000000 implements MigrationInterface {
  name = 'ReleaseEnvironmentsAndAcceptedHours1797460000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE release_environments (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        version text NOT NULL,
        environment text NOT NULL,
        event_count bigint NOT NULL DEFAULT 0,
        new_issues int NOT NULL DEFAULT 0,
        PRIMARY KEY (project_id, version, environment)
      );
      INSERT INTO release_environments (project_id, version, environment, event_count)
      SELECT e.project_id, e.release, coalesce(e.environment, ''), count(*)
        FROM events e JOIN releases r ON r.project_id = e.project_id AND r.version = e.release
       GROUP BY 1, 2, 3;
      INSERT INTO release_environments AS r (project_id, version, environment, new_issues)
      SELECT i.project_id, i.first_release, coalesce(first_event.environment, ''), count(*)
        FROM issues i
        JOIN releases rel ON rel.project_id = i.project_id AND rel.version = i.first_release
        LEFT JOIN LATERAL (SELECT e.environment FROM events e WHERE e.issue_id = i.id
                            ORDER BY e.timestamp, e.id LIMIT 1) first_event ON true
       GROUP BY 1, 2, 3
      ON CONFLICT (project_id, version, environment) DO UPDATE SET new_issues = EXCLUDED.new_issues;

      CREATE TABLE project_accepted_hourly (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (project_id, hour)
      );
      CREATE INDEX project_accepted_hourly_hour_idx ON project_accepted_hourly (hour);
      INSERT INTO project_accepted_hourly (project_id, hour, count)
      SELECT project_id, hour, sum(count) FROM project_hourly GROUP BY 1, 2;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE project_accepted_hourly; DROP TABLE release_environments;');
  }
}
