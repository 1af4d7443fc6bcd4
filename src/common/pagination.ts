import { BadRequestException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

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

export interface Cursor {
  at: Date;
  id: string;
}

export function encodeCursor(at: Date, id: number | string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  const [iso, id] = Buffer.from(raw, 'base64url').toString().split('|');
  const at = new Date(iso ?? '');
  if (!id || Number.isNaN(at.getTime()) || !/^[0-9a-f-]{1,36}$/.test(id)) {
    throw new BadRequestException('cursor is not valid');
  }
  return { at, id };
}

/** Fetch one row more than asked to learn whether another page exists. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  sortKey: (row: R) => { at: Date; id: number | string },
  view: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const key = last && hasMore ? sortKey(last) : undefined;
  return {
    data: pageRows.map(view),
    next_cursor: key ? encodeCursor(key.at, key.id) : null,
  };
}
