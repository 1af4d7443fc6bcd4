import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { parseRedisUrl } from './redis-url';

export const APP_ROLES = ['all', 'api', 'worker'] as const;
export type AppRole = (typeof APP_ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  return value;
};

/**
 * RUST_LOG (named by the spec) may carry a Rust-style directive list such as
 * `info,tower_http=debug`; only the global level means anything here.
 */
export function normaliseLogLevel(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const global = raw
    .split(',')
    .map((part) => part.trim())
    .find((part) => !part.includes('='));
  const level = (global ?? raw.split(',')[0].split('=').pop() ?? '').toLowerCase();
  return level === 'warning' ? 'warn' : level === 'off' ? 'silent' : level;
}

/** Every variable the service reads. Anything not listed here is not configuration. */
export class Environment {
  @IsString()
  @Matches(/^postgres(ql)?:\/\/[^\s/]+\/[^\s/?]+(\?\S*)?$/, {
    message: 'DATABASE_URL must look like postgres://user:password@host:port/database',
  })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/error_tracker';

  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must look like redis://host:port[/db]' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * REDIS_URL names a Redis Cluster (one or more of its nodes, comma-separated: the client learns
   * the others from them). Queue keys then carry hash tags; see the README's Redis Cluster section.
   */
  @Transform(toBool)
  @IsBoolean({ message: 'REDIS_CLUSTER must be true or false' })
  REDIS_CLUSTER = false;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 8080;

  @IsString()
  HOST = '0.0.0.0';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  PUBLIC_URL?: string;

  @IsIn(APP_ROLES, { message: `APP_ROLE must be one of ${APP_ROLES.join(', ')}` })
  APP_ROLE: AppRole = 'all';

  @IsOptional()
  @Matches(/^[^\s:@]+@[^\s:@]+:.+$/, {
    message: 'CREATE_SUPERUSER must have the form email:password',
  })
  CREATE_SUPERUSER?: string;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_EVENTS_PER_MINUTE = 10_000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_EVENTS_PER_HOUR = 100_000;

  @IsOptional()
  @IsString()
  RUST_LOG?: string;

  @IsOptional()
  @IsString()
  LOG_LEVEL?: string;

  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must look like smtp://user:pass@host:port' })
  SMTP_URL?: string;

  @IsString()
  SMTP_FROM = 'Error Tracker <error-tracker@localhost>';

  @Transform(toBool)
  @IsBoolean()
  ALERTS_ALLOW_PRIVATE_NETWORKS = false;

  /** Redis key prefix for queues and counters, so several installations (or test runs) can share one Redis. */
  @IsString()
  @Matches(/^[A-Za-z0-9_:.-]+$/, { message: 'REDIS_PREFIX may contain letters, digits and _:.-' })
  REDIS_PREFIX = 'et';

  /** About how many events one worker process digests at once (in as many jobs as that takes; see JobConcurrency). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DIGEST_CONCURRENCY = 200;

  /** Megabytes of parsed source maps a worker process keeps in memory (least recently used go first). */
  @Transform(toInt)
  @IsInt({ message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  @Min(1, { message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  @Max(16384, { message: 'SOURCEMAP_CACHE_MB must be an integer from 1 to 16384' })
  SOURCEMAP_CACHE_MB = 128;

  /**
   * Days events are kept, unless a project sets its own `retention_days`. Also bounds alert history
   * and the hourly rollups. Expired days of events are dropped as whole partitions.
   */
  @Transform(toInt)
  @IsInt({ message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  @Min(1, { message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  @Max(3650, { message: 'EVENT_RETENTION_DAYS must be an integer from 1 to 3650' })
  EVENT_RETENTION_DAYS = 90;

  /**
   * When retention runs, as a cron pattern (minute hour day month weekday), once for the whole
   * installation whatever the number of workers; `off` never schedules it (a test, or an operator
   * who runs it otherwise).
   */
  @IsString()
  @Matches(/^(off|\S+( \S+){4,5})$/, {
    message: 'RETENTION_SCHEDULE must be a cron pattern such as "17 * * * *", or off',
  })
  RETENTION_SCHEDULE = '17 * * * *';

  /** Serve the dashboard's static files (off for API-only deployments). */
  @Transform(toBool)
  @IsBoolean()
  SERVE_DASHBOARD = true;

  /** Mark the session cookie Secure; defaults to true when PUBLIC_URL is https. */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  COOKIE_SECURE?: boolean;

  /** Session lifetime in hours. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  SESSION_TTL_HOURS = 24 * 14;

  /** How long an invitation link can be accepted, in hours. */
  @Transform(toInt)
  @IsInt({ message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  @Min(1, { message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  @Max(8760, { message: 'INVITATION_TTL_HOURS must be an integer from 1 to 8760' })
  INVITATION_TTL_HOURS = 24 * 7;

  /** Days audit log entries are kept. */
  @Transform(toInt)
  @IsInt({ message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  @Min(1, { message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  @Max(36500, { message: 'AUDIT_RETENTION_DAYS must be an integer from 1 to 36500' })
  AUDIT_RETENTION_DAYS = 365;

  /**
   * Failed sign-ins one account (by e-mail, whether it exists or not) may have per window before
   * further attempts are refused; a successful sign-in clears the count. 0 disables the limit.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 10;

  /** Sign-in attempts one client address may make per window, successful or not. 0 disables the limit. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS = 30;

  /** Length of the sign-in throttling window, in minutes, counted from the first attempt in it. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1440)
  LOGIN_THROTTLE_WINDOW_MINUTES = 15;

  /**
   * Whose X-Forwarded-* headers are believed (Express' `trust proxy`): `true`, `false`, a hop
   * count, or a comma-separated list of addresses, subnets and the names loopback, linklocal and
   * uniquelocal. The default trusts reverse proxies on the same host or a private network only, so
   * a client on the internet cannot choose the address that sign-in throttling counts.
   */
  @IsString()
  @Matches(
    /^\s*(true|false|\d{1,2}|(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?))*)\s*$/,
    {
      message:
        'TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal, uniquelocal',
    },
  )
  TRUST_PROXY = 'loopback, linklocal, uniquelocal';

  /**
   * Readiness reports "degraded" once the oldest digest job has waited longer than this, in seconds:
   * events are accepted but not yet stored (no worker, or a database that refuses work).
   */
  @Transform(toInt)
  @IsInt({ message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  @Min(1, { message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  @Max(86400, { message: 'DIGEST_LAG_DEGRADED_SECONDS must be an integer from 1 to 86400' })
  DIGEST_LAG_DEGRADED_SECONDS = 300;

  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`; open otherwise. */
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'METRICS_TOKEN must be at least 16 characters without spaces' })
  METRICS_TOKEN?: string;

  /**
   * How long an HTTP request may take to arrive (headers and body), in seconds: a client that
   * trickles its body is cut off after this, so slow uploads cannot hold connections.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REQUEST_TIMEOUT_SECONDS = 30;

  /**
   * Base delay of the alert delivery retries (exponential: about 2, 4, 8, 16 s with the default).
   * Tests lower it to keep retry scenarios fast.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  ALERTS_RETRY_BASE_DELAY_MS = 2_000;

  /** OpenID Connect single sign-on: the identity provider's issuer URL (https, or http on loopback). */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'OIDC_ISSUER must be the http(s) URL of the issuer' })
  OIDC_ISSUER?: string;

  @IsOptional()
  @IsString()
  OIDC_CLIENT_ID?: string;

  @IsOptional()
  @IsString()
  OIDC_CLIENT_SECRET?: string;

  /** What the sign-in button says: "Sign in with <OIDC_NAME>". */
  @IsString()
  @Matches(/^.{1,60}$/, { message: 'OIDC_NAME must be 1 to 60 characters' })
  OIDC_NAME = 'single sign-on';

  /** Comma-separated e-mail domains allowed to sign in through the provider; empty: any. */
  @IsOptional()
  @Matches(/^\s*[a-z0-9.-]+(\s*,\s*[a-z0-9.-]+)*\s*$/i, {
    message: 'OIDC_ALLOWED_DOMAINS must be a comma-separated list of domains',
  })
  OIDC_ALLOWED_DOMAINS?: string;

  /** The role of an account made at its first sign-in through the provider (an invitation's role wins). */
  @IsIn(['viewer', 'member', 'admin'], { message: 'OIDC_DEFAULT_ROLE must be viewer, member or admin' })
  OIDC_DEFAULT_ROLE: 'viewer' | 'member' | 'admin' = 'viewer';

  /** false: sign-in by password is refused (single sign-on only; needs OIDC_ISSUER). */
  @Transform(toBool)
  @IsBoolean()
  PASSWORD_LOGIN = true;
}

export interface ResolvedConfig extends Environment {
  publicUrl: string;
  logLevel: LogLevel;
  superuser?: { email: string; password: string };
  oidc?: { issuer: string; clientId: string; clientSecret: string; allowedDomains: string[] };
}

export function validateEnvironment(raw: Record<string, unknown>): ResolvedConfig {
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const env = plainToInstance(Environment, cleaned, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length > 0) {
    const first = errors[0];
    const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
    throw new Error(`Invalid configuration: ${message}`);
  }
  try {
    parseRedisUrl(env.REDIS_URL, env.REDIS_CLUSTER);
  } catch (error) {
    throw new Error(`Invalid configuration: ${(error as Error).message}`);
  }
  const level = normaliseLogLevel(env.LOG_LEVEL) ?? normaliseLogLevel(env.RUST_LOG) ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(
      `Invalid configuration: log level "${level}" (RUST_LOG / LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  let superuser: ResolvedConfig['superuser'];
  if (env.CREATE_SUPERUSER) {
    const at = env.CREATE_SUPERUSER.indexOf(':');
    superuser = {
      email: env.CREATE_SUPERUSER.slice(0, at).toLowerCase(),
      password: env.CREATE_SUPERUSER.slice(at + 1),
    };
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
  const oidcParts = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET];
  if (oidcParts.some((part) => part !== undefined) && oidcParts.some((part) => part === undefined)) {
    throw new Error('Invalid configuration: OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together');
  }
  if (!env.PASSWORD_LOGIN && !env.OIDC_ISSUER) {
    throw new Error(
      'Invalid configuration: PASSWORD_LOGIN=false needs single sign-on (OIDC_ISSUER) to sign in with',
    );
  }
  if (env.OIDC_ISSUER && env.OIDC_DEFAULT_ROLE !== 'viewer' && !env.OIDC_ALLOWED_DOMAINS) {
    // Anyone the provider vouches for gets an account: more than read access needs a domain list.
    throw new Error(
      `Invalid configuration: OIDC_DEFAULT_ROLE=${env.OIDC_DEFAULT_ROLE} needs OIDC_ALLOWED_DOMAINS (who may sign up)`,
    );
  }
  const oidc = env.OIDC_ISSUER
    ? {
        issuer: env.OIDC_ISSUER,
        clientId: env.OIDC_CLIENT_ID as string,
        clientSecret: env.OIDC_CLIENT_SECRET as string,
        allowedDomains: (env.OIDC_ALLOWED_DOMAINS ?? '')
          .split(',')
          .map((domain) => domain.trim().toLowerCase())
          .filter((domain) => domain !== ''),
      }
    : undefined;
  return Object.assign(env, { publicUrl, logLevel: level as LogLevel, superuser, oidc });
}
