/** Which monitor, of which kind, in which environment, an incident is about. */
export type MonitorKind = 'cron' | 'uptime';

export interface MonitorRef {
  projectId: number;
  kind: MonitorKind;
  monitorId: number;
  /** How the issue's culprit names the monitor: a cron monitor's slug, an uptime monitor's name. */
  slug: string;
  name: string;
  /** Uptime monitors use `production` unless they have an environment. */
  environment: string;
}

export interface MonitorFailure {
  /**
   * When it failed: the expected time of a missed run, the check's time of a site that is down; of
   * several failures recorded at once, the latest.
   */
  at: Date;
  /** Failures recorded by this one call (runs a cron clock found missed at once); 1 by default. */
  count?: number;
  /** Of several, the first: the issue opened by them dates from it. `at` by default. */
  since?: Date;
  reason: 'missed' | 'timeout' | 'error' | 'down' | 'tls_expiring';
  /** In words, of the latest: "No check-in expected at 10:05 UTC", "HTTP 503". */
  detail: string;
  checkInId?: string;
  httpStatus?: number | null;
}

/** A monitor's issue as monitor pages name it: open, or the last incident once resolved. */
export type { MonitorIssueView as MonitorIssueSummary } from './dto/monitor-issue.response';
