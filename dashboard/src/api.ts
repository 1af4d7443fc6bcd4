import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './api-schema';
import { navigate } from './router';

/**
 * The API's types and client. Both come from the server: `npm run openapi` writes openapi.json from
 * its routes and api-schema.d.ts from that, so a change to a response shows up here as a type error.
 * What stays hand-written is the dashboard's own: error handling, the order of roles, query strings.
 */
type Schemas = components['schemas'];

export type Me = Schemas['MeView'];
export type Role = Me['role'];
export type Permission = Me['permissions'][number];
export type Member = Schemas['MemberView'];
export type Team = Schemas['TeamView'];
export type Invitation = Schemas['InvitationView'];
/** What creating an invitation answers: the link is in this answer only. */
export type CreatedInvitation = Schemas['CreatedInvitation'];
export type InvitationPreview = Schemas['InvitationPreview'];
export type Session = Schemas['SessionView'];
export type AuditEntry = Schemas['AuditEntryView'];
export type SsoSettings = Schemas['SsoSettings'];
/** Who did something an issue's activity records: an account, or (without id) an operator token. */
export type Actor = Schemas['ActivityActorView'];
export type Assignee = Schemas['UserAssignee'] | Schemas['TeamAssignee'];
export type Comment = Schemas['CommentView'];
export type Project = Schemas['ProjectView'];
export type ErasurePreview = Schemas['ErasurePreview'];
export type ErasureReport = Schemas['ErasureReport'];
export type Issue = Schemas['IssueView'];
export type IssueState = Issue['state'];
/** An issue list: a page, with how many issues match (exact up to 10,000, then estimated). */
export type IssueList = Schemas['IssuePage'];
/** A state change as PATCH /api/issues/{id} and the bulk PATCH take it. */
export type IssueChange = Omit<Schemas['UpdateIssueDto'], 'assignee'> & { state: IssueState };
export type Release = Schemas['ReleaseView'];
export type Environment = Schemas['EnvironmentRow'];
export type ProjectTag = Schemas['ProjectTagKey'];
export type Activity = Schemas['ActivityView'];
/** Events per bucket, oldest first, zero-filled: hourly for 24h, per UTC day for 14d and 90d. */
export type Stats = Schemas['StatsView'];
export type StatsPeriod = Stats['period'];
export type TagValue = Schemas['TagValueRow'];
/** One tag key of an issue: events carrying it, its distinct values, the most frequent ones. */
export type TagSummary = Schemas['TagKeySummary'];
export type EventItem = Schemas['IssueEventListItem'];
export type FullEvent = Schemas['FullEventView'];
export type Token = Schemas['TokenView'];
export type Channel = Schemas['ChannelView'];
export type ChannelType = Channel['channel_type'];
export type Rule = Schemas['RuleView'];
export type AlertType = Rule['alert_type'];
export type HistoryEntry = Schemas['AlertHistoryView'];
export type ArtifactBundle = Schemas['ArtifactBundleView'];
export type CronMonitor = Schemas['MonitorView'];
export type CronMonitorInput = Schemas['CreateCronMonitorDto'];
export type CronSchedule = Schemas['CronScheduleView'];
/** A cron monitor's state in one environment. */
export type CronEnvironment = Schemas['MonitorEnvironmentView'];
export type CheckIn = Schemas['CheckInView'];
export type UptimeMonitor = Schemas['UptimeMonitorView'];
export type UptimeMonitorInput = Schemas['CreateUptimeMonitorDto'];
/** A point of an uptime monitor's series: one check (24h), or a bucket of checks (7d, 30d). */
export type UptimeCheck = Schemas['UptimeCheckView'];
export type UptimePeriod = keyof Schemas['UptimePercents'];
export type StatusPageSettings = Schemas['StatusPageSettingsView'];
export type PublicStatusPage = Schemas['PublicStatusPageView'];

/** Strongest first. */
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

/** Every API error body is `{ error: string }`; this carries its message and status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Set by the app shell: called when the API says the session is gone. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * Set by the app shell: called when the API refuses something as not allowed (403), so that what the
 * account may do is asked again (its role may have changed while the page was open).
 */
let onForbidden: () => void = () => undefined;
export function setForbiddenHandler(handler: () => void): void {
  onForbidden = handler;
}

const errorHandling: Middleware = {
  onError() {
    return new ApiError('Cannot reach the server. Check your connection and try again.', 0);
  },
  onResponse({ response, schemaPath }) {
    if (response.status === 403 && schemaPath !== '/auth/me') onForbidden();
    if (response.status !== 401 || schemaPath === '/auth/login') return undefined;
    onUnauthorized();
    const next = window.location.pathname + window.location.search;
    // Pages shown signed out stay where they are.
    if (!/^\/(login$|invitations\/)/.test(window.location.pathname)) {
      navigate(`/login${next && next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`, { replace: true });
    }
    return undefined;
  },
};

/**
 * The typed client: `client.GET('/api/issues/{id}', { params: { path: { id } } })`. A merged issue's
 * 308 is followed by the browser, to the issue it went into. Pass its promise to `call`.
 */
export const client = createClient<paths>({
  credentials: 'same-origin',
  headers: { Accept: 'application/json' },
  // As `qs` writes them: empty values left out.
  querySerializer: (query) => qs(query as QueryValues).slice(1),
});
client.use(errorHandling);

/** The body of a successful answer; an error answer throws ApiError with the server's message. */
export async function call<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>): Promise<Data> {
  const { data, error, response } = await pending;
  if (!response.ok) {
    const message =
      error && typeof error === 'object' && typeof (error as { error?: unknown }).error === 'string'
        ? (error as { error: string }).error
        : `${response.status} ${response.statusText || 'request failed'}`;
    if (response.status === 403) throw new ApiError(`You are not allowed to do this (${message}).`, 403);
    throw new ApiError(message, response.status);
  }
  return data as Data;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

type QueryValues = Record<string, string | number | undefined | null>;

export function qs(params: QueryValues): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
