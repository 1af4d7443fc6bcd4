import { useEffect, useState } from 'preact/hooks';
import { personName } from '../access';
import { AuditEntry, call, client, Project } from '../api';
import { Empty, ErrorMessage, Loading, PageHeader, RelTime, useAsync, useTitle } from '../components';
import { DataTable } from '../lists';
import { useMembers, useTeams } from '../people';
import { navigate, useLocation } from '../router';
import { capitalise, display, isRecord } from '../util';
import { SettingsNav } from './SettingsNav';

const PAGE_SIZE = 50;

/** The action families the API filters by, as the filter offers them. */
const FAMILIES: { value: string; label: string }[] = [
  { value: 'auth', label: 'Sign-ins and passwords' },
  { value: 'member', label: 'Members' },
  { value: 'invitation', label: 'Invitations' },
  { value: 'team', label: 'Teams' },
  { value: 'token', label: 'API tokens' },
  { value: 'project', label: 'Projects' },
  { value: 'rule', label: 'Alert rules' },
  { value: 'channel', label: 'Alert channels' },
];

const ACTIONS: Record<string, string> = {
  'auth.sign_in': 'Signed in',
  'auth.sign_in_failed': 'Failed to sign in',
  'auth.password_change': 'Changed their password',
  'auth.password_change_failed': 'Failed to change their password',
  'auth.sso_link': 'Linked single sign-on to an account',
  'member.create': 'Member created',
  'member.role_change': 'Changed a role',
  'member.deactivate': 'Deactivated an account',
  'member.reactivate': 'Reactivated an account',
  'invitation.create': 'Invited someone',
  'invitation.accept': 'Accepted an invitation',
  'invitation.revoke': 'Revoked an invitation',
  'team.create': 'Created a team',
  'team.rename': 'Renamed a team',
  'team.delete': 'Deleted a team',
  'team.member_add': 'Added a member to a team',
  'team.member_remove': 'Removed a member from a team',
  'team.project_add': 'Added a project to a team',
  'team.project_remove': 'Removed a project from a team',
  'token.create': 'Created an API token',
  'token.delete': 'Deleted an API token',
  'project.create': 'Created a project',
  'project.update': 'Changed a project',
  'project.delete': 'Deleted a project',
  'project.key_rotate': 'Rotated a client key',
  'project.data_protection_update': 'Changed data protection settings',
  'project.inbound_filters_update': 'Changed inbound filters',
  'project.quotas_update': 'Changed quotas',
  'project.user_erase': "Erased a person's data",
  'status_page.update': 'Changed a status page',
  'monitor.create': 'Created a cron monitor',
  'monitor.update': 'Changed a cron monitor',
  'monitor.delete': 'Deleted a cron monitor',
  'uptime_monitor.create': 'Created an uptime monitor',
  'uptime_monitor.update': 'Changed an uptime monitor',
  'uptime_monitor.delete': 'Deleted an uptime monitor',
  'rule.create': 'Created an alert rule',
  'rule.update': 'Changed an alert rule',
  'rule.delete': 'Deleted an alert rule',
  'channel.create': 'Created an alert channel',
  'channel.update': 'Changed an alert channel',
  'channel.delete': 'Deleted an alert channel',
};

/** An action in words: its label, else its name made readable (`team.member_add` → "Team member add"). */
export function actionLabel(action: string): string {
  return ACTIONS[action] ?? capitalise(action.replace(/[._]+/g, ' '));
}

/** `2026-03-01` typed in the date field: the start of that day where the browser is. */
function dayStart(day: string): string | undefined {
  const date = new Date(`${day}T00:00:00`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A group of details (an erasure's counts by kind) as `events: 2, event attachments: 1`. */
function inWords(record: Record<string, unknown>): string {
  return Object.entries(record)
    .map(([key, value]) => `${key.replace(/_/g, ' ')}: ${display(value)}`)
    .join(', ');
}

function Details({ details }: { details: AuditEntry['details'] }) {
  if (!isRecord(details)) return null;
  const entries = Object.entries(details).filter(
    ([, value]) => value !== null && value !== undefined && value !== '',
  );
  if (entries.length === 0) return null;
  return (
    <ul class="audit-details">
      {entries.map(([key, value]) => (
        <li key={key}>
          <span class="muted">{key.replace(/_/g, ' ')}:</span>{' '}
          <span class="break-anywhere">
            {Array.isArray(value) ? value.map(display).join(', ') || '—' : isRecord(value) ? inWords(value) : display(value)}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function AuditLogPage() {
  useTitle('Audit log');
  const location = useLocation();
  const filters = {
    action: location.query.get('action') ?? '',
    actor: location.query.get('actor_id') ?? '',
    since: location.query.get('since') ?? '',
  };
  /** The cursors of the pages before this one (the first page has none): Newer goes back along them. */
  const [cursors, setCursors] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const filterKey = `${filters.action} ${filters.actor} ${filters.since}`;
  useEffect(() => {
    setCursors([]);
    setCursor(null);
  }, [filterKey]);

  const entries = useAsync(
    () =>
      call(
        client.GET('/api/audit-log', {
          params: {
            query: {
              action: filters.action,
              actor_id: filters.actor ? Number(filters.actor) : undefined,
              since: filters.since ? dayStart(filters.since) : undefined,
              limit: PAGE_SIZE,
              cursor: cursor ?? undefined,
            },
          },
        }),
      ),
    [filterKey, cursor],
  );
  // For the member filter and to name what entries are about; the log reads without them.
  const members = useMembers();
  const teams = useTeams();
  const projects = useAsync(
    () =>
      call(client.GET('/api/projects'))
        .then((r) => r.data)
        .catch(() => [] as Project[]),
    [],
  );

  const setFilter = (key: 'action' | 'actor_id' | 'since', value: string) => {
    const query = new URLSearchParams(location.query);
    if (value) query.set(key, value);
    else query.delete(key);
    const text = query.toString();
    navigate(`/settings/audit-log${text ? `?${text}` : ''}`, { replace: true });
  };

  const target = (entry: AuditEntry): string => {
    if (!entry.target_type) return '';
    const id = Number(entry.target_id);
    if (entry.target_type === 'member') {
      const member = members.data?.find((candidate) => candidate.id === id);
      if (member) return personName(member);
    }
    if (entry.target_type === 'team') {
      const team = teams.data?.find((candidate) => candidate.id === id);
      if (team) return `team ${team.name}`;
    }
    if (entry.target_type === 'project') {
      const project = projects.data?.find((candidate) => candidate.id === id);
      if (project) return `project ${project.name}`;
    }
    return entry.target_id ? `${entry.target_type} #${entry.target_id}` : entry.target_type;
  };

  const rows = entries.data?.data ?? [];
  const filtered = Boolean(filters.action || filters.actor || filters.since);
  const memberList = [...(members.data ?? [])].sort((a, b) => personName(a).localeCompare(personName(b)));
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav active="audit-log" />
      <p class="lead">
        What was done to accounts, teams, tokens, projects, rules and channels, newest first.
      </p>
      <div class="card filters audit-filters" role="group" aria-label="Filter the audit log">
        <div class="filter-row">
          <div class="picker">
            <label for="audit-action">Action</label>
            <select
              id="audit-action"
              name="action"
              value={filters.action}
              onChange={(event) => setFilter('action', event.currentTarget.value)}
            >
              <option value="">All actions</option>
              {FAMILIES.map((family) => (
                <option key={family.value} value={family.value}>
                  {family.label}
                </option>
              ))}
            </select>
          </div>
          <div class="picker">
            <label for="audit-actor">Member</label>
            <select
              id="audit-actor"
              name="actor"
              value={filters.actor}
              onChange={(event) => setFilter('actor_id', event.currentTarget.value)}
            >
              <option value="">Anyone</option>
              {memberList.map((member) => (
                <option key={member.id} value={String(member.id)}>
                  {personName(member)}
                </option>
              ))}
              {filters.actor && !memberList.some((member) => String(member.id) === filters.actor) && (
                <option value={filters.actor}>Account #{filters.actor}</option>
              )}
            </select>
          </div>
          <div class="picker">
            <label for="audit-since">Since</label>
            <input
              id="audit-since"
              type="date"
              name="since"
              value={filters.since}
              onChange={(event) => setFilter('since', event.currentTarget.value)}
            />
          </div>
          {filtered && (
            <button
              type="button"
              class="btn btn-small btn-link"
              onClick={() => navigate('/settings/audit-log', { replace: true })}
            >
              Clear filters
            </button>
          )}
        </div>
      </div>
      <ErrorMessage error={entries.error} onRetry={entries.reload} />
      {entries.loading && !entries.data && <Loading label="Loading the audit log…" />}
      {entries.data && rows.length === 0 && (
        <Empty title={filtered ? 'Nothing matches these filters.' : 'Nothing recorded yet.'} />
      )}
      {rows.length > 0 && (
        <DataTable class="audit-table" wrapClass={entries.loading ? 'is-loading' : undefined} columns={[{ label: 'When', class: 'col-time' }, 'Who', 'Action', 'About', 'Details', 'IP address']}>
          {rows.map((entry) => (
            <tr key={entry.id}>
              <td data-label="When" class="col-time">
                <RelTime value={entry.created_at} />
              </td>
              <td data-label="Who" class="break-anywhere">
                {entry.actor || <span class="muted">the tracker</span>}
              </td>
              <td data-label="Action">
                <span class="audit-action" title={entry.action}>
                  {actionLabel(entry.action)}
                </span>
              </td>
              <td data-label="About" class="break-anywhere">
                {target(entry) || <span class="muted">—</span>}
              </td>
              <td data-label="Details" class="audit-details-cell">
                <Details details={entry.details} />
              </td>
              <td data-label="IP address" class="mono small">
                {entry.ip ?? <span class="muted">—</span>}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {entries.data && (cursors.length > 0 || entries.data.next_cursor) && (
        <nav class="pager" aria-label="Audit log pages">
          <button
            type="button"
            class="btn btn-small"
            disabled={cursors.length === 0 || entries.loading}
            onClick={() => {
              const previous = cursors.slice(0, -1);
              setCursors(previous);
              setCursor(cursors[cursors.length - 1] || null);
            }}
          >
            ← Newer
          </button>
          <span class="muted small">Page {cursors.length + 1}</span>
          <button
            type="button"
            class="btn btn-small"
            disabled={!entries.data.next_cursor || entries.loading}
            onClick={() => {
              setCursors([...cursors, cursor ?? '']);
              setCursor(entries.data?.next_cursor ?? null);
            }}
          >
            Older →
          </button>
        </nav>
      )}
    </>
  );
}
