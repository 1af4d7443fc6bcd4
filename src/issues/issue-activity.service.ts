import { Injectable } from '@nestjs/common';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  PageQueryDto,
  toPage,
} from '../common/pagination';
import { ActivityRow, IssueActivityRepository } from './issue-activity.repository';

export class ActivityQuery extends PageQueryDto {}

export interface ActivityView {
  id: string;
  kind: ActivityRow['kind'];
  data: Record<string, unknown>;
  created_at: string;
}

/** An issue's activity log, oldest first, paged by entry. */
@Injectable()
export class IssueActivityService {
  constructor(private readonly activity: IssueActivityRepository) {}

  async page(issueId: number, query: ActivityQuery): Promise<Page<ActivityView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: string | undefined;
    if (query.cursor !== undefined) {
      const fields = cursorFields(query.cursor);
      if (fields.length !== 2 || fields[0] !== 'activity' || !/^[1-9]\d{0,17}$/.test(fields[1]))
        throw invalidCursor();
      after = fields[1];
    }
    const rows = await this.activity.list(issueId, limit + 1, after);
    return toPage(
      rows,
      limit,
      (last) => encodeCursor(['activity', last.id]),
      (row) => ({ id: row.id, kind: row.kind, data: row.data, created_at: row.created_at.toISOString() }),
    );
  }
}
