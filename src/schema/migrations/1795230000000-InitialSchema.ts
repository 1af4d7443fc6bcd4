import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1795230000000 implements MigrationInterface {
  name = 'InitialSchema1795230000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        email text NOT NULL UNIQUE,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE sessions (
        token_hash char(64) PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX sessions_user_id_idx ON sessions (user_id);

      CREATE TABLE api_tokens (
        id serial PRIMARY KEY,
        description text NOT NULL DEFAULT '',
        token_hash char(64) NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      );

      CREATE TABLE projects (
        id serial PRIMARY KEY,
        name text NOT NULL,
        slug text NOT NULL UNIQUE,
        client_key uuid NOT NULL UNIQUE,
        next_issue_number int NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE issues (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        grouping_key text NOT NULL,
        number int NOT NULL,
        type text NOT NULL,
        message text NOT NULL,
        culprit text NOT NULL DEFAULT '',
        level text NOT NULL DEFAULT 'error',
        state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'resolved', 'muted')),
        event_count int NOT NULL DEFAULT 0,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        resolved_at timestamptz,
        muted_at timestamptz,
        last_regressed_at timestamptz,
        regression_count int NOT NULL DEFAULT 0,
        UNIQUE (project_id, grouping_key),
        UNIQUE (project_id, number)
      );
      CREATE INDEX issues_project_last_seen_idx ON issues (project_id, last_seen DESC, id DESC);
      CREATE INDEX issues_project_state_last_seen_idx ON issues (project_id, state, last_seen DESC, id DESC);

      CREATE TABLE events (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        id uuid NOT NULL,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        timestamp timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        environment text,
        release text,
        level text NOT NULL DEFAULT 'error',
        "user" jsonb,
        payload jsonb NOT NULL,
        PRIMARY KEY (project_id, id)
      );
      CREATE INDEX events_issue_timestamp_idx ON events (issue_id, timestamp DESC, id DESC);
      CREATE INDEX events_id_idx ON events (id);

      CREATE TABLE notification_channels (
        id serial PRIMARY KEY,
        name text NOT NULL,
        channel_type text NOT NULL CHECK (channel_type IN ('webhook', 'email', 'chat')),
        config jsonb NOT NULL DEFAULT '{}',
        is_enabled boolean NOT NULL DEFAULT true,
        failure_count int NOT NULL DEFAULT 0,
        last_success_at timestamptz,
        last_failure_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE alert_rules (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        alert_type text NOT NULL CHECK (alert_type IN ('new_issue', 'regression', 'unmute')),
        is_enabled boolean NOT NULL DEFAULT true,
        conditions jsonb NOT NULL DEFAULT '{}',
        cooldown_minutes int NOT NULL DEFAULT 0 CHECK (cooldown_minutes >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX alert_rules_project_type_idx ON alert_rules (project_id, alert_type);

      CREATE TABLE alert_rule_channels (
        rule_id int NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
        channel_id int NOT NULL REFERENCES notification_channels(id) ON DELETE CASCADE,
        PRIMARY KEY (rule_id, channel_id)
      );
      CREATE INDEX alert_rule_channels_channel_idx ON alert_rule_channels (channel_id);

      CREATE TABLE alert_history (
        id serial PRIMARY KEY,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        rule_id int REFERENCES alert_rules(id) ON DELETE SET NULL,
        channel_id int REFERENCES notification_channels(id) ON DELETE SET NULL,
        issue_id int REFERENCES issues(id) ON DELETE SET NULL,
        alert_type text NOT NULL,
        channel_type text NOT NULL,
        channel_name text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
        error text,
        attempts int NOT NULL DEFAULT 0,
        idempotency_key text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      );
      CREATE INDEX alert_history_project_created_idx ON alert_history (project_id, created_at DESC, id DESC);
      CREATE INDEX alert_history_rule_issue_idx ON alert_history (rule_id, issue_id, created_at DESC);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE alert_history;
      DROP TABLE alert_rule_channels;
      DROP TABLE alert_rules;
      DROP TABLE notification_channels;
      DROP TABLE events;
      DROP TABLE issues;
      DROP TABLE projects;
      DROP TABLE api_tokens;
      DROP TABLE sessions;
      DROP TABLE users;
    `);
  }
}
