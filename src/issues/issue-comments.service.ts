import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Access } from '../access/access';
import { roleAtLeast } from '../access/roles';
import { ForbiddenError, NotFoundError } from '../common/domain-errors';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  toPage,
} from '../common/pagination';
import { renderComment } from './comment-markdown';
import { CommentRow, IssueCommentsRepository } from './issue-comments.repository';
import { IssueActivityRepository } from './issue-activity.repository';
import type { CommentView } from './dto/comment.response';

export type { CommentView };

/** How much of a comment the activity log quotes. */
const EXCERPT_LENGTH = 140;

/** People's comments on an issue, in Markdown, each also an entry of the issue's activity log. */
@Injectable()
export class IssueCommentsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly comments: IssueCommentsRepository,
    private readonly activity: IssueActivityRepository,
  ) {}

  async page(issueId: number, query: { limit?: number; cursor?: string }): Promise<Page<CommentView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: number | undefined;
    if (query.cursor !== undefined) {
      const fields = cursorFields(query.cursor);
      const id =
        fields.length === 2 && fields[0] === 'comment' && /^[1-9]\d{0,9}$/.test(fields[1])
          ? Number(fields[1])
          : NaN;
      if (!(id <= 2_147_483_647)) throw invalidCursor();
      after = Number(fields[1]);
    }
    const rows = await this.comments.list(issueId, limit + 1, after);
    return toPage(rows, limit, (last) => encodeCursor(['comment', String(last.id)]), toView);
  }

  async add(issueId: number, access: Access, body: string): Promise<CommentView> {
    const id = await this.db.transaction(async (manager) => {
      const inserted = await this.comments.insert(manager, {
        issueId,
        authorUserId: access.userId,
        author: access.actor,
        body,
      });
      await this.activity.record(manager, [
        {
          issueId,
          kind: 'commented',
          data: { comment_id: inserted, excerpt: excerpt(body) },
          by: { userId: access.userId, actor: access.actor },
        },
      ]);
      return inserted;
    });
    return toView((await this.comments.find(issueId, id)) as CommentRow);
  }

  async edit(issueId: number, id: number, access: Access, body: string): Promise<CommentView> {
    await this.mayChange(issueId, id, access, 'edit');
    await this.comments.updateBody(id, body);
    await this.activity.rewriteCommentEntry(issueId, id, {
      comment_id: id,
      excerpt: excerpt(body),
      edited: true,
    });
    return toView((await this.comments.find(issueId, id)) as CommentRow);
  }

  async remove(issueId: number, id: number, access: Access): Promise<void> {
    await this.mayChange(issueId, id, access, 'delete');
    await this.comments.delete(id);
    // What was deleted must not stay readable in the log (a pasted secret, say).
    await this.activity.rewriteCommentEntry(issueId, id, { comment_id: id, deleted: true });
  }

  /**
   * Its author may edit or delete a comment; admins may delete it (to remove what should not be
   * there) but not put words in its author's mouth.
   */
  private async mayChange(
    issueId: number,
    id: number,
    access: Access,
    change: 'edit' | 'delete',
  ): Promise<CommentRow> {
    const comment = await this.comments.find(issueId, id);
    if (!comment) throw new NotFoundError('comment not found');
    const own = comment.author_user_id !== null && comment.author_user_id === access.userId;
    if (own) return comment;
    if (change === 'edit') throw new ForbiddenError('only its author can edit a comment');
    if (!roleAtLeast(access.role, 'admin')) {
      throw new ForbiddenError('only its author or an admin can delete a comment');
    }
    return comment;
  }
}

function excerpt(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH - 1)}…` : text;
}

function toView(row: CommentRow): CommentView {
  return {
    id: row.id,
    issue_id: row.issue_id,
    author:
      row.author_user_id === null || row.author_email === null
        ? null
        : { id: row.author_user_id, email: row.author_email, name: row.author_name ?? '' },
    author_label: row.author,
    body: row.body,
    html: renderComment(row.body),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
