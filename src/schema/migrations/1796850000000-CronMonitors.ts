import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cron monitors (see docs/monitors.md): the monitor and its schedule, its state per environment
 * (what the clock reads: `deadline_at` is the next expected time plus the margin, indexed for the
 * once-a-minute query of what is due), and its check-ins, keyed by the client's check-in id so
 * that a check-in queued twice is stored once. In-progress check-ins carry `timeout_at`, indexed
 * for the clock's timeout query.
 */
export class CronMonitors1796850000000 implements MigrationInterface {
  name = 'CronMonitors1796850000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE cron_monitors (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        slug text NOT NULL,
        name text NOT NULL,
        schedule_type text NOT NULL CHECK (schedule_type IN ('crontab', 'interval')),
        schedule_value text NOT NULL,
        schedule_unit text CHECK (schedule_unit IN ('minute', 'hour', 'day', 'week', 'month', 'year')),
        timezone text NOT NULL DEFAULT 'UTC',
        checkin_margin int NOT NULL DEFAULT 1,
        max_runtime int NOT NULL DEFAULT 30,
        failure_issue_threshold int NOT NULL DEFAULT 1,
        recovery_threshold int NOT NULL DEFAULT 1,
        muted boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, slug)
      );
      CREATE TABLE cron_monitor_environments (
        id serial PRIMARY KEY,
        monitor_id int NOT NULL REFERENCES cron_monitors(id) ON DELETE CASCADE,
        environment text NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'ok', 'error', 'missed', 'timeout', 'in_progress')),
        next_expected_at timestamptz,
        deadline_at timestamptz,
        last_check_in_at timestamptz,
        consecutive_failures int NOT NULL DEFAULT 0,
        consecutive_successes int NOT NULL DEFAULT 0,
        incident_open boolean NOT NULL DEFAULT false,
        UNIQUE (monitor_id, environment)
      );
      CREATE INDEX cron_monitor_environments_deadline_idx ON cron_monitor_environments (deadline_at)
        WHERE deadline_at IS NOT NULL;
      CREATE TABLE cron_check_ins (
        id uuid PRIMARY KEY,
        monitor_id int NOT NULL REFERENCES cron_monitors(id) ON DELETE CASCADE,
        environment text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress', 'ok', 'error', 'missed', 'timeout')),
        duration_ms int,
        release text,
        expected_at timestamptz,
        timeout_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX cron_check_ins_list_idx ON cron_check_ins (monitor_id, created_at DESC, id DESC);
      CREATE INDEX cron_check_ins_environment_idx
        ON cron_check_ins (monitor_id, environment, created_at DESC, id DESC);
      CREATE INDEX cron_check_ins_timeout_idx ON cron_check_ins (timeout_at) WHERE status = 'in_progress';
      CREATE INDEX cron_check_ins_created_idx ON cron_check_ins (created_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE cron_check_ins;
      DROP TABLE cron_monitor_environments;
      DROP TABLE cron_monitors;
    `);
  }
}
