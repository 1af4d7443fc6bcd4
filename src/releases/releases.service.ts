import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  PageQueryDto,
  parseKey,
  toPage,
} from '../common/pagination';
import { ReleaseRow, ReleasesRepository } from './releases.repository';

export interface ReleaseView {
  version: string;
  first_event: string | null;
  last_event: string | null;
  event_count: number;
  new_issues: number;
  created_at: string;
}

const NO_EVENT = 'none';

/** A project's releases, the most recently seen first. */
@Injectable()
export class ReleasesService {
  constructor(private readonly releases: ReleasesRepository) {}

  async list(projectId: number, query: PageQueryDto): Promise<Page<ReleaseView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.releases.list(projectId, limit + 1, decodeReleaseCursor(query.cursor));
    return toPage(
      rows,
      limit,
      (last) => encodeCursor([last.last_event?.toISOString() ?? NO_EVENT, last.version]),
      toReleaseView,
    );
  }

  async get(projectId: number, version: string): Promise<ReleaseView> {
    const row = await this.releases.get(projectId, version);
    if (!row) throw new NotFoundError('release not found');
    return toReleaseView(row);
  }
}

function decodeReleaseCursor(
  raw: string | undefined,
): { lastEvent: Date | null; version: string } | undefined {
  if (raw === undefined) return undefined;
  const fields = cursorFields(raw);
  // A version may contain '|': everything after the first field is the version.
  if (fields.length < 2) throw invalidCursor();
  const version = fields.slice(1).join('|');
  if (version.length === 0 || version.length > 200) throw invalidCursor();
  if (fields[0] === NO_EVENT) return { lastEvent: null, version };
  return { lastEvent: parseKey(fields[0], '1', 'int').at, version };
}

function toReleaseView(row: ReleaseRow): ReleaseView {
  return {
    version: row.version,
    first_event: row.first_event?.toISOString() ?? null,
    last_event: row.last_event?.toISOString() ?? null,
    event_count: Number(row.event_count),
    new_issues: row.new_issues,
    created_at: row.created_at.toISOString(),
  };
}
