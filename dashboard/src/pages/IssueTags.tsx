import { useState } from 'preact/hooks';
import { call, client, TagSummary, TagValue } from '../api';
import { ErrorMessage, Loading, useAsync } from '../components';
import { useCursorPages } from '../lists';
import { plural } from '../util';

/** Values per key in the summary (the rest add up to "Other"). */
const SUMMARY_VALUES = 5;
/** Keys shown before "Show N more tags". */
const SUMMARY_KEYS = 8;
/** Values per request of "Show all values". */
export const VALUES_PAGE = 25;

/** A value's share of its key's events, as Sentry writes it: whole percents, "<1%" for a trace. */
export function percentOf(count: number, total: number): string {
  if (total <= 0 || count <= 0) return '0%';
  const share = (count / total) * 100;
  if (share < 1) return '<1%';
  if (share > 99 && count < total) return '>99%';
  return `${Math.round(share)}%`;
}

function ValueRow({ value, count, total, other = false, showCount = false }: TagValue & { total: number; other?: boolean; showCount?: boolean }) {
  const share = total > 0 ? Math.min(100, (count / total) * 100) : 0;
  const pct = percentOf(count, total);
  return (
    <li class={other ? 'tag-row tag-row-other' : 'tag-row'} title={`${value}: ${plural(count, 'event')} of ${total.toLocaleString()} (${pct})`}>
      <span class="tag-row-fill" aria-hidden="true" style={{ width: `${share.toFixed(2)}%` }} />
      <span class="tag-row-value">{value}</span>
      {showCount ? (
        <span class="tag-row-count">{count.toLocaleString()}</span>
      ) : (
        <span class="sr-only">{`${plural(count, 'event')}, `}</span>
      )}
      <span class="tag-row-pct">{pct}</span>
    </li>
  );
}

function TagKey({ issueId, tag }: { issueId: number; tag: TagSummary }) {
  const [open, setOpen] = useState(false);
  const pages = useCursorPages((cursor) =>
    call(client.GET('/api/issues/{id}/tags/{key}', { params: { path: { id: issueId, key: tag.key }, query: { limit: VALUES_PAGE, cursor } } })),
  );
  const { items: values, next: cursor, loading, error, load } = pages;

  const expand = () => {
    setOpen(true);
    pages.clear();
    void load(null);
  };

  const top = tag.top.slice(0, SUMMARY_VALUES);
  const other = tag.total - top.reduce((sum, value) => sum + value.count, 0);
  const id = `tag-${tag.key.replace(/[^A-Za-z0-9_-]/g, '_')}`;

  return (
    <section class={open ? 'tag-key open' : 'tag-key'} aria-labelledby={`${id}-name`}>
      <div class="tag-key-head">
        <h3 id={`${id}-name`} class="tag-key-name mono" title={tag.key}>
          {tag.key}
        </h3>
        <span class="muted small" title={`${plural(tag.total, 'event')} carry this tag`}>
          {plural(tag.distinct, 'distinct value')}
        </span>
      </div>
      {!open && (
        <ul class="tag-rows" aria-label={`Top values of ${tag.key}`}>
          {top.map((value) => (
            <ValueRow key={value.value} value={value.value} count={value.count} total={tag.total} />
          ))}
          {other > 0 && <ValueRow key={'\u0000other'} value="Other" count={other} total={tag.total} other />}
        </ul>
      )}
      {open && (
        <div id={`${id}-all`}>
          {values.length > 0 && (
            <p class="muted small tag-all-note">
              {`${values.length.toLocaleString()} of ${plural(tag.distinct, 'value')}, most frequent first · ${plural(tag.total, 'event')} with this tag`}
            </p>
          )}
          <ul class="tag-rows" aria-label={`All values of ${tag.key}`}>
            {values.map((value) => (
              <ValueRow key={value.value} value={value.value} count={value.count} total={tag.total} showCount />
            ))}
          </ul>
          <ErrorMessage error={error} onRetry={() => void load(values.length ? cursor : null)} />
          {loading && values.length === 0 && <Loading label="Loading values…" />}
        </div>
      )}
      <div class="tag-key-actions">
        {open && cursor && (
          <button type="button" class="btn btn-small" disabled={loading} onClick={() => void load(cursor)}>
            {loading ? 'Loading…' : 'Load more values'}
          </button>
        )}
        {(open || tag.distinct > top.length) && (
          <button
            type="button"
            class="btn btn-small btn-link"
            aria-expanded={open}
            aria-controls={open ? `${id}-all` : undefined}
            onClick={() => (open ? setOpen(false) : expand())}
          >
            {open ? 'Show top values only' : `Show all ${tag.distinct.toLocaleString()} values`}
          </button>
        )}
      </div>
    </section>
  );
}

/** The tag distribution of an issue's events (from the tag rollups), like Sentry's tag summary. */
export function IssueTags({ issueId }: { issueId: number }) {
  const tags = useAsync(
    () => call(client.GET('/api/issues/{id}/tags', { params: { path: { id: issueId } } })).then((r) => r.data),
    [issueId],
  );
  const [allKeys, setAllKeys] = useState(false);
  const list = tags.data ?? [];
  const shown = allKeys ? list : list.slice(0, SUMMARY_KEYS);

  return (
    <section class="card tags-panel" aria-labelledby="tags-title">
      <div class="tags-head">
        <h2 id="tags-title">Tags</h2>
        {list.length > 0 && <span class="muted small">Share of each key's events, most frequent values first</span>}
      </div>
      <ErrorMessage error={tags.error} onRetry={tags.reload} />
      {tags.loading && !tags.data && <Loading label="Loading tags…" />}
      {tags.data && list.length === 0 && <p class="muted">No tags recorded for this issue's events.</p>}
      {shown.length > 0 && (
        <div class="tag-grid">
          {shown.map((tag) => (
            <TagKey key={`${issueId}:${tag.key}`} issueId={issueId} tag={tag} />
          ))}
        </div>
      )}
      {list.length > SUMMARY_KEYS && (
        <button type="button" class="btn btn-small btn-link" aria-expanded={allKeys} onClick={() => setAllKeys(!allKeys)}>
          {allKeys ? 'Show fewer tags' : `Show ${list.length - SUMMARY_KEYS} more ${list.length - SUMMARY_KEYS === 1 ? 'tag' : 'tags'}`}
        </button>
      )}
    </section>
  );
}
