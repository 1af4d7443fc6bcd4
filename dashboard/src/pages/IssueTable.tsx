import type { Issue } from '../api';
import { Badge, RelTime, Sparkline } from '../components';
import { plural } from '../util';
import { AssigneeTag } from './IssueAssignee';
import { rememberReturnPoint } from './IssueListPlace';
import { issueTitle, LevelMarker, StateBadge } from './IssueMarkers';

/** The rows of the issue list; with checkboxes for those who may triage. */
export function IssueTable({
  rows,
  triage,
  selected,
  allSelected,
  loading,
  onToggle,
  onSelectPage,
  feedbackCounts,
}: {
  rows: Issue[];
  /** Unresolved feedback per issue shown, once read. */
  feedbackCounts?: Map<number, number>;
  triage: boolean;
  selected: Set<number>;
  allSelected: boolean;
  /** A newer page is on its way: the rows shown are dimmed. */
  loading: boolean;
  onToggle: (id: number) => void;
  onSelectPage: (on: boolean) => void;
}) {
  return (
    <div class={loading ? 'table-wrap is-loading' : 'table-wrap'}>
      <table class={triage ? 'issues-table' : 'issues-table no-select'}>
        <thead>
          <tr>
            {triage && (
              <th class="col-check">
                <input
                  type="checkbox"
                  aria-label="Select all issues on this page"
                  checked={allSelected}
                  onChange={() => onSelectPage(!allSelected)}
                />
              </th>
            )}
            <th>Issue</th>
            <th class="col-trend">24 hours</th>
            <th class="col-num">Events</th>
            <th class="col-users" title="Distinct users affected">
              Users
            </th>
            <th class="col-time">First seen</th>
            <th class="col-time">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((issue) => (
            <IssueRow
              key={issue.id}
              issue={issue}
              triage={triage}
              selected={selected.has(issue.id)}
              onToggle={() => onToggle(issue.id)}
              feedback={feedbackCounts?.get(issue.id) ?? 0}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function IssueRow({
  issue,
  triage,
  selected,
  onToggle,
  feedback,
}: {
  issue: Issue;
  triage: boolean;
  selected: boolean;
  onToggle: () => void;
  feedback: number;
}) {
  return (
    <tr class={selected ? 'selected' : undefined}>
      {triage && (
        <td class="col-check">
          <input
            type="checkbox"
            aria-label={`Select ${issue.short_id}`}
            checked={selected}
            onChange={onToggle}
          />
        </td>
      )}
      <td class="col-issue">
        <div class="issue-cell">
          <LevelMarker level={issue.level} />
          <div class="issue-main">
            <a
              href={`/issues/${issue.id}`}
              class="issue-link clamp-2"
              title={issueTitle(issue)}
              onClick={(event) => rememberReturnPoint(issue.id, event.currentTarget)}
            >
              <span class="short-id">{issue.short_id}</span>
              <span class="issue-title">
                <strong>{issue.type || 'Message'}</strong>
                {issue.message ? (
                  <>
                    : <bdi>{issue.message}</bdi>
                  </>
                ) : (
                  ''
                )}
              </span>
            </a>
            <div class="issue-sub">
              {issue.state !== 'open' && <StateBadge state={issue.state} />}
              {issue.kind && issue.kind !== 'error' && (
                <Badge kind="monitor">{issue.kind === 'cron' ? 'Cron' : 'Uptime'}</Badge>
              )}
              {(issue.regression_count ?? 0) > 0 && issue.state === 'open' && (
                <Badge kind="regressed">regressed</Badge>
              )}
              {feedback > 0 && (
                <a
                  class="badge badge-neutral feedback-count"
                  href={`/issues/${issue.id}`}
                  title="Unresolved user feedback on this issue"
                >
                  {feedback} feedback
                </a>
              )}
              {issue.assignee && <AssigneeTag assignee={issue.assignee} />}
              {issue.culprit && <span class="culprit mono">{issue.culprit}</span>}
            </div>
          </div>
        </div>
      </td>
      <td class="col-trend" data-label="24 hours">
        {issue.stats_24h && (
          <Sparkline
            counts={issue.stats_24h}
            label={`${plural(
              issue.stats_24h.reduce((sum, count) => sum + count, 0),
              'event',
            )} in the last 24 hours`}
          />
        )}
      </td>
      <td class="col-num" data-label="Events">
        {issue.event_count.toLocaleString()}
      </td>
      <td class="col-users" data-label="Users">
        {typeof issue.user_count === 'number' ? issue.user_count.toLocaleString() : '—'}
      </td>
      <td class="col-time" data-label="First seen">
        <RelTime value={issue.first_seen} />
      </td>
      <td class="col-time" data-label="Last seen">
        <RelTime value={issue.last_seen} />
      </td>
    </tr>
  );
}
