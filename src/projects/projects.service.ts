import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/domain-errors';
import { AppConfig } from '../config/app-config';
import { buildDsn } from './dsn';
import { ProjectKeyChanges } from './project-key-changes';
import type { Project } from './project.entity';
import { ProjectsRepository } from './projects.repository';
import { firstFreeSlug, slugify } from './slug';
import type { ProjectSummaryView, ProjectView } from './dto/project.response';
import { ProjectActivityRepository } from './project-activity.repository';

export type { ProjectSummaryView, ProjectView };

/** The projects a request may see (Access.projects): every one, or these ids. */
export type VisibleProjects = 'all' | ReadonlySet<number>;

function visible(project: Project | null, projects: VisibleProjects): Project | null {
  return project && (projects === 'all' || projects.has(project.id)) ? project : null;
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly config: AppConfig,
    private readonly keyChanges: ProjectKeyChanges,
    private readonly activity: ProjectActivityRepository,
  ) {}

  async list(projects: VisibleProjects = 'all'): Promise<ProjectView[]> {
    const all = await this.findEntities();
    return all.filter((project) => visible(project, projects)).map((project) => this.toView(project));
  }

  /** The projects a caller sees, each with its open issues and recent events (the project list). */
  async listWithActivity(projects: VisibleProjects = 'all'): Promise<ProjectSummaryView[]> {
    const views = await this.list(projects);
    const activity = await this.activity.byProject(views.map((view) => view.id));
    return views.map((view) => {
      const counts = activity.get(view.id);
      return { ...view, open_issues: counts?.openIssues ?? 0, events_24h: counts?.events24h ?? 0 };
    });
  }

  /** Every project, as stored. */
  findEntities(): Promise<Project[]> {
    return this.projects.list();
  }

  async get(id: number): Promise<ProjectView> {
    return this.toView(await this.findOrFail(id));
  }

  async exists(id: number): Promise<boolean> {
    return this.projects.exists(id);
  }

  async findOrFail(id: number): Promise<Project> {
    const project = await this.projects.findById(id);
    if (!project) throw new NotFoundError('project not found');
    return project;
  }

  /**
   * A project as sentry-cli names it: by slug, or by id (all digits). Not found is a NotFoundError
   * naming what was asked for; see also findReferenced.
   */
  async findBySlugOrId(reference: string | number, projects: VisibleProjects = 'all'): Promise<Project> {
    const text = String(reference);
    const byId = /^[1-9]\d{0,9}$/.test(text) && Number(text) <= 2_147_483_647;
    const found = await this.projects.findBySlugOrId(text, byId ? Number(text) : undefined);
    // One the request may not see answers as if it did not exist.
    const project = visible(found, projects);
    if (!project) throw new NotFoundError(`project ${JSON.stringify(text)} not found`);
    return project;
  }

  /**
   * Projects a request body names (by slug or id): one that does not exist makes the request wrong,
   * a 400 naming it, where a project in the path is a 404.
   */
  async findReferenced(
    references: (string | number)[],
    visibleProjects: VisibleProjects = 'all',
  ): Promise<Project[]> {
    const projects: Project[] = [];
    for (const reference of references) {
      try {
        projects.push(await this.findBySlugOrId(reference, visibleProjects));
      } catch (error) {
        if (error instanceof NotFoundError) {
          throw new InvalidInputError(
            `projects: no project has the slug or id ${JSON.stringify(String(reference))}`,
          );
        }
        throw error;
      }
    }
    return projects;
  }

  async create(name: string): Promise<ProjectView> {
    const base = slugify(name);
    // Two creates with the same name may race for a slug: the unique index decides, the loser retries.
    for (let attempt = 0; attempt < 5; attempt++) {
      const taken = await this.projects.slugsStartingWith(base);
      const slug = firstFreeSlug(base, new Set(taken));
      const saved = await this.projects.insert({ name: name.trim(), slug, clientKey: randomUUID() });
      if (saved) {
        // This process's ingest knows the key before the answer is sent; others find it on a miss.
        await this.keyChanges.changed();
        return this.toView(saved);
      }
    }
    throw new ConflictError('could not allocate a unique slug, try again');
  }

  /** A rename keeps the slug as it was: issue short ids and links are built from it. */
  async update(id: number, changes: { name?: string; retentionDays?: number | null }): Promise<ProjectView> {
    if (changes.name === undefined && changes.retentionDays === undefined) {
      throw new InvalidInputError('name or retention_days is required');
    }
    const project = await this.findOrFail(id);
    if (changes.name !== undefined) project.name = changes.name.trim();
    if (changes.retentionDays !== undefined) project.retentionDays = changes.retentionDays;
    return this.toView(await this.projects.save(project));
  }

  /**
   * Gives the project a new client key. The replaced one keeps ingesting for `graceHours` (0: it
   * stops at once); a key replaced by an earlier rotation stops now, whatever its grace was. The
   * row is locked so that two rotations at once cannot both keep the same key as the previous one.
   */
  async rotateClientKey(id: number, graceHours: number): Promise<ProjectView> {
    const rotated = await this.projects.changeLocked(id, (project) => {
      project.previousClientKey = graceHours > 0 ? project.clientKey : null;
      project.previousClientKeyExpiresAt =
        graceHours > 0 ? new Date(Date.now() + graceHours * 3_600_000) : null;
      project.clientKey = randomUUID();
    });
    if (!rotated) throw new NotFoundError('project not found');
    await this.keyChanges.changed();
    return this.toView(rotated);
  }

  async remove(id: number): Promise<void> {
    if (!(await this.projects.delete(id))) throw new NotFoundError('project not found');
  }

  toView(project: Project): ProjectView {
    const expiresAt = project.previousClientKeyExpiresAt;
    const previousKey =
      project.previousClientKey && expiresAt && expiresAt.getTime() > Date.now()
        ? project.previousClientKey
        : null;
    return {
      id: project.id,
      name: project.name,
      slug: project.slug,
      client_key: project.clientKey,
      dsn: buildDsn(this.config.publicUrl, project.clientKey, project.id),
      previous_dsn: previousKey ? buildDsn(this.config.publicUrl, previousKey, project.id) : null,
      previous_client_key_expires_at: previousKey ? expiresAt!.toISOString() : null,
      retention_days: project.retentionDays,
      created_at: project.createdAt.toISOString(),
    };
  }
}
