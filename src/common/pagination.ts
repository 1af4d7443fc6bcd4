import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { InvalidInputError } from './domain-errors';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Far above any cursor this API issues; a longer one is refused before it is decoded. */
export const MAX_CURSOR_LENGTH = 8192;

/**
 * Keyset pagination for lists sorted newest first: the cursor is the sort key of the last row
 * returned, so pages stay stable while new rows arrive.
 */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Position in a list sorted by (at, id) descending. */
export interface SortKey<Id extends number | string = number | string> {
  at: Date;
  id: Id;
}

/** How the id of a list's rows is spelled: `int` for serial keys, `uuid` for event ids. */
export type KeyIdKind = 'int' | 'uuid';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Exactly what `Date.prototype.toISOString` writes for years 0001–9999. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const INT_ID = /^[1-9]\d{0,9}$/;
const MAX_INT_ID = 2_147_483_647;
const UUID_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function invalidCursor(): InvalidInputError {
  return new InvalidInputError('cursor is not valid');
}

/** A cursor is its fields joined with `|`, base64url-encoded: opaque to clients, cheap to check. */
export function encodeCursor(fields: readonly string[]): string {
  return Buffer.from(fields.join('|')).toString('base64url');
}

/**
 * The fields of a cursor this API could have issued. Everything about it is checked before it
 * reaches SQL: a cursor comes from the client, and a malformed one is a 400, never a database error.
 */
export function cursorFields(raw: string): string[] {
  if (raw.length === 0 || raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) throw invalidCursor();
  const bytes = Buffer.from(raw, 'base64url');
  // Node skips what it cannot decode; only the canonical spelling of the bytes is accepted.
  if (bytes.toString('base64url') !== raw) throw invalidCursor();
  const text = bytes.toString('latin1');
  if (!PRINTABLE_ASCII.test(text)) throw invalidCursor();
  return text.split('|');
}

export function keyFields(key: SortKey): [string, string] {
  return [key.at.toISOString(), String(key.id)];
}

/** Both fields as `keyFields` wrote them, within the ranges PostgreSQL columns can hold. */
export function parseKey(at: string, id: string, idKind: 'int'): SortKey<number>;
export function parseKey(at: string, id: string, idKind: 'uuid'): SortKey<string>;
export function parseKey(at: string, id: string, idKind: KeyIdKind): SortKey {
  const date = new Date(at);
  if (
    !ISO_UTC.test(at) ||
    at.startsWith('0000') ||
    Number.isNaN(date.getTime()) ||
    date.toISOString() !== at
  ) {
    throw invalidCursor();
  }
  if (idKind === 'int') {
    const value = INT_ID.test(id) ? Number(id) : NaN;
    if (!(value <= MAX_INT_ID)) throw invalidCursor();
    return { at: date, id: value };
  }
  if (!UUID_ID.test(id)) throw invalidCursor();
  return { at: date, id };
}

/** The cursor of a list with nothing but its sort key. */
export function encodeKeyCursor(key: SortKey): string {
  return encodeCursor(keyFields(key));
}

export function decodeKeyCursor(raw: string | undefined, idKind: 'int'): SortKey<number> | undefined;
export function decodeKeyCursor(raw: string | undefined, idKind: 'uuid'): SortKey<string> | undefined;
export function decodeKeyCursor(raw: string | undefined, idKind: KeyIdKind): SortKey | undefined {
  if (raw === undefined) return undefined;
  const fields = cursorFields(raw);
  if (fields.length !== 2) throw invalidCursor();
  return idKind === 'int' ? parseKey(fields[0], fields[1], 'int') : parseKey(fields[0], fields[1], 'uuid');
}

/** Fetch one row more than asked to learn whether another page exists. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  cursorAfter: (row: R) => string,
  view: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(view),
    next_cursor: last && hasMore ? cursorAfter(last) : null,
  };
}
