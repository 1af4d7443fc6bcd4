import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Describe } from './describe';

export const APP_ROLES = ['all', 'api', 'worker'] as const;
export type AppRole = (typeof APP_ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
export const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  return value;
};

/**
 * The variables of the HTTP server, its stores and ingest (sections server, storage, ingest,
 * attachments); `Environment` (environment-variables.ts) adds the rest. Split in two only to keep
 * each file readable: the two classes form one declaration, read in this order for the docs.
 */
export class ServerEnvironment {
  // ---- HTTP server ----

  @Describe({ section: 'server', secret: false, description: 'Port the HTTP server listens on.' })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 8080;

  @Describe({ section: 'server', secret: false, description: 'Address the HTTP server listens on.' })
  @IsString()
  HOST = '0.0.0.0';

  @Describe({
    section: 'server',
    secret: false,
    defaultText: '`http://localhost:<PORT>`',
    example: 'https://errors.example.com',
    description:
      'Public base URL of this server (http or https): the base of project DSNs, of links in alerts and of invitation links. May include a path prefix when behind a reverse proxy.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  PUBLIC_URL?: string;

  @Describe({
    section: 'server',
    secret: false,
    description:
      'Which parts run in this process: `all` (API and workers), `api` (HTTP only) or `worker` (queues only, plus `/health`); see [Running in production](operations.md#running-in-production).',
  })
  @IsIn(APP_ROLES, { message: `APP_ROLE must be one of ${APP_ROLES.join(', ')}` })
  APP_ROLE: AppRole = 'all';

  @Describe({
    section: 'server',
    secret: false,
    description: "Serve the dashboard's static files at `/` (`false` for API-only deployments).",
  })
  @Transform(toBool)
  @IsBoolean()
  SERVE_DASHBOARD = true;

  @Describe({
    section: 'server',
    secret: false,
    description:
      "Whose `X-Forwarded-For` / `-Proto` / `-Host` headers are believed (Express' `trust proxy`): `true`, `false`, a hop count, or a comma-separated list of addresses, subnets and the names `loopback`, `linklocal` and `uniquelocal`. The default trusts reverse proxies on this host or a private network only, so that a client on the internet cannot choose the address that sign-in throttling counts.",
  })
  @IsString()
  @Matches(
    /^\s*(true|false|\d{1,2}|(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(\/\d{1,3})?))*)\s*$/,
    {
      message:
        'TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal, uniquelocal',
    },
  )
  TRUST_PROXY = 'loopback, linklocal, uniquelocal';

  @Describe({
    section: 'server',
    secret: false,
    description:
      'Seconds an HTTP request may take to arrive, headers and body (1–3600): a client that trickles its body is cut off after this, so slow uploads cannot hold connections.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  REQUEST_TIMEOUT_SECONDS = 30;

  // ---- PostgreSQL and Redis ----

  @Describe({
    section: 'storage',
    secret: true,
    description:
      'PostgreSQL connection string (`postgres://user:password@host:port/database`), or PgBouncer in front of it (see [PgBouncer](operations.md#pgbouncer)). The database is created if missing and migrated at start.',
  })
  @IsString()
  @Matches(/^postgres(ql)?:\/\/[^\s/]+\/[^\s/?]+(\?\S*)?$/, {
    message: 'DATABASE_URL must look like postgres://user:password@host:port/database',
  })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/error_tracker';

  @Describe({
    section: 'storage',
    secret: true,
    description:
      "Redis for the queues (BullMQ), rate-limit counters and short-lived caches. A database index in the path (`redis://host:6379/2`) is honoured; `rediss://` uses TLS. With `REDIS_CLUSTER`, one or more of the cluster's nodes, comma-separated.",
  })
  @IsString()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must look like redis://host:port[/db]' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Describe({
    section: 'storage',
    secret: false,
    description:
      '`true` when `REDIS_URL` is a Redis Cluster: `REDIS_URL` then lists one or more of its nodes, comma-separated (`redis://:password@10.0.0.1:6379,10.0.0.2:6379`; the client learns the others from them), without a database index. Queue keys are then hash-tagged per queue; see [Redis Cluster](operations.md#redis-cluster).',
  })
  @Transform(toBool)
  @IsBoolean({ message: 'REDIS_CLUSTER must be true or false' })
  REDIS_CLUSTER = false;

  @Describe({
    section: 'storage',
    secret: false,
    description:
      'Prefix of every Redis key (queues and counters), so that several installations (or test runs) can share one Redis. Letters, digits and `_:.-`.',
  })
  @IsString()
  @Matches(/^[A-Za-z0-9_:.-]+$/, { message: 'REDIS_PREFIX may contain letters, digits and _:.-' })
  REDIS_PREFIX = 'et';

  // ---- Ingest ----

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Events accepted per project per minute, counted in fixed windows shared by all instances through Redis. Over the limit events are dropped with 429 and the log says "rate limit exceeded". `0` disables the limit. See [Ingestion](ingestion.md).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_EVENTS_PER_MINUTE = 10_000;

  @Describe({
    section: 'ingest',
    secret: false,
    description: 'Events accepted per project per hour, as `MAX_EVENTS_PER_MINUTE`. `0` disables the limit.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_EVENTS_PER_HOUR = 100_000;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Session items (`session` and `sessions`) accepted per project per minute: a category of its own, so that a project over its event limit still records sessions. Over it the items are dropped, counted as `rate_limited` outcomes, and SDKs are told `X-Sentry-Rate-Limits: <seconds>:session:project`. `0` disables the limit. See [Release health](release-health.md#rate-limits).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_SESSIONS_PER_MINUTE = 30_000;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Session items accepted per project per hour, as `MAX_SESSIONS_PER_MINUTE`. `0` disables the limit.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_SESSIONS_PER_HOUR = 600_000;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'New releases that sessions may add to a project per UTC hour (a release is made when sessions first name it). Sessions of releases past it are dropped at the fold and counted as `rate_limited` outcomes of category `session`, reason `release_limit`; sessions of releases the project already has are never refused. `0` disables the limit. See [Release health](release-health.md#limits-on-what-sessions-keep).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_NEW_RELEASES_FROM_SESSIONS_PER_HOUR = 100;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'New sessions per project per UTC hour whose state ingest keeps in Redis (about 140 bytes each, for a day after the hour the session started), so that their later updates move them to a worse class exactly once. Past it a session is counted without state, as Relay counts sessions: by its init update and the update that ends it; its other updates (errors of a session still open) are dropped and counted as `rate_limited` outcomes, reason `untracked_session`. Bounds the Redis memory of one project to about 25 times this many states. `0` disables the cap. See [Release health](release-health.md#limits-on-what-sessions-keep).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_TRACKED_SESSIONS_PER_HOUR = 20_000;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Cron check-ins accepted per project per minute, in fixed windows shared by all instances through Redis: a category of its own (`monitor`), counted on the check-in URL and in envelopes, apart from the event limits. Sentry allows 6 check-ins a minute per monitor and environment; the default leaves room for 100 such monitors in a project. Over it the check-ins are dropped, counted as `rate_limited` outcomes of category `monitor`, and clients are told `X-Sentry-Rate-Limits: <seconds>:monitor:project`. `0` disables the limit. See [Monitors](monitors.md).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_CHECK_INS_PER_MINUTE = 600;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'User feedback items (`feedback` and `user_report`) accepted per project per minute, in fixed windows shared by all instances through Redis: a category of its own (`feedback`), apart from the event limits, since feedback is no event and uses up no event quota. Over it the feedback is dropped, counted as `rate_limited` outcomes of category `feedback`, and clients are told `X-Sentry-Rate-Limits: <seconds>:feedback:project`. `0` disables the limit. See [User feedback](feedback.md).',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  MAX_FEEDBACK_PER_MINUTE = 60;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Spike protection: a project may send this many times its average hourly volume of the last 7 days in one UTC hour before its events are dropped with 429 (reason `spike_protection`). See [Data protection](data-protection.md#quotas-and-spike-protection).',
  })
  @Transform(toInt)
  @IsInt({ message: 'SPIKE_PROTECTION_MULTIPLIER must be an integer from 1 to 1000' })
  @Min(1, { message: 'SPIKE_PROTECTION_MULTIPLIER must be an integer from 1 to 1000' })
  @Max(1000, { message: 'SPIKE_PROTECTION_MULTIPLIER must be an integer from 1 to 1000' })
  SPIKE_PROTECTION_MULTIPLIER = 10;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'Spike protection never limits a project below this many events per UTC hour, so that a quiet or new project can still report a real incident.',
  })
  @Transform(toInt)
  @IsInt({ message: 'SPIKE_PROTECTION_MIN_PER_HOUR must be a positive integer' })
  @Min(1, { message: 'SPIKE_PROTECTION_MIN_PER_HOUR must be a positive integer' })
  SPIKE_PROTECTION_MIN_PER_HOUR = 1000;

  @Describe({
    section: 'ingest',
    secret: false,
    description:
      'How long ingest waits for Redis to count an event against the rate limits, quotas and spike protection. Past it (or when Redis errors) the event is accepted uncounted and a warning is logged, at most once a minute: a slow Redis never refuses events. Well above the round trip of a loaded process, so that a saturated event loop does not skip the count.',
  })
  @Transform(toInt)
  @IsInt({ message: 'EVENT_LIMITS_TIMEOUT_MS must be an integer from 1 to 10000' })
  @Min(1, { message: 'EVENT_LIMITS_TIMEOUT_MS must be an integer from 1 to 10000' })
  @Max(10_000, { message: 'EVENT_LIMITS_TIMEOUT_MS must be an integer from 1 to 10000' })
  EVENT_LIMITS_TIMEOUT_MS = 1000;

  // ---- Attachments and file storage ----

  @Describe({
    section: 'attachments',
    secret: false,
    description:
      'Bytes one attachment may have (1 byte to 1 GiB). An envelope with a larger one is refused whole with 413; see [Attachments](attachments.md).',
  })
  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENT_MAX_BYTES must be an integer from 1 to 1073741824' })
  @Min(1, { message: 'ATTACHMENT_MAX_BYTES must be an integer from 1 to 1073741824' })
  @Max(1_073_741_824, { message: 'ATTACHMENT_MAX_BYTES must be an integer from 1 to 1073741824' })
  ATTACHMENT_MAX_BYTES = 100 * 1024 * 1024;

  @Describe({
    section: 'attachments',
    secret: false,
    description:
      'Bytes all the attachments of one envelope may have together (1 byte to 1 GiB). Over it: 413, nothing of the envelope stored.',
  })
  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENTS_MAX_BYTES_PER_ENVELOPE must be an integer from 1 to 1073741824' })
  @Min(1, { message: 'ATTACHMENTS_MAX_BYTES_PER_ENVELOPE must be an integer from 1 to 1073741824' })
  @Max(1_073_741_824, {
    message: 'ATTACHMENTS_MAX_BYTES_PER_ENVELOPE must be an integer from 1 to 1073741824',
  })
  ATTACHMENTS_MAX_BYTES_PER_ENVELOPE = 100 * 1024 * 1024;

  @Describe({
    section: 'attachments',
    secret: false,
    description:
      'Bytes of attachments one project may have stored at once (1 GiB by default); an envelope that would pass it is refused with 413 until retention (or deleting events) makes room. Envelopes arriving together cannot pass it: each reserves its bytes as they arrive. `0`: no quota.',
  })
  @Transform(toInt)
  @IsInt()
  @Min(0)
  ATTACHMENT_QUOTA_BYTES_PER_PROJECT = 1024 * 1024 * 1024;

  @Describe({
    section: 'attachments',
    secret: false,
    description:
      'Where attachments are stored: `postgres` (the default: in the database, in chunks of 512 KiB, nothing else to run) or `s3` (an S3-compatible object storage, configured by the `S3_*` variables).',
  })
  @IsIn(['postgres', 's3'], { message: 'BLOB_STORAGE must be postgres or s3' })
  BLOB_STORAGE: 'postgres' | 's3' = 'postgres';

  @Describe({
    section: 'attachments',
    secret: false,
    defaultText: "AWS's endpoint for `S3_REGION`",
    example: 'http://127.0.0.1:9000',
    description:
      'With `BLOB_STORAGE=s3`: the storage endpoint URL, for S3-compatible servers (MinIO, Ceph, R2 …).',
  })
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'S3_ENDPOINT must be an http(s) URL' })
  S3_ENDPOINT?: string;

  @Describe({
    section: 'attachments',
    secret: false,
    example: 'error-tracker-files',
    description: 'With `BLOB_STORAGE=s3` (required then): the bucket, which must exist.',
  })
  @IsOptional()
  @IsString()
  S3_BUCKET?: string;

  @Describe({ section: 'attachments', secret: false, description: 'With `BLOB_STORAGE=s3`: the region.' })
  @IsString()
  S3_REGION = 'us-east-1';

  @Describe({
    section: 'attachments',
    secret: false,
    defaultText: "the AWS SDK's default credential chain",
    example: 'AKIAEXAMPLE',
    description: 'With `BLOB_STORAGE=s3`: the access key id (with `S3_SECRET_ACCESS_KEY`).',
  })
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string;

  @Describe({
    section: 'attachments',
    secret: true,
    example: 'change-me',
    description: 'With `BLOB_STORAGE=s3`: the secret access key.',
  })
  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string;

  @Describe({
    section: 'attachments',
    secret: false,
    description:
      'With `BLOB_STORAGE=s3`: address objects as `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (most self-hosted S3-compatible servers need it).',
  })
  @Transform(toBool)
  @IsBoolean({ message: 'S3_FORCE_PATH_STYLE must be true or false' })
  S3_FORCE_PATH_STYLE = false;

  @Describe({
    section: 'attachments',
    secret: false,
    description: 'With `BLOB_STORAGE=s3`: a prefix for every object key, to share a bucket.',
  })
  @IsString()
  @Matches(/^([A-Za-z0-9_./-]*)$/, { message: 'S3_PREFIX may contain letters, digits and _./-' })
  S3_PREFIX = '';

}
