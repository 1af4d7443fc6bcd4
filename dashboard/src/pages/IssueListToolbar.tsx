import { useState } from 'preact/hooks';

const AUTO_REFRESH_KEY = 'issues-auto-refresh';

/** Whether the list reads itself again every half minute: on unless turned off, remembered in this browser. */
export function useAutoRefreshSetting(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => {
    try {
      return window.localStorage.getItem(AUTO_REFRESH_KEY) !== 'off';
    } catch {
      return true;
    }
  });
  const choose = (next: boolean) => {
    setOn(next);
    try {
      window.localStorage.setItem(AUTO_REFRESH_KEY, next ? 'on' : 'off');
    } catch {
      // storage blocked: the choice lasts until the page is left
    }
  };
  return [on, choose];
}

/** Above the rows: how many issues match, the keys that move between them, and refreshing. */
export function IssueListToolbar({
  total,
  environment,
  autoRefresh,
  onAutoRefresh,
  onRefresh,
  refreshing,
}: {
  /** Unknown while the list loads, or when the search was refused. */
  total: { count: number; estimated: boolean } | null;
  environment: string;
  autoRefresh: boolean;
  onAutoRefresh: (on: boolean) => void;
  onRefresh: () => void;
  refreshing: boolean;
}) {
  return (
    <div class="toolbar" id="issue-list" tabIndex={-1}>
      <p class="list-total" aria-live="polite">
        {total ? (
          <>
            <strong>
              {total.estimated ? 'About ' : ''}
              {total.count.toLocaleString()}
            </strong>{' '}
            {total.count === 1 ? 'issue' : 'issues'}
            {environment ? ` in ${environment}` : ''}
          </>
        ) : (
          ' '
        )}
      </p>
      <div class="toolbar-actions">
        <span class="keys-hint muted small">
          <kbd>j</kbd> / <kbd>k</kbd> next / previous issue
        </span>
        <label class="check small">
          <input type="checkbox" name="auto-refresh" checked={autoRefresh} onChange={(event) => onAutoRefresh(event.currentTarget.checked)} />
          Auto-refresh
        </label>
        <button type="button" class="btn btn-small" onClick={onRefresh} disabled={refreshing}>
          Refresh
        </button>
      </div>
    </div>
  );
}
