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
import type { ActivityView } from './dto/activity.response';

export type { ActivityView };

export class ActivityQuery extends PageQueryDto {}

/** The id of the entry every log starts with (the issue's first event), before any stored one. */
const FIRST_SEEN_ID = '0';

/** An issue's activity log, oldest first, paged by entry. */
@Injectable()
export class IssueActivityService {
  constructor(private readonly activity: IssueActivityRepository) {}

  /** `firstSeen`: when the issue's first event arrived, the log's first entry. */
  async page(issueId: number, firstSeen: string, query: ActivityQuery): Promise<Page<ActivityView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: string | undefined;
    if (query.cursor !== undefined) {
      const fields = cursorFields(query.cursor);
      if (fields.length !== 2 || fields[0] !== 'activity' || !/^(0|[1-9]\d{0,17})$/.test(fields[1]))
        throw invalidCursor();
      after = fields[1];
    }
    const rows: ActivityView[] = (await this.activity.list(issueId, limit + 1, after)).map(toView);
    if (after === undefined) {
      rows.unshift({ id: FIRST_SEEN_ID, kind: 'first_seen', data: {}, created_at: firstSeen, actor: null });
    }
    return toPage(
      rows,
      limit,
      (last) => encodeCursor(['activity', last.id]),
      (row) => row,
    );
  }
}

function toView(row: ActivityRow): ActivityView {
  const actor =
    row.actor_user_id === null && row.actor === null
      ? null
      : {
          id: row.actor_user_id,
          // The account's current e-mail and name when it still exists; what was recorded otherwise.
          email: row.actor_email ?? (row.actor_user_id === null ? null : row.actor),
          name: row.actor_name ?? (row.actor_user_id === null ? (row.actor ?? '') : ''),
        };
  return { id: row.id, kind: row.kind, data: row.data, created_at: row.created_at.toISOString(), actor };
}
