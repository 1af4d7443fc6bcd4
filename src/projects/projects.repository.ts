import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Like, QueryFailedError, Repository } from 'typeorm';
import { Project } from './project.entity';

const UNIQUE_VIOLATION = '23505';

/** What ingest checks client keys against (both keys during a rotation's grace period). */
export interface ProjectKeyRow {
  id: number;
  client_key: string;
  previous_client_key: string | null;
  previous_client_key_expires_at: Date | null;
}

/** The projects table: every statement on projects is here. */
@Injectable()
export class ProjectsRepository {
  constructor(@InjectRepository(Project) private readonly projects: Repository<Project>) {}

  /** Every project's keys, read whole by each ingest process. */
  clientKeys(): Promise<ProjectKeyRow[]> {
    return this.projects.query(
      'SELECT id, client_key, previous_client_key, previous_client_key_expires_at FROM projects',
    );
  }

  /** Projects whose own retention differs from `defaultDays`. */
  async retentionOverrides(defaultDays: number): Promise<{ projectId: number; days: number }[]> {
    const rows: { id: number; retention_days: number }[] = await this.projects.query(
      'SELECT id, retention_days FROM projects WHERE retention_days IS NOT NULL AND retention_days <> $1',
      [defaultDays],
    );
    return rows.map((row) => ({ projectId: row.id, days: row.retention_days }));
  }

  /** Every project, by id. */
  list(): Promise<Project[]> {
    return this.projects.find({ order: { id: 'ASC' } });
  }

  exists(id: number): Promise<boolean> {
    return this.projects.exists({ where: { id } });
  }

  /**
   * The project's row, locked FOR KEY SHARE in the caller's transaction (first in the lock order of
   * issues.repository.ts): only the project's deletion waits for it.
   */
  async lockKeyShare(manager: EntityManager, id: number): Promise<void> {
    await manager.query('SELECT id FROM projects WHERE id = $1 FOR KEY SHARE', [id]);
  }

  findById(id: number): Promise<Project | null> {
    return this.projects.findOne({ where: { id } });
  }

  /** The project with this slug, or (when `id` is given) this id. */
  findBySlugOrId(slug: string, id?: number): Promise<Project | null> {
    return this.projects.findOne({ where: id === undefined ? { slug } : [{ id }, { slug }] });
  }

  /** The slugs that start with `prefix`. */
  async slugsStartingWith(prefix: string): Promise<string[]> {
    const taken = await this.projects.find({ where: { slug: Like(`${prefix}%`) }, select: { slug: true } });
    return taken.map((project) => project.slug);
  }

  /** Inserts a project; null when its slug is taken (by a create that raced this one). */
  async insert(project: { name: string; slug: string; clientKey: string }): Promise<Project | null> {
    try {
      return await this.projects.save(this.projects.create(project));
    } catch (error) {
      if (error instanceof QueryFailedError && (error as { code?: string }).code === UNIQUE_VIOLATION) {
        return null;
      }
      throw error;
    }
  }

  save(project: Project): Promise<Project> {
    return this.projects.save(project);
  }

  /**
   * Changes a project under its row lock (`change` edits the row it is given), so that two changes
   * at once see each other's result; null when there is no such project.
   */
  changeLocked(id: number, change: (project: Project) => void): Promise<Project | null> {
    return this.projects.manager.transaction(async (manager) => {
      const project = await manager.findOne(Project, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!project) return null;
      change(project);
      return manager.save(project);
    });
  }

  /** False when there was no such project. */
  async delete(id: number): Promise<boolean> {
    const result = await this.projects.delete({ id });
    return Boolean(result.affected);
  }
}
