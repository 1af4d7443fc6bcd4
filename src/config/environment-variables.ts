import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Describe } from './describe';
import { ServerEnvironment, toBool, toInt } from './environment-server';

export { APP_ROLES, LOG_LEVELS } from './environment-server';
export type { AppRole, LogLevel } from './environment-server';

/**
 * Every variable the service reads. Anything not listed here is not configuration. Each property
 * carries its validation, its default (the initial value) and its documentation (`@Describe`), from
 * which docs/configuration.md and .env.example are generated: `npm run docs:config`.
 */
export class Environment extends ServerEnvironment {
  // ---- Digest ----

  @Describe({
    section: 'digest',
    secret: false,
    description:
      'About how many events one worker process digests at once (1–1000), taken in as many jobs as that takes and written to PostgreSQL in batches of up to 100. More uses more memory and PostgreSQL connections, not more CPU.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DIGEST_CONCURRENCY = 200;

  @Describe({
    section: 'digest',
    secret: false,
    description:
      'Megabytes of parsed source maps a worker process keeps in memory (1–16384), least recently used out first; see [Source maps](source-maps.md).',
  })
  @Transform(toInt)
  @IsInt({ message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  @Min(1, { message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  @Max(16384, { message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  SOURCEMAP_CACHE_MB = 128;

  // ---- Retention ----

  @Describe({
    section: 'retention',
    secret: false,
    description:
      'Days events are kept (1–3650), unless a project sets its own `retention_days`. Also bounds the hourly rollups and the alert history. Expired days of events are dropped as whole partitions; see [Retention](operations.md#retention).',
  })
  @Transform(toInt)
  @IsInt({ message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  @Min(1, { message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  @Max(3650, { message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  EVENT_RETENTION_DAYS = 90;

  @Describe({
    section: 'retention',
    secret: false,
    description:
      'When retention runs: a cron pattern (minute hour day month weekday), once for the whole installation however many workers there are; `off` never schedules it (a test, or an operator who runs it otherwise).',
  })
  @IsString()
  @Matches(/^(off|\S+( \S+){4,5})$/, {
    message: 'RETENTION_SCHEDULE must be a cron pattern such as "17 * * * *", or off',
  })
  RETENTION_SCHEDULE = '17 * * * *';

  @Describe({
    section: 'retention',
    secret: false,
    description:
      'Days audit log entries (sign-ins, invitations, role changes, tokens, channels, rules, projects) are kept (1–36500), deleted by the retention run.',
  })
  @Transform(toInt)
  @IsInt({ message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  @Min(1, { message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  @Max(36500, { message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  AUDIT_RETENTION_DAYS = 365;

  // ---- Accounts and sign-in ----

  @Describe({
    section: 'accounts',
    secret: true,
    example: 'admin@example.com:change-me',
    description:
      'Dashboard user `email:password`, created (as an owner), or its password reset, at every start; a deactivation or demotion of an existing account stays.',
  })
  @IsOptional()
  @Matches(/^[^\s:@]+@[^\s:@]+:.+$/, {
    message: 'CREATE_SUPERUSER must have the form email:password',
  })
  CREATE_SUPERUSER?: string;

  @Describe({
    section: 'accounts',
    secret: false,
    defaultText: '`true` if `PUBLIC_URL` is https, else `false`',
    example: 'true',
    description: 'Mark the session cookie `Secure`.',
  })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  COOKIE_SECURE?: boolean;

  @Describe({
    section: 'accounts',
    secret: false,
    description: 'Dashboard session lifetime, in hours (14 days by default).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SESSION_TTL_HOURS = 24 * 14;

  @Describe({
    section: 'accounts',
    secret: false,
    description: 'How long an invitation link can be accepted, in hours (1–8760; 7 days by default).',
  })
  @Transform(toInt)
  @IsInt({ message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  @Min(1, { message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  @Max(8760, { message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  INVITATION_TTL_HOURS = 24 * 7;

  @Describe({
    section: 'accounts',
    secret: false,
    description:
      '`false` refuses password sign-in (and accepting invitations by password): single sign-on only; needs `OIDC_ISSUER`. API tokens still work.',
  })
  @Transform(toBool)
  @IsBoolean()
  PASSWORD_LOGIN = true;

  @Describe({
    section: 'accounts',
    secret: false,
    description:
      'Failed sign-ins one account (by e-mail, whether it exists or not) may have per window before further attempts are refused with 429 and `Retry-After` until the window ends; a successful sign-in clears the count. Sign-in throttling is shared by every api instance through Redis. `0` disables the limit.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 10;

  @Describe({
    section: 'accounts',
    secret: false,
    description:
      'Sign-in attempts one client address may make per window, successful or not; over it, 429 with `Retry-After`. The address is the one the reverse proxy reports in `X-Forwarded-For` (see `TRUST_PROXY`); IPv6 counts per /64. `0` disables the limit.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS = 30;

  @Describe({
    section: 'accounts',
    secret: false,
    description:
      'Length of both sign-in throttling windows, in minutes (1–1440), counted from the first attempt in it.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1440)
  LOGIN_THROTTLE_WINDOW_MINUTES = 15;

  // ---- Single sign-on ----

  @Describe({
    section: 'sso',
    secret: false,
    example: 'https://id.example.com/realms/main',
    description:
      "OpenID Connect single sign-on: the identity provider's issuer URL (https, or http only on loopback, for a local provider). `OIDC_ISSUER`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET` go together. Register a confidential web client with the redirect URI `<PUBLIC_URL>/auth/sso/callback` and scopes `openid email profile`; see [Single sign-on](teams-and-access.md#single-sign-on).",
  })
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'OIDC_ISSUER must be the http(s) URL of the issuer' })
  OIDC_ISSUER?: string;

  @Describe({
    section: 'sso',
    secret: false,
    example: 'error-tracker',
    description: 'The client id of that registration at the provider (with `OIDC_ISSUER`).',
  })
  @IsOptional()
  @IsString()
  OIDC_CLIENT_ID?: string;

  @Describe({
    section: 'sso',
    secret: true,
    example: 'change-me',
    description: 'The client secret of that registration at the provider (with `OIDC_ISSUER`).',
  })
  @IsOptional()
  @IsString()
  OIDC_CLIENT_SECRET?: string;

  @Describe({
    section: 'sso',
    secret: false,
    description: 'What the sign-in button says: "Sign in with `OIDC_NAME`" (1 to 60 characters).',
  })
  @IsString()
  @Matches(/^.{1,60}$/, { message: 'OIDC_NAME must be 1 to 60 characters' })
  OIDC_NAME = 'single sign-on';

  @Describe({
    section: 'sso',
    secret: false,
    defaultText: 'any',
    example: 'example.com,example.org',
    description: 'Comma-separated e-mail domains that may sign in through the provider.',
  })
  @IsOptional()
  @Matches(/^\s*[a-z0-9.-]+(\s*,\s*[a-z0-9.-]+)*\s*$/i, {
    message: 'OIDC_ALLOWED_DOMAINS must be a comma-separated list of domains',
  })
  OIDC_ALLOWED_DOMAINS?: string;

  @Describe({
    section: 'sso',
    secret: false,
    description:
      "Role of an account made at its first single sign-on: `viewer`, `member` or `admin` (the last two only with `OIDC_ALLOWED_DOMAINS`); an open invitation's role wins.",
  })
  @IsIn(['viewer', 'member', 'admin'], { message: 'OIDC_DEFAULT_ROLE must be viewer, member or admin' })
  OIDC_DEFAULT_ROLE: 'viewer' | 'member' | 'admin' = 'viewer';

  // ---- Alerts and e-mail ----

  @Describe({
    section: 'alerts',
    secret: true,
    example: 'smtp://user:password@smtp.example.com:587',
    description:
      'SMTP transport of e-mail channels, invitations and assignment e-mails (`smtp://` or `smtps://`, credentials in the URL). Without it e-mail channels fail with a clear message.',
  })
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must look like smtp://user:pass@host:port' })
  SMTP_URL?: string;

  @Describe({
    section: 'alerts',
    secret: false,
    description: 'Sender of the e-mails sent through `SMTP_URL`.',
  })
  @IsString()
  SMTP_FROM = 'Error Tracker <error-tracker@localhost>';

  @Describe({
    section: 'alerts',
    secret: false,
    description:
      'Let webhook and chat channels reach loopback, private, link-local and metadata addresses. Keep `false` unless the receivers are on your own network.',
  })
  @Transform(toBool)
  @IsBoolean()
  ALERTS_ALLOW_PRIVATE_NETWORKS = false;

  @Describe({
    section: 'alerts',
    secret: false,
    description:
      'Base delay of alert delivery retries, in milliseconds (0–600000): exponential backoff, about 2, 4, 8 and 16 s with the default. Tests lower it to keep retry scenarios fast.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  ALERTS_RETRY_BASE_DELAY_MS = 2_000;

  // ---- Cron monitors ----

  @Describe({
    section: 'crons',
    secret: false,
    description:
      "Monitors a check-in's `monitor_config` may create per project (1–100000): a check-in that would create one more while the project has this many (however they were made) creates nothing and is counted as the outcome `invalid`, reason `monitor_limit_exceeded`. Monitors made through the API or the dashboard are not limited. See [Monitors](monitors.md#limits-on-what-check-ins-create).",
  })
  @Transform(toInt)
  @IsInt({ message: 'CRON_MONITORS_PER_PROJECT must be an integer from 1 to 100000' })
  @Min(1, { message: 'CRON_MONITORS_PER_PROJECT must be an integer from 1 to 100000' })
  @Max(100_000, { message: 'CRON_MONITORS_PER_PROJECT must be an integer from 1 to 100000' })
  CRON_MONITORS_PER_PROJECT = 100;

  @Describe({
    section: 'crons',
    secret: false,
    description:
      'Environments one cron monitor keeps state for (1–1000): a check-in in a new environment while the monitor has this many creates nothing and is counted as the outcome `invalid`, reason `monitor_environment_limit_exceeded`. Each environment is checked by the clock every minute and opens issues of its own.',
  })
  @Transform(toInt)
  @IsInt({ message: 'CRON_ENVIRONMENTS_PER_MONITOR must be an integer from 1 to 1000' })
  @Min(1, { message: 'CRON_ENVIRONMENTS_PER_MONITOR must be an integer from 1 to 1000' })
  @Max(1_000, { message: 'CRON_ENVIRONMENTS_PER_MONITOR must be an integer from 1 to 1000' })
  CRON_ENVIRONMENTS_PER_MONITOR = 20;

  // ---- Uptime monitors and status pages ----

  @Describe({
    section: 'uptime',
    secret: false,
    description:
      'Let uptime checks reach loopback, private, link-local and metadata addresses (the URL when it is saved, and every address connected to, redirects included). Keep `false` unless the sites you check are on your own network.',
  })
  @Transform(toBool)
  @IsBoolean()
  UPTIME_ALLOW_PRIVATE_NETWORKS = false;

  @Describe({
    section: 'uptime',
    secret: false,
    description:
      'Uptime checks one worker process runs at the same time (1–1000). Checks mostly wait on the network, so this can be well above the number of CPUs.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000)
  UPTIME_CHECK_CONCURRENCY = 50;

  @Describe({
    section: 'uptime',
    secret: false,
    description:
      'How often, in milliseconds (1000–60000), the installation claims the uptime checks due before its next claim and queues them, each delayed to its due time. Shorter: a check changed or created is picked up sooner; longer: fewer, bigger claims.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1_000)
  @Max(60_000)
  UPTIME_TICK_MS = 5_000;

  @Describe({
    section: 'uptime',
    secret: false,
    description:
      "Hours (24–720) each uptime check is kept as a row of its own (the response-time chart of the last 24 hours needs them). Hourly totals, from which 7 and 30 days and the status page's 90 days are computed, are kept 95 days.",
  })
  @Transform(toInt)
  @IsInt()
  @Min(24)
  @Max(720)
  UPTIME_CHECK_RETENTION_HOURS = 48;

  @Describe({
    section: 'uptime',
    secret: false,
    description:
      'Requests one client address may make per minute to the public status pages (`GET /api/status/{slug}` and `/status/{slug}`, together), counted in Redis for every api instance; over it, 429 with `Retry-After`. The address is the one the reverse proxy reports in `X-Forwarded-For` (see `TRUST_PROXY`); IPv6 counts per /64. `0` disables the limit.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  STATUS_PAGE_REQUESTS_PER_MINUTE = 120;

  // ---- Logging and monitoring ----

  @Describe({
    section: 'monitoring',
    secret: false,
    defaultText: '`info`',
    example: 'info',
    description:
      'Log level, as the spec names it: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. May be a Rust-style directive list such as `info,tower_http=debug`, of which only the global level counts (`warning` reads as `warn`, `off` as `silent`).',
  })
  @IsOptional()
  @IsString()
  RUST_LOG?: string;

  @Describe({
    section: 'monitoring',
    secret: false,
    defaultText: '`info`',
    example: 'info',
    description: 'Log level, as `RUST_LOG`; when set, it wins over `RUST_LOG`.',
  })
  @IsOptional()
  @IsString()
  LOG_LEVEL?: string;

  @Describe({
    section: 'monitoring',
    secret: true,
    example: 'change-me-to-a-long-random-string',
    description:
      'When set (at least 16 characters, no spaces), `GET /metrics` needs `Authorization: Bearer <METRICS_TOKEN>`; without it `/metrics` is open like `/health`.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'METRICS_TOKEN must be at least 16 characters without spaces' })
  METRICS_TOKEN?: string;

  @Describe({
    section: 'monitoring',
    secret: false,
    description:
      '`/health/ready` reports `degraded` (still 200) once the oldest waiting digest job is older than this many seconds (1–86400): events are accepted but not stored yet (no worker, or PostgreSQL refusing work).',
  })
  @Transform(toInt)
  @IsInt({ message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  @Min(1, { message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  @Max(86400, { message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  DIGEST_LAG_DEGRADED_SECONDS = 300;

  @Describe({
    section: 'monitoring',
    secret: false,
    description:
      "Who sees the details of readiness: with `admin`, `GET /health/ready` answers anyone the statuses only (the overall status, `database`, `redis` and each check's status), and `GET /health/ready/details` (api instances) the whole answer, with the reasons, the queues and the worker processes (host names and process ids), to an admin's token or session. `public` answers the whole of it at `/health/ready` to anyone, as installations whose health port is private may want.",
  })
  @IsIn(['admin', 'public'], { message: 'HEALTH_DETAILS must be admin or public' })
  HEALTH_DETAILS: 'admin' | 'public' = 'admin';
}
