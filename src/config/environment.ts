import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parseRedisUrl } from './redis-url';
import { Environment, LOG_LEVELS, LogLevel } from './environment-variables';

export { APP_ROLES, Environment, LOG_LEVELS } from './environment-variables';
export type { AppRole, LogLevel } from './environment-variables';

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
  if (env.BLOB_STORAGE === 's3' && !env.S3_BUCKET) {
    throw new Error('Invalid configuration: BLOB_STORAGE=s3 needs S3_BUCKET');
  }
  if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new Error('Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
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
