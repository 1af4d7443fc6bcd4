import type { Issue } from '../issues/issue.entity';
import { issueUrl, IssueView, toIssueView } from '../issues/issue-view';
import type { Project } from '../projects/project.entity';
import type { QuotaAlert, ReleaseBreach, SpikeAlert } from '../rules/alert-history.entity';
import type { AlertType } from '../rules/alert-rule.entity';

/** What every sender says, whatever its format: one issue of one project, and why it is reported. */
export interface AlertNotification {
  /** `test` only for the test endpoint's message. */
  alertType: AlertType | 'test';
  project: { id: number; name: string; slug: string };
  /** The issue as the API shows it, plus its dashboard link. */
  issue: IssueView & { url: string };
  /** Link to the issue in the dashboard. */
  url: string;
  triggeredAt: string;
}

const ALERT_TITLES: Record<AlertNotification['alertType'], string> = {
  new_issue: 'New issue',
  regression: 'Regression',
  unmute: 'Issue unmuted',
  new_feedback: 'New user feedback',
  release_health: 'Release health',
  monitor_failed: 'Monitor failed',
  monitor_recovered: 'Monitor recovered',
  spike_protection: 'Spike protection',
  quota_exhausted: 'Quota used up',
  test: 'Test notification',
};

export function alertTitle(alertType: AlertNotification['alertType']): string {
  return ALERT_TITLES[alertType];
}

/** What a `release_health` alert says: one release of one project below a rule's threshold. */
export interface ReleaseHealthNotification {
  alertType: 'release_health';
  project: { id: number; name: string; slug: string };
  /** The release, its dashboard link, and what was measured. */
  release: ReleaseBreach & { version: string; url: string };
  /** Link to the release in the dashboard. */
  url: string;
  triggeredAt: string;
}

/** What a `spike_protection` alert says: a project's spike protection engaged. */
export interface SpikeNotification {
  alertType: 'spike_protection';
  project: { id: number; name: string; slug: string };
  spike: SpikeAlert;
  /** Link to the project's quotas in the dashboard. */
  url: string;
  triggeredAt: string;
}

/** What a `quota_exhausted` alert says: a quota of the project refuses its events until its period ends. */
export interface QuotaNotification {
  alertType: 'quota_exhausted';
  project: { id: number; name: string; slug: string };
  quota: QuotaAlert;
  /** Link to the project's quotas in the dashboard. */
  url: string;
  triggeredAt: string;
}

/** What the senders take: an issue's notification (or the test one), a release's, a spike's or a quota's. */
export type AnyAlertNotification =
  | AlertNotification
  | ReleaseHealthNotification
  | SpikeNotification
  | QuotaNotification;

export function isQuotaNotification(notification: AnyAlertNotification): notification is QuotaNotification {
  return 'quota' in notification;
}

export function buildQuotaNotification(
  project: Pick<Project, 'id' | 'name' | 'slug'>,
  quota: QuotaAlert,
  publicUrl: string,
  triggeredAt: string,
): QuotaNotification {
  return {
    alertType: 'quota_exhausted',
    project: { id: project.id, name: project.name, slug: project.slug },
    quota,
    url: `${publicUrl.replace(/\/+$/, '')}/projects/${project.id}/settings/quotas`,
    triggeredAt,
  };
}

export function isSpikeNotification(notification: AnyAlertNotification): notification is SpikeNotification {
  return 'spike' in notification;
}

export function buildSpikeNotification(
  project: Pick<Project, 'id' | 'name' | 'slug'>,
  spike: SpikeAlert,
  publicUrl: string,
  triggeredAt: string,
): SpikeNotification {
  return {
    alertType: 'spike_protection',
    project: { id: project.id, name: project.name, slug: project.slug },
    spike,
    url: `${publicUrl.replace(/\/+$/, '')}/projects/${project.id}/settings/quotas`,
    triggeredAt,
  };
}

export function isReleaseHealthNotification(
  notification: AnyAlertNotification,
): notification is ReleaseHealthNotification {
  return 'release' in notification;
}

/** The release's page in the dashboard. */
export function releaseUrl(publicUrl: string, projectId: number, version: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/projects/${projectId}/releases/${encodeURIComponent(version)}`;
}

export function buildReleaseHealthNotification(
  project: Pick<Project, 'id' | 'name' | 'slug'>,
  version: string,
  breach: ReleaseBreach,
  publicUrl: string,
  triggeredAt: string,
): ReleaseHealthNotification {
  const url = releaseUrl(publicUrl, project.id, version);
  return {
    alertType: 'release_health',
    project: { id: project.id, name: project.name, slug: project.slug },
    release: { version, url, ...breach },
    url,
    triggeredAt,
  };
}

export function buildNotification(
  alertType: AlertType,
  project: Pick<Project, 'id' | 'name' | 'slug'>,
  issue: Issue,
  publicUrl: string,
  triggeredAt: string,
): AlertNotification {
  const url = issueUrl(publicUrl, project.id, issue.id);
  return {
    alertType,
    project: { id: project.id, name: project.name, slug: project.slug },
    issue: { ...toIssueView(issue, project.slug), url },
    url,
    triggeredAt,
  };
}

/**
 * The test endpoint's message: the same shape as a real alert so receivers can exercise their
 * parsing, but labelled as a test everywhere (alert_type `test`, id 0, "test" in the texts).
 */
export function buildTestNotification(publicUrl: string, now = new Date()): AlertNotification {
  const url = publicUrl.replace(/\/+$/, '');
  const at = now.toISOString();
  return {
    alertType: 'test',
    project: { id: 0, name: 'Test project', slug: 'test' },
    issue: {
      id: 0,
      project_id: 0,
      short_id: 'TEST-0',
      type: 'TestNotification',
      message: 'This is a test notification from error-tracker: the channel works.',
      culprit: 'error-tracker test',
      level: 'info',
      kind: 'error',
      monitor: null,
      state: 'open',
      event_count: 0,
      user_count: 0,
      first_seen: at,
      last_seen: at,
      resolved_at: null,
      last_regressed_at: null,
      regression_count: 0,
      first_release: null,
      last_release: null,
      resolved_in: null,
      mute_until: null,
      mute_until_count: null,
      mute_until_users: null,
      assignee: null,
      url,
    },
    url,
    triggeredAt: at,
  };
}
