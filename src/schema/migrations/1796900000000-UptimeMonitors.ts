import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uptime monitors (docs/monitors.md): the monitors with their state and the time their next check
 * is due, one row per check (kept UPTIME_CHECK_RETENTION_HOURS), hourly totals per monitor (kept for
 * the 7 and 30 day figures and the status page's 90 days), and each project's status page.
 *
 * A check's key is its monitor and the time it was due: a check queued twice, or run again after a
 * worker died, is recorded once, and the hourly totals are added to only by the insert that wins.
 */
export class UptimeMonitors1796900000000 implements MigrationInterface {
  name = 'UptimeMonitors1796900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE uptime_monitors (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        url text NOT NULL,
        method text NOT NULL DEFAULT 'GET',
        headers jsonb NOT NULL DEFAULT '{}',
        body text,
        expected_status_min int NOT NULL DEFAULT 200,
        expected_status_max int NOT NULL DEFAULT 299,
        body_contains text,
        interval_seconds int NOT NULL DEFAULT 60 CHECK (interval_seconds > 0),
        timeout_seconds int NOT NULL DEFAULT 10 CHECK (timeout_seconds > 0),
        tls_expiry_days int NOT NULL DEFAULT 14,
        failure_threshold int NOT NULL DEFAULT 1,
        recovery_threshold int NOT NULL DEFAULT 1,
        muted boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('up', 'down', 'pending')),
        consecutive_failures int NOT NULL DEFAULT 0,
        consecutive_successes int NOT NULL DEFAULT 0,
        next_due_at timestamptz NOT NULL,
        last_due_at timestamptz,
        last_checked_at timestamptz,
        last_response_ms int,
        last_status_code int,
        last_error text,
        tls_expires_at timestamptz,
        tls_warned_expiry timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX uptime_monitors_project ON uptime_monitors (project_id, id);
      CREATE INDEX uptime_monitors_due ON uptime_monitors (next_due_at);

      CREATE TABLE uptime_checks (
        monitor_id int NOT NULL REFERENCES uptime_monitors(id) ON DELETE CASCADE,
        due_at timestamptz NOT NULL,
        checked_at timestamptz NOT NULL,
        ok boolean NOT NULL,
        response_ms int,
        status_code int,
        error text,
        PRIMARY KEY (monitor_id, due_at)
      );
      CREATE INDEX uptime_checks_due ON uptime_checks (due_at);

      CREATE TABLE uptime_check_hours (
        monitor_id int NOT NULL REFERENCES uptime_monitors(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        checks int NOT NULL,
        ok int NOT NULL,
        response_ms_sum bigint NOT NULL,
        response_ms_count int NOT NULL,
        response_ms_max int,
        PRIMARY KEY (monitor_id, hour)
      );
      CREATE INDEX uptime_check_hours_hour ON uptime_check_hours (hour);

      CREATE TABLE status_pages (
        project_id int PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        enabled boolean NOT NULL DEFAULT false,
        slug text UNIQUE,
        title text NOT NULL DEFAULT '',
        uptime_monitor_ids int[] NOT NULL DEFAULT '{}',
        cron_monitor_ids int[] NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE status_pages;
      DROP TABLE uptime_check_hours;
      DROP TABLE uptime_checks;
      DROP TABLE uptime_monitors;
    `);
  }
}
