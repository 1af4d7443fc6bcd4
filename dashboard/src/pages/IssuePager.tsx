import { useState } from 'preact/hooks';
import type { ListParams } from './IssueFilters';

export const PAGE_SIZE = 50;
/** The API jumps to a page by offset up to here (its exact total's bound); further pages go by cursor. */
export const MAX_OFFSET = 10_000;

/** Whether the list's page is reached by cursor rather than by offset. */
export function byCursor(params: Pick<ListParams, 'page' | 'cursor'>): boolean {
  return params.cursor !== '' || (params.page - 1) * PAGE_SIZE > MAX_OFFSET;
}

/** First, previous, a page number to jump to, next and last page of the issue list. */
export function IssuePager({
  params,
  total,
  estimated,
  nextCursor,
  go,
}: {
  params: ListParams;
  total: number;
  /** The total is an estimate: there is no last page to jump to. */
  estimated: boolean;
  nextCursor: string | null | undefined;
  go: (change: Partial<ListParams>) => void;
}) {
  const [jump, setJump] = useState('');
  const pageCount = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const lastJumpable = Math.min(pageCount, Math.floor(MAX_OFFSET / PAGE_SIZE) + 1);
  return (
    <nav class="pager" aria-label="Pagination">
      <button type="button" class="btn btn-small" disabled={params.page === 1} onClick={() => go({ page: 1 })}>
        « First
      </button>
      <button
        type="button"
        class="btn btn-small"
        disabled={params.page === 1}
        onClick={() => ((params.page - 2) * PAGE_SIZE > MAX_OFFSET ? window.history.back() : go({ page: params.page - 1 }))}
      >
        ← Previous
      </button>
      <form
        class="page-jump"
        onSubmit={(event) => {
          event.preventDefault();
          const target = Math.floor(Number(jump));
          if (target >= 1) go({ page: Math.min(target, lastJumpable) });
        }}
      >
        <label>
          Page{' '}
          <input
            name="page"
            type="number"
            min={1}
            max={lastJumpable}
            inputMode="numeric"
            value={jump || String(params.page)}
            onInput={(event) => setJump(event.currentTarget.value)}
            aria-label={`Page number, 1 to ${lastJumpable}`}
          />
        </label>
        <span class="muted small">
          of {estimated ? 'about ' : ''}
          {pageCount.toLocaleString()}
        </span>
        <button type="submit" class="btn btn-small">
          Go
        </button>
      </form>
      <button
        type="button"
        class="btn btn-small"
        disabled={!nextCursor}
        onClick={() => (params.page * PAGE_SIZE > MAX_OFFSET ? go({ page: params.page + 1, cursor: nextCursor ?? '' }) : go({ page: params.page + 1 }))}
      >
        Next →
      </button>
      {!estimated && (
        <button type="button" class="btn btn-small" disabled={params.page >= lastJumpable} onClick={() => go({ page: lastJumpable })}>
          Last »
        </button>
      )}
    </nav>
  );
}
