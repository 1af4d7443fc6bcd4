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

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** Strongest first. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export type Permission =
  | 'account'
  | 'project:read'
  | 'project:triage'
  | 'project:write'
  | 'projects:admin'
  | 'members:read'
  | 'members:admin'
  | 'channels:read'
  | 'channels:admin'
  | 'audit:read';

export interface Me {
  kind: 'user' | 'token';
  /** The account's id, or the token's for a token. */
  id: number;
  user_id: number | null;
  email?: string;
  name: string;
  role: Role;
  /** What the dashboard may offer; the API decides again on every request. */
  permissions: Permission[];
  read_only: boolean;
  /** The projects it sees; null: every project. */
  project_ids: number[] | null;
  email_notifications: boolean;
  /** Linked to its identity at the single sign-on provider. */
  sso_linked: boolean;
}

export interface Member {
  id: number;
  email: string;
  name: string;
  role: Role;
  is_active: boolean;
  deactivated_at: string | null;
  created_at: string;
  team_ids: number[];
  /** Signs in through single sign-on. */
  sso: boolean;
}

export interface Team {
  id: number;
  slug: string;
  name: string;
  created_at: string;
  member_ids: number[];
  project_ids: number[];
}

export interface Invitation {
  id: number;
  email: string;
  role: Role;
  team_ids: number[];
  invited_by: number | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  state: 'pending' | 'expired' | 'accepted' | 'revoked';
}

/** What creating an invitation answers: the link is in this answer only. */
export interface CreatedInvitation extends Invitation {
  link: string;
  emailed: boolean;
}

export interface InvitationPreview {
  email: string;
  role: Role;
  expires_at: string;
}

export interface Session {
  id: string;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
  ip: string | null;
  /** The session of this browser. */
  current: boolean;
}

export interface AuditEntry {
  id: string;
  created_at: string;
  /** The e-mail of the account, or how a token or the tracker itself is named. */
  actor: string;
  actor_user_id: number | null;
  actor_token_id: number | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
}

export interface SsoSettings {
  enabled: boolean;
  name: string;
  /** False when accounts may only sign in through single sign-on. */
  password_login: boolean;
}

/** An account: who wrote a comment, who is assigned. */
export interface Person {
  id: number;
  email: string;
  name: string;
}

/** Who did something an issue's activity records: an account, or (without id) an operator token. */
export interface Actor {
  id: number | null;
  email: string | null;
  name: string;
}

export type Assignee = ({ type: 'user' } & Person) | { type: 'team'; id: number; slug: string; name: string };

export interface Comment {
  id: number;
  issue_id: number;
  author: Person | null;
  /** How the author is named when `author` is null (an operator token). */
  author_label?: string;
  /** Markdown, as written. */
  body: string;
  /** The body rendered and sanitised by the server. */
  html: string;
  created_at: string;
  updated_at: string;
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
  assignee?: Assignee | null;
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
  /** Who did it; null (or absent) when the tracker did. */
  actor?: Actor | null;
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
  /** The account it acts for; null for an operator token. */
  user_id?: number | null;
  /** Only GET and HEAD requests. */
  read_only?: boolean;
  /** The projects it is limited to; null: every project its account sees. */
  project_ids?: number[] | null;
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
  /** Also e-mail the issue's assignee, besides the channels. */
  notify_assignee?: boolean;
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
      // Pages shown signed out stay where they are.
      if (!/^\/(login$|invitations\/)/.test(window.location.pathname)) {
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
  put: (path: string) => request<void>('PUT', path),
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
