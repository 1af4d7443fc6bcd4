import {
  CronSchedule,
  DEFAULT_MARGIN_MINUTES,
  DEFAULT_MAX_RUNTIME_MINUTES,
  MAX_MARGIN_MINUTES,
  MAX_RUNTIME_MINUTES,
  validMinutes,
  validSchedule,
  validThreshold,
  validTimezone,
} from './cron-schedule';

/**
 * Reading check-ins as clients send them, pure: the `check_in` envelope item
 * (https://develop.sentry.dev/sdk/telemetry/check-ins/) and the fields of the HTTP check-in URL.
 * What Sentry refuses is refused here with the reason it counts as an outcome (category
 * `monitor`); an invalid `monitor_config` is only dropped (and counted): Sentry still takes the
 * check-in when the monitor exists.
 */

export const CHECK_IN_STATUSES = ['in_progress', 'ok', 'error'] as const;
export type ClientCheckInStatus = (typeof CHECK_IN_STATUSES)[number];

/** Sentry's slug length. */
export const MAX_SLUG_LENGTH = 50;
/** Sentry's environment names: up to 64 characters, no line breaks nor slashes. */
const MAX_ENVIRONMENT_LENGTH = 64;
const MAX_RELEASE_LENGTH = 200;
/** Durations are kept in milliseconds in a 32-bit column, as Sentry keeps them. */
const MAX_DURATION_MS = 2_147_483_647;

export interface MonitorConfig {
  schedule: CronSchedule;
  checkin_margin?: number;
  max_runtime?: number;
  timezone?: string;
  failure_issue_threshold?: number;
  recovery_threshold?: number;
}

/** A check-in accepted at ingest, as it travels to the worker. */
export interface QueuedCheckIn {
  projectId: number;
  /** Lowercase dashed UUID; null: "the latest in-progress check-in" (a nil or absent id). */
  checkInId: string | null;
  slug: string;
  status: ClientCheckInStatus;
  environment: string;
  durationMs: number | null;
  release: string | null;
  monitorConfig: MonitorConfig | null;
  /** Epoch milliseconds when ingest accepted it. */
  receivedAt: number;
  /** How many times the worker put it back to wait for its monitor (see DigestProcessor). */
  deferrals?: number;
}

export type CheckInRefusal =
  | 'invalid_check_in'
  | 'invalid_guid'
  | 'invalid_slug'
  | 'invalid_status'
  | 'invalid_duration'
  | 'invalid_environment';

export type CheckInReading =
  { checkIn: QueuedCheckIn; configRefused?: string } | { refused: CheckInRefusal; message: string };

/**
 * A monitor slug as Sentry normalises it (Django's slugify, then 50 characters): accents folded to
 * ASCII, anything but letters, digits, `_`, `-` and spaces dropped, lowercase, runs of spaces and
 * dashes made one dash, dashes and underscores trimmed at both ends.
 */
export function normaliseSlug(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0080-\uffff]/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/[-_]+$/, '');
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID in any of its usual spellings as lowercase dashed; null for the nil UUID; undefined if not one. */
export function checkInUuid(raw: unknown): string | null | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().replace(/^\{|\}$/g, '');
  if (!UUID.test(text)) return undefined;
  const hex = text.replace(/-/g, '').toLowerCase();
  if (/^0+$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function validEnvironment(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || raw === '') return 'production';
  if (typeof raw !== 'string' || raw.length > MAX_ENVIRONMENT_LENGTH || /[\n\r\f/]/.test(raw))
    return undefined;
  return raw;
}

/**
 * A check-in's fields (an envelope item's JSON, or the HTTP URL's query and body merged).
 * `idRequired`: the envelope item must carry `check_in_id` (Relay refuses one without), the URL may
 * leave it out. Durations are in seconds, as clients send them.
 */
export function readCheckInFields(
  fields: Record<string, unknown>,
  projectId: number,
  receivedAt: number,
  options: { idRequired: boolean; slug?: string },
): CheckInReading {
  const rawSlug = options.slug ?? fields.monitor_slug;
  if (typeof rawSlug !== 'string') return { refused: 'invalid_slug', message: 'monitor_slug is missing' };
  const slug = normaliseSlug(rawSlug);
  if (slug === '') return { refused: 'invalid_slug', message: 'the monitor slug is empty or invalid' };

  const status = fields.status;
  if (status === undefined || status === null || status === '') {
    return { refused: 'invalid_status', message: 'status is missing: in_progress, ok or error' };
  }
  if (typeof status !== 'string' || !(CHECK_IN_STATUSES as readonly string[]).includes(status)) {
    return {
      refused: 'invalid_status',
      message: `unknown status ${JSON.stringify(status).slice(0, 40)}: in_progress, ok or error`,
    };
  }

  let checkInId: string | null;
  if (fields.check_in_id === undefined || fields.check_in_id === null || fields.check_in_id === '') {
    if (options.idRequired) return { refused: 'invalid_guid', message: 'check_in_id is missing' };
    checkInId = null;
  } else {
    const id = checkInUuid(fields.check_in_id);
    if (id === undefined) return { refused: 'invalid_guid', message: 'check_in_id must be a UUID' };
    checkInId = id;
  }

  const environment = validEnvironment(fields.environment);
  if (environment === undefined) {
    return {
      refused: 'invalid_environment',
      message: `environment must be text of up to ${MAX_ENVIRONMENT_LENGTH} characters without line breaks or slashes`,
    };
  }

  let durationMs: number | null = null;
  if (fields.duration !== undefined && fields.duration !== null && fields.duration !== '') {
    const seconds = typeof fields.duration === 'string' ? Number(fields.duration) : fields.duration;
    const ms = typeof seconds === 'number' ? Math.round(seconds * 1000) : NaN;
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_DURATION_MS) {
      return { refused: 'invalid_duration', message: 'duration must be a number of seconds, 0 or more' };
    }
    durationMs = ms;
  }

  const release =
    typeof fields.release === 'string' && fields.release !== ''
      ? fields.release.slice(0, MAX_RELEASE_LENGTH)
      : null;

  let monitorConfig: MonitorConfig | null = null;
  let configRefused: string | undefined;
  if (fields.monitor_config !== undefined && fields.monitor_config !== null) {
    try {
      monitorConfig = readMonitorConfig(fields.monitor_config);
    } catch (error) {
      configRefused = (error as Error).message;
    }
  }

  const checkIn: QueuedCheckIn = {
    projectId,
    checkInId,
    slug,
    status: status as ClientCheckInStatus,
    environment,
    durationMs,
    release,
    monitorConfig,
    receivedAt,
  };
  return configRefused === undefined ? { checkIn } : { checkIn, configRefused };
}

/** An envelope's `check_in` item payload. */
export function readCheckInItem(payload: string, projectId: number, receivedAt: number): CheckInReading {
  let fields: unknown;
  try {
    fields = JSON.parse(payload);
  } catch {
    return { refused: 'invalid_check_in', message: 'the check-in is not JSON' };
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    return { refused: 'invalid_check_in', message: 'the check-in is not a JSON object' };
  }
  return readCheckInFields(fields as Record<string, unknown>, projectId, receivedAt, { idRequired: true });
}

/** A `monitor_config`; throws an error whose message says what is wrong. */
export function readMonitorConfig(raw: unknown): MonitorConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TypeError('monitor_config must be an object');
  }
  const fields = raw as Record<string, unknown>;
  const config: MonitorConfig = { schedule: validSchedule(fields.schedule) };
  const present = (value: unknown) => value !== undefined && value !== null;
  if (present(fields.checkin_margin)) {
    config.checkin_margin = validMinutes('checkin_margin', fields.checkin_margin, 0, MAX_MARGIN_MINUTES);
  }
  if (present(fields.max_runtime)) {
    config.max_runtime = validMinutes('max_runtime', fields.max_runtime, 1, MAX_RUNTIME_MINUTES);
  }
  if (present(fields.timezone)) config.timezone = validTimezone(fields.timezone);
  if (present(fields.failure_issue_threshold)) {
    config.failure_issue_threshold = validThreshold(
      'failure_issue_threshold',
      fields.failure_issue_threshold,
    );
  }
  if (present(fields.recovery_threshold)) {
    config.recovery_threshold = validThreshold('recovery_threshold', fields.recovery_threshold);
  }
  return config;
}

export const CONFIG_DEFAULTS = {
  checkin_margin: DEFAULT_MARGIN_MINUTES,
  max_runtime: DEFAULT_MAX_RUNTIME_MINUTES,
  timezone: 'UTC',
  failure_issue_threshold: 1,
  recovery_threshold: 1,
};
