import type { Issue, IssueState } from './issue.entity';

/**
 * An issue as the API shows it, and the names and links built from it: small and free of services,
 * so that alerts, rules and e-mails can show an issue without the issue list's machinery.
 */
export interface IssueView {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  culprit: string;
  level: string;
  state: IssueState;
  event_count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
  last_regressed_at: string | null;
  regression_count: number;
  first_release: string | null;
  last_release: string | null;
  /** When resolved in a release: `next_release` or the version. */
  resolved_in: string | null;
  /** When muted until something: a time, a number of events or of users after muting. */
  mute_until: string | null;
  mute_until_count: number | null;
  mute_until_users: number | null;
  /** With `stats=24h` in a list: events per hour over the last 24 hours, oldest first. */
  stats_24h?: number[];
  /** Who is on it: a member or a team, or null. */
  assignee: IssueAssignee | null;
}

export type IssueAssignee =
  | { type: 'user'; id: number; email: string; name: string }
  | { type: 'team'; id: number; slug: string; name: string };

export function shortId(slug: string, number: number): string {
  return `${slug.toUpperCase()}-${number}`;
}

export function toIssueView(issue: Issue, slug: string, assignee: IssueAssignee | null = null): IssueView {
  return {
    id: issue.id,
    project_id: issue.projectId,
    short_id: shortId(slug, issue.number),
    type: issue.type,
    message: issue.message,
    culprit: issue.culprit,
    level: issue.level,
    state: issue.state,
    event_count: issue.eventCount,
    user_count: issue.userCount,
    first_seen: issue.firstSeen.toISOString(),
    last_seen: issue.lastSeen.toISOString(),
    resolved_at: issue.resolvedAt?.toISOString() ?? null,
    last_regressed_at: issue.lastRegressedAt?.toISOString() ?? null,
    regression_count: issue.regressionCount,
    first_release: issue.firstRelease,
    last_release: issue.lastRelease,
    resolved_in: issue.resolvedIn,
    mute_until: issue.muteUntil?.toISOString() ?? null,
    mute_until_count: issue.muteUntilCount,
    mute_until_users: issue.muteUntilUsers,
    assignee,
  };
}

/** `${PUBLIC_URL}/projects/<projectId>/issues/<issueId>`: the dashboard's page of the issue. */
export function issueUrl(publicUrl: string, projectId: number, issueId: number): string {
  return `${publicUrl.replace(/\/+$/, '')}/projects/${projectId}/issues/${issueId}`;
}
