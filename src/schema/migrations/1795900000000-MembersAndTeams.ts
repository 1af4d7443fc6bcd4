import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tracker shared by a team: each account has a role and may be deactivated; teams group members
 * and are given projects; tokens belong to an account and may be narrowed; invitations bring people
 * in; the audit log keeps what admins must be able to review.
 *
 * Accounts and tokens from before had every power: they become owners and owner tokens.
 */
export class MembersAndTeams1795900000000 implements MigrationInterface {
  name = 'MembersAndTeams1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE users
        ADD COLUMN role text NOT NULL DEFAULT 'owner'
          CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
        ADD COLUMN name text NOT NULL DEFAULT '',
        ADD COLUMN is_active boolean NOT NULL DEFAULT true,
        ADD COLUMN deactivated_at timestamptz,
        ADD COLUMN email_notifications boolean NOT NULL DEFAULT true,
        ADD COLUMN oidc_issuer text,
        ADD COLUMN oidc_subject text,
        ADD CONSTRAINT users_oidc_subject_key UNIQUE (oidc_issuer, oidc_subject),
        ALTER COLUMN password_hash DROP NOT NULL;
      ALTER TABLE users ALTER COLUMN role SET DEFAULT 'member';

      ALTER TABLE sessions
        ADD COLUMN user_agent text,
        ADD COLUMN ip text;

      ALTER TABLE api_tokens
        ADD COLUMN user_id int REFERENCES users(id) ON DELETE CASCADE,
        ADD COLUMN read_only boolean NOT NULL DEFAULT false,
        ADD COLUMN project_ids int[];
      CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id);

      CREATE TABLE teams (
        id serial PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE team_members (
        team_id int NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, user_id)
      );
      CREATE INDEX team_members_user_id_idx ON team_members (user_id);
      CREATE TABLE team_projects (
        team_id int NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        PRIMARY KEY (team_id, project_id)
      );
      CREATE INDEX team_projects_project_id_idx ON team_projects (project_id);

      CREATE TABLE invitations (
        id serial PRIMARY KEY,
        email text NOT NULL,
        role text NOT NULL CONSTRAINT invitations_role_check CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
        team_ids int[] NOT NULL DEFAULT '{}',
        token_hash char(64) NOT NULL UNIQUE,
        invited_by int REFERENCES users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by int REFERENCES users(id) ON DELETE SET NULL,
        revoked_at timestamptz
      );
      CREATE INDEX invitations_invited_by_idx ON invitations (invited_by);
      CREATE INDEX invitations_accepted_by_idx ON invitations (accepted_by);

      -- No foreign keys: an entry outlives what it names.
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        actor_user_id int,
        actor_token_id int,
        actor text NOT NULL,
        action text NOT NULL,
        target_type text,
        target_id text,
        details jsonb NOT NULL DEFAULT '{}',
        ip text
      );
      CREATE INDEX audit_log_created_at_idx ON audit_log (created_at DESC, id DESC);
      CREATE INDEX audit_log_action_idx ON audit_log (action, created_at DESC, id DESC);
      CREATE INDEX audit_log_actor_idx ON audit_log (actor_user_id, created_at DESC, id DESC);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS audit_log;
      DROP TABLE IF EXISTS invitations;
      DROP TABLE IF EXISTS team_projects;
      DROP TABLE IF EXISTS team_members;
      DROP TABLE IF EXISTS teams;
      DROP INDEX IF EXISTS api_tokens_user_id_idx;
      ALTER TABLE api_tokens DROP COLUMN IF EXISTS user_id, DROP COLUMN IF EXISTS read_only,
        DROP COLUMN IF EXISTS project_ids;
      ALTER TABLE sessions DROP COLUMN IF EXISTS user_agent, DROP COLUMN IF EXISTS ip;
      DELETE FROM users WHERE password_hash IS NULL;
      ALTER TABLE users
        DROP CONSTRAINT IF EXISTS users_oidc_subject_key,
        DROP COLUMN IF EXISTS role, DROP COLUMN IF EXISTS name, DROP COLUMN IF EXISTS is_active,
        DROP COLUMN IF EXISTS deactivated_at, DROP COLUMN IF EXISTS email_notifications,
        DROP COLUMN IF EXISTS oidc_issuer, DROP COLUMN IF EXISTS oidc_subject,
        ALTER COLUMN password_hash SET NOT NULL;
    `);
  }
}
