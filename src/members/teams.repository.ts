import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export interface TeamRow {
  id: number;
  slug: string;
  name: string;
  created_at: Date;
  member_ids: number[];
  project_ids: number[];
}

const UNIQUE_VIOLATION = '23505';

/** Teams, their members and their projects: every statement on those tables is here. */
@Injectable()
export class TeamsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async list(): Promise<TeamRow[]> {
    return this.db.query(`${TEAM_SELECT} ORDER BY t.name, t.id`);
  }

  async find(id: number): Promise<TeamRow | null> {
    const rows: TeamRow[] = await this.db.query(`${TEAM_SELECT} WHERE t.id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The team with this slug (`assigned:#team`). */
  async findBySlug(slug: string): Promise<TeamRow | null> {
    const rows: TeamRow[] = await this.db.query(`${TEAM_SELECT} WHERE t.slug = $1`, [slug]);
    return rows[0] ?? null;
  }

  /** Every account's teams. */
  async memberships(): Promise<Map<number, number[]>> {
    const rows: { user_id: number; team_id: number }[] = await this.db.query(
      'SELECT user_id, team_id FROM team_members ORDER BY user_id, team_id',
    );
    const byUser = new Map<number, number[]>();
    for (const row of rows) byUser.set(row.user_id, [...(byUser.get(row.user_id) ?? []), row.team_id]);
    return byUser;
  }

  /** Teams of an account, by id. */
  async teamIdsOfUser(userId: number): Promise<number[]> {
    const rows: { team_id: number }[] = await this.db.query(
      'SELECT team_id FROM team_members WHERE user_id = $1 ORDER BY team_id',
      [userId],
    );
    return rows.map((row) => row.team_id);
  }

  /** Inserts a team; null when the slug is taken. */
  async insert(slug: string, name: string): Promise<number | null> {
    try {
      const rows: { id: number }[] = await this.db.query(
        'INSERT INTO teams (slug, name) VALUES ($1, $2) RETURNING id',
        [slug, name],
      );
      return rows[0].id;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
      throw error;
    }
  }

  async rename(id: number, name: string): Promise<boolean> {
    const [, count] = await this.db.query('UPDATE teams SET name = $2 WHERE id = $1', [id, name]);
    return count > 0;
  }

  async delete(id: number): Promise<boolean> {
    const [, count] = await this.db.query('DELETE FROM teams WHERE id = $1', [id]);
    return count > 0;
  }

  async addMember(
    teamId: number,
    userId: number,
    manager: EntityManager = this.db.manager,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO team_members (team_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING team_id`,
      [teamId, userId],
    );
    return rows.length > 0;
  }

  async removeMember(teamId: number, userId: number): Promise<boolean> {
    const [, count] = await this.db.query('DELETE FROM team_members WHERE team_id = $1 AND user_id = $2', [
      teamId,
      userId,
    ]);
    return count > 0;
  }

  async addProject(teamId: number, projectId: number): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO team_projects (team_id, project_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING team_id`,
      [teamId, projectId],
    );
    return rows.length > 0;
  }

  async removeProject(teamId: number, projectId: number): Promise<boolean> {
    const [, count] = await this.db.query(
      'DELETE FROM team_projects WHERE team_id = $1 AND project_id = $2',
      [teamId, projectId],
    );
    return count > 0;
  }

  /** Which of these ids are teams. */
  async existing(ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows: { id: number }[] = await this.db.query('SELECT id FROM teams WHERE id = ANY($1::int[])', [
      ids,
    ]);
    return rows.map((row) => row.id);
  }
}

const TEAM_SELECT = `
  SELECT t.id, t.slug, t.name, t.created_at,
         coalesce((SELECT array_agg(user_id ORDER BY user_id) FROM team_members WHERE team_id = t.id), '{}') AS member_ids,
         coalesce((SELECT array_agg(project_id ORDER BY project_id) FROM team_projects WHERE team_id = t.id), '{}') AS project_ids
    FROM teams t`;
