import {
  cursorFields,
  encodeCursor,
  invalidCursor,
  keyFields,
  parseKey,
  SortKey,
} from '../common/pagination';

/**
 * Where a client is in an issue list (last_seen desc, id desc) and what it has already been shown.
 *
 * Issues move up the list when they receive events, so the sort key alone would skip an issue that
 * jumps from below the cursor to above it between two pages. The cursor therefore also carries the
 * PostgreSQL snapshot (`pg_current_snapshot()`) the page was read under: the next page returns, on
 * top of the rows below `key`, the rows above it whose position was changed by a transaction that
 * snapshot did not see (see the `position_xid` migration).
 *
 * `catchUp` is set when a page filled up with such moved rows before reaching `key`: the moved rows
 * from `key` up to `catchUp.key` are still owed (changed after `snapshot`), and above `catchUp.key`
 * only those changed after `catchUp.snapshot`, the later read.
 */
export interface IssueCursor {
  key: SortKey<number>;
  /** Absent in cursors issued before snapshots were added: those page by the key alone. */
  snapshot?: string;
  catchUp?: { key: SortKey<number>; snapshot: string };
}

const SNAPSHOT = /^(\d{1,20}):(\d{1,20}):(\d{1,20}(?:,\d{1,20})*)?$/;
const MAX_XID8 = 2n ** 64n - 1n;

/** A snapshot as PostgreSQL prints it, `xmin:xmax:xip,…`, that its `pg_snapshot` input accepts. */
function parseSnapshot(text: string): string {
  const match = SNAPSHOT.exec(text);
  if (!match) throw invalidCursor();
  const xmin = BigInt(match[1]);
  const xmax = BigInt(match[2]);
  if (xmin < 1n || xmax < xmin || xmax > MAX_XID8) throw invalidCursor();
  let previous = xmin;
  for (const xip of match[3] ? match[3].split(',').map(BigInt) : []) {
    if (xip < previous || xip >= xmax) throw invalidCursor();
    previous = xip;
  }
  return text;
}

/** Sort order of the list, ascending: positive when `a` comes before `b` in the newest-first list. */
export function compareKeys(a: SortKey<number>, b: SortKey<number>): number {
  return a.at.getTime() - b.at.getTime() || a.id - b.id;
}

export function encodeIssueCursor(cursor: Required<Pick<IssueCursor, 'snapshot'>> & IssueCursor): string {
  const fields = [...keyFields(cursor.key), cursor.snapshot];
  if (cursor.catchUp) fields.push(...keyFields(cursor.catchUp.key), cursor.catchUp.snapshot);
  return encodeCursor(fields);
}

export function decodeIssueCursor(raw: string | undefined): IssueCursor | undefined {
  if (raw === undefined) return undefined;
  const fields = cursorFields(raw);
  if (fields.length !== 2 && fields.length !== 3 && fields.length !== 6) throw invalidCursor();
  const cursor: IssueCursor = { key: parseKey(fields[0], fields[1], 'int') };
  if (fields.length >= 3) cursor.snapshot = parseSnapshot(fields[2]);
  if (fields.length === 6) {
    cursor.catchUp = { key: parseKey(fields[3], fields[4], 'int'), snapshot: parseSnapshot(fields[5]) };
    if (compareKeys(cursor.catchUp.key, cursor.key) <= 0) throw invalidCursor();
  }
  return cursor;
}
