import { InvalidInputError } from '../common/domain-errors';
import { cursorFields, encodeCursor, invalidCursor, parseKey } from '../common/pagination';
import { ISSUE_SORTS, IssueSort, SORT_COLUMNS } from './search/issue-search';

/** Position in an issue list: the sort column's value (a time or a count) and the id, both descending. */
export interface IssueKey {
  value: Date | number;
  id: number;
}

/**
 * Where a client is in an issue list and what it has already been shown.
 *
 * Issues move up the list when they receive events, so the sort key alone would skip an issue that
 * jumps from below the cursor to above it between two pages. The cursor therefore also carries the
 * PostgreSQL snapshot (`pg_current_snapshot()`) the page was read under: the next page returns, on
 * top of the rows below `key`, the rows above it whose position was changed by a transaction that
 * snapshot did not see (see the `position_xid` migrations).
 *
 * `catchUp` is set when a page filled up with such moved rows before reaching `key`: the moved rows
 * from `key` up to `catchUp.key` are still owed (changed after `snapshot`), and above `catchUp.key`
 * only those changed after `catchUp.snapshot`, the later read.
 *
 * A cursor belongs to the sort it was issued for. Cursors of the default sort (`last_seen`) keep
 * the fields they had before other sorts existed; the others start with the sort's name.
 */
export interface IssueCursor {
  sort: IssueSort;
  key: IssueKey;
  /** Absent in cursors issued before snapshots were added: those page by the key alone. */
  snapshot?: string;
  catchUp?: { key: IssueKey; snapshot: string };
}

const SNAPSHOT = /^(\d{1,20}):(\d{1,20}):(\d{1,20}(?:,\d{1,20})*)?$/;
const MAX_XID8 = 2n ** 64n - 1n;
const COUNT = /^(0|[1-9]\d{0,9})$/;
const MAX_INT = 2_147_483_647;

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

function valueOf(key: IssueKey): number {
  return key.value instanceof Date ? key.value.getTime() : key.value;
}

/** Sort order of the list, ascending: positive when `a` comes before `b` in the list. */
export function compareKeys(a: IssueKey, b: IssueKey): number {
  return valueOf(a) - valueOf(b) || a.id - b.id;
}

function keyFields(key: IssueKey): [string, string] {
  return [key.value instanceof Date ? key.value.toISOString() : String(key.value), String(key.id)];
}

function parseIssueKey(sort: IssueSort, value: string, id: string): IssueKey {
  if (SORT_COLUMNS[sort].type === 'timestamptz') {
    const key = parseKey(value, id, 'int');
    return { value: key.at, id: key.id };
  }
  if (!COUNT.test(value) || Number(value) > MAX_INT) throw invalidCursor();
  return { value: Number(value), id: parseKey(new Date(0).toISOString(), id, 'int').id };
}

export function encodeIssueCursor(cursor: Required<Pick<IssueCursor, 'snapshot'>> & IssueCursor): string {
  const fields = [...keyFields(cursor.key), cursor.snapshot];
  if (cursor.catchUp) fields.push(...keyFields(cursor.catchUp.key), cursor.catchUp.snapshot);
  return encodeCursor(cursor.sort === 'last_seen' ? fields : [cursor.sort, ...fields]);
}

/** The cursor, checked to belong to `sort`; a malformed one, or one of another sort, is a 400. */
export function decodeIssueCursor(raw: string | undefined, sort: IssueSort): IssueCursor | undefined {
  if (raw === undefined) return undefined;
  let fields = cursorFields(raw);
  let cursorSort: IssueSort = 'last_seen';
  if ((ISSUE_SORTS as readonly string[]).includes(fields[0])) {
    cursorSort = fields[0] as IssueSort;
    fields = fields.slice(1);
    if (cursorSort === 'last_seen') throw invalidCursor();
  }
  if (cursorSort !== sort)
    throw new InvalidInputError(
      `cursor belongs to sort=${cursorSort}; ask for that sort, or start without a cursor`,
    );
  if (fields.length !== 2 && fields.length !== 3 && fields.length !== 6) throw invalidCursor();
  const cursor: IssueCursor = { sort, key: parseIssueKey(sort, fields[0], fields[1]) };
  if (fields.length >= 3) cursor.snapshot = parseSnapshot(fields[2]);
  if (fields.length === 6) {
    cursor.catchUp = { key: parseIssueKey(sort, fields[3], fields[4]), snapshot: parseSnapshot(fields[5]) };
    if (compareKeys(cursor.catchUp.key, cursor.key) <= 0) throw invalidCursor();
  }
  return cursor;
}
