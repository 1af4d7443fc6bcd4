import type { Issue } from './issue.entity';
import { monitorOfGroupingKey } from './monitor-issue-key';
import type { IssueAssignee, IssueView } from './dto/issue.response';

/**
 * An issue as the API shows it (IssueView, declared with its schema in dto/issue.response.ts), and
 * the names and links built from it: small and free of services, so that alerts, rules and e-mails
 * can show an issue without the issue list's machinery.
 */
export type { IssueAssignee, IssueView };

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
    kind: issue.kind ?? 'error',
    monitor:
      issue.kind === 'cron' || issue.kind === 'uptime' ? monitorOfGroupingKey(issue.groupingKey) : null,
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
