import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * What the guard must know about the rows a path names, read directly: access sits below every
 * domain folder, so it asks the tables, not their services.
 */
@Injectable()
export class AccessRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The projects of every team the user is on. */
  async projectIdsOfUser(userId: number): Promise<number[]> {
    const rows: { project_id: number }[] = await this.db.query(
      `SELECT DISTINCT tp.project_id FROM team_members tm JOIN team_projects tp ON tp.team_id = tm.team_id
        WHERE tm.user_id = $1`,
      [userId],
    );
    return rows.map((row) => row.project_id);
  }

  /** The project of an issue, null when there is no such issue. */
  async projectIdOfIssue(issueId: number): Promise<number | null> {
    const rows: { project_id: number }[] = await this.db.query(
      'SELECT project_id FROM issues WHERE id = $1',
      [issueId],
    );
    return rows[0]?.project_id ?? null;
  }

  /**
   * The project a path names by slug or by id (a slug that looks like an id is found either way),
   * null when there is none. The same lookup as ProjectsService.findBySlugOrId.
   */
  async projectIdOfReference(reference: string): Promise<number | null> {
    const byId = /^[1-9]\d{0,9}$/.test(reference) && Number(reference) <= 2_147_483_647;
    const rows: { id: number }[] = byId
      ? await this.db.query(
          'SELECT id FROM projects WHERE id = $1 OR slug = $2 ORDER BY (id = $1) DESC LIMIT 1',
          [Number(reference), reference],
        )
      : await this.db.query('SELECT id FROM projects WHERE slug = $1', [reference]);
    return rows[0]?.id ?? null;
  }
}
