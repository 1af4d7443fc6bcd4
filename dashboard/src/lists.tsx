import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { errorMessage } from './api';

/** A page of a list the API hands out by cursor. */
export interface CursorPage<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * A list read page by page ("Show more"): `load(null)` reads it from the start again, `load(next)`
 * appends the following page. `fetchPage` may change between renders (a filter it reads); the
 * latest is used.
 */
export function useCursorPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
  /** For a list read as soon as it is shown: it says so before its first page is asked for. */
  initiallyLoading = false,
) {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(initiallyLoading);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(fetchPage);
  latest.current = fetchPage;
  const load = async (cursor: string | null) => {
    setLoading(true);
    setError(null);
    try {
      const page = await latest.current(cursor ?? undefined);
      setItems((previous) => (cursor ? [...previous, ...page.data] : page.data));
      setNext(page.next_cursor);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setLoading(false);
    }
  };
  /** Forgets what was read, before reading something else from the start. */
  const clear = () => {
    setItems([]);
    setNext(null);
  };
  return { items, setItems, next, loading, error, load, clear };
}

/** A column of a DataTable: its heading, or one that only screen readers read (a column of buttons). */
export type Column = string | { label: string; class?: string; title?: string; hidden?: boolean };

/**
 * A table of rows that becomes a stack of cards on narrow screens (each cell names its column with
 * `data-label`). Columns that are false are left out, for those shown to some roles only.
 */
export function DataTable({
  columns,
  class: className,
  wrapClass,
  children,
}: {
  columns: (Column | false | null | undefined)[];
  class?: string;
  /** Classes of the scrolling wrapper besides `table-wrap` (`flat`, `is-loading`). */
  wrapClass?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={wrapClass ? `table-wrap ${wrapClass}` : 'table-wrap'}>
      <table class={className ? `data-table ${className}` : 'data-table'}>
        <thead>
          <tr>
            {columns.map((column, index) => {
              if (!column) return null;
              const { label, class: columnClass, title, hidden } = typeof column === 'string' ? { label: column } : column;
              return (
                <th key={index} class={columnClass} title={title}>
                  {hidden ? <span class="sr-only">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
