import { navigate } from './router';

/** Every API error body is `{ error: string }`; this carries its message and status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface Me {
  kind: 'user' | 'token';
  id: number;
  email?: string;
}

export interface Project {
  id: number;
  name: string;
  slug: string;
  client_key: string;
  dsn: string;
  /** Days events are kept; null follows the installation default (EVENT_RETENTION_DAYS). */
  retention_days?: number | null;
  created_at: string;
}

export type IssueState = 'open' | 'resolved' | 'muted';

export interface Issue {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  culprit?: string;
  level?: string;
  state: IssueState;
  event_count: number;
  /** Distinct users among the issue's events. */
  user_count?: number;
  first_seen: string;
  last_seen: string;
  last_regressed_at?: string | null;
  regression_count?: number;
  first_release?: string | null;
  last_release?: string | null;
  /** When resolved in a release: `next_release` or the version. */
  resolved_in?: string | null;
  mute_until?: string | null;
  mute_until_count?: number | null;
  mute_until_users?: number | null;
  /** With `stats=24h`: events per hour over the last 24 hours, oldest first. */
  stats_24h?: number[];
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** An issue list: a page, with how many issues match (exact up to 10,000, then estimated). */
export interface IssueList extends Page<Issue> {
  total: number;
  total_is_estimate: boolean;
}

/** A state change as PATCH /api/issues/{id} and the bulk PATCH take it. */
export interface IssueChange {
  state: IssueState;
  resolved_in?: string;
  mute_until?: string;
  mute_until_count?: number;
  mute_until_users?: number;
}

export interface Release {
  version: string;
  first_event: string;
  last_event: string;
  event_count: number;
  new_issues: number;
}

export interface Environment {
  name: string;
  event_count: number;
}

export interface ProjectTag {
  key: string;
  /** Events with the tag among the project's recent issues. */
  total: number;
}

export interface Activity {
  id: number;
  kind: string;
  data?: Record<string, unknown> | null;
  created_at: string;
}

export type StatsPeriod = '24h' | '14d' | '90d';

/** Events per bucket, oldest first, zero-filled: hourly for 24h, per UTC day for 14d and 90d. */
export interface Stats {
  period: StatsPeriod;
  interval: '1h' | '1d';
  buckets: { start: string; count: number }[];
}

export interface TagValue {
  value: string;
  count: number;
}

/** One tag key of an issue: events carrying it, its distinct values, the most frequent ones. */
export interface TagSummary {
  key: string;
  total: number;
  distinct: number;
  top: TagValue[];
}

export interface EventItem {
  id: string;
  timestamp: string;
  environment?: string | null;
  release?: string | null;
  level?: string;
  user?: { id?: string | null; email?: string | null } | null;
}

export interface Token {
  id: number;
  token: string;
  description: string;
  created_at: string;
  last_used_at?: string | null;
}

export type ChannelType = 'webhook' | 'email' | 'chat';

export interface Channel {
  id: number;
  name: string;
  channel_type: ChannelType;
  config: Record<string, unknown>;
  is_enabled: boolean;
  failure_count?: number;
  last_success_at?: string | null;
  last_error?: string | null;
  created_at: string;
}

export type AlertType = 'new_issue' | 'regression' | 'unmute';

export interface Rule {
  id: number;
  project_id: number;
  name: string;
  alert_type: AlertType;
  channel_ids: number[];
  is_enabled: boolean;
  cooldown_minutes: number;
  conditions?: Record<string, unknown>;
  created_at: string;
}

export interface HistoryEntry {
  id: number;
  alert_type: AlertType;
  channel_type: ChannelType;
  channel_name: string;
  status: 'pending' | 'sent' | 'failed' | 'skipped' | string;
  error?: string | null;
  issue_id?: number | null;
  created_at: string;
  sent_at?: string | null;
}

/** Set by the app shell: called when the API says the session is gone. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('Cannot reach the server. Check your connection and try again.', 0);
  }
  const text = await response.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
  }
  if (!response.ok) {
    const message =
      data && typeof data === 'object' && typeof (data as { error?: unknown }).error === 'string'
        ? (data as { error: string }).error
        : `${response.status} ${response.statusText || 'request failed'}`;
    if (response.status === 401 && path !== '/auth/login') {
      onUnauthorized();
      const next = window.location.pathname + window.location.search;
      if (window.location.pathname !== '/login') {
        navigate(`/login${next && next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`, { replace: true });
      }
    }
    throw new ApiError(message, response.status);
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body ?? {}),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  del: (path: string) => request<void>('DELETE', path),
};

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export function qs(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
