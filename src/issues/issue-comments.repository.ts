import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export interface CommentRow {
  id: number;
  issue_id: number;
  author_user_id: number | null;
  author: string;
  author_email: string | null;
  author_name: string | null;
  body: string;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `
  SELECT c.id, c.issue_id, c.author_user_id, c.author, u.email AS author_email, u.name AS author_name,
         c.body, c.created_at, c.updated_at
    FROM issue_comments c LEFT JOIN users u ON u.id = c.author_user_id`;

/** The issue_comments table. */
@Injectable()
export class IssueCommentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(
    manager: EntityManager,
    comment: { issueId: number; authorUserId: number | null; author: string; body: string },
  ): Promise<number> {
    const rows: { id: number }[] = await manager.query(
      'INSERT INTO issue_comments (issue_id, author_user_id, author, body) VALUES ($1, $2, $3, $4) RETURNING id',
      [comment.issueId, comment.authorUserId, comment.author, comment.body],
    );
    return rows[0].id;
  }

  /** An issue's comments, oldest first, after the comment `after` when given. */
  list(issueId: number, limit: number, after?: number): Promise<CommentRow[]> {
    return this.db.query(
      `${SELECT} WHERE c.issue_id = $1 AND ($2::int IS NULL OR c.id > $2) ORDER BY c.id LIMIT $3`,
      [issueId, after ?? null, limit],
    );
  }

  async find(issueId: number, id: number): Promise<CommentRow | null> {
    const rows: CommentRow[] = await this.db.query(`${SELECT} WHERE c.issue_id = $1 AND c.id = $2`, [
      issueId,
      id,
    ]);
    return rows[0] ?? null;
  }

  async updateBody(id: number, body: string): Promise<void> {
    await this.db.query('UPDATE issue_comments SET body = $2, updated_at = now() WHERE id = $1', [id, body]);
  }

  async delete(id: number): Promise<void> {
    await this.db.query('DELETE FROM issue_comments WHERE id = $1', [id]);
  }

  /** Comments of merged issues go to the issue they were merged into. */
  async moveToIssue(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query('UPDATE issue_comments SET issue_id = $2 WHERE issue_id = ANY($1::int[])', [
      from,
      to,
    ]);
  }
}
