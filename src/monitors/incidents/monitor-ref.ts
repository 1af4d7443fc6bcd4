/** Which monitor, of which kind, in which environment, an incident is about. */
export type MonitorKind = 'cron' | 'uptime';

export interface MonitorRef {
  projectId: number;
  kind: MonitorKind;
  monitorId: number;
  /** The cron monitor's slug; for an uptime monitor, a slug-like name or its id. */
  slug: string;
  name: string;
  /** Uptime monitors use `production` unless they have an environment. */
  environment: string;
}

export interface MonitorFailure {
  /** When it failed: the expected time of a missed run, the check's time of a site that is down. */
  at: Date;
  reason: 'missed' | 'timeout' | 'error' | 'down' | 'tls_expiring';
  /** In words: "No check-in expected at 10:05 UTC", "HTTP 503". */
  detail: string;
  checkInId?: string;
  httpStatus?: number | null;
}
