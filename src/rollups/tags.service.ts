import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  toPage,
} from '../common/pagination';
import type { ProjectTagKey, TagKeySummary, TagValueKey, TagValueRow } from './rollups.repository';
import { TagRollupsRepository } from './tag-rollups.repository';

/** How many of each key's values the tag summary lists. */
export const TOP_VALUES = 10;

/**
 * A project's tags are suggested from its most recently seen issues and, of each of their keys,
 * their most frequent values: bounded work however many issues and values the project has.
 */
export const SUGGESTION_SAMPLE = { issues: 500, valuesPerIssue: 30 } as const;
/** How many values a search box suggests for a key. */
export const SUGGESTED_VALUES = 20;

/** Tag distributions of an issue, from its tag rollups. */
@Injectable()
export class TagsService {
  constructor(private readonly rollups: TagRollupsRepository) {}

  summaries(issueId: number): Promise<TagKeySummary[]> {
    return this.rollups.tagSummaries(issueId, TOP_VALUES);
  }

  /** The project's tag keys, for search suggestions (see SUGGESTION_SAMPLE). */
  projectKeys(projectId: number): Promise<ProjectTagKey[]> {
    return this.rollups.projectTagKeys(projectId, SUGGESTION_SAMPLE.issues);
  }

  /** The most frequent values of one of the project's tag keys, those starting with `prefix` if given. */
  projectValues(projectId: number, key: string, prefix: string | undefined): Promise<TagValueRow[]> {
    return this.rollups.projectTagValues(projectId, key, prefix, SUGGESTION_SAMPLE, SUGGESTED_VALUES);
  }

  /** All values of one key, most frequent first (ties by value), paginated. */
  async values(
    issueId: number,
    key: string,
    options: { limit?: number; cursor?: string },
  ): Promise<Page<TagValueRow>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const after = options.cursor === undefined ? undefined : decodeValueCursor(options.cursor);
    const rows = await this.rollups.tagValues(issueId, key, after, limit + 1);
    if (rows.length === 0 && !after && !(await this.rollups.hasTagKey(issueId, key))) {
      throw new NotFoundError('tag not found');
    }
    return toPage(rows, limit, encodeValueCursor, (row) => ({ value: row.value, count: row.count }));
  }
}

/** Tag values may hold any character; the cursor carries them base64url-encoded. */
function encodeValueCursor(row: TagValueKey): string {
  return encodeCursor([String(row.count), Buffer.from(row.value).toString('base64url')]);
}

function decodeValueCursor(raw: string): TagValueKey {
  const fields = cursorFields(raw);
  if (fields.length !== 2 || !/^(0|[1-9]\d{0,9})$/.test(fields[0]) || !/^[A-Za-z0-9_-]*$/.test(fields[1])) {
    throw invalidCursor();
  }
  const count = Number(fields[0]);
  if (count > 2_147_483_647) throw invalidCursor();
  return { count, value: Buffer.from(fields[1], 'base64url').toString('utf8') };
}
