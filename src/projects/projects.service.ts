import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Like, QueryFailedError, Repository } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/domain-errors';
import { AppConfig } from '../config/app-config';
import { buildDsn } from './dsn';
import { Project } from './project.entity';
import { firstFreeSlug, slugify } from './slug';

export interface ProjectView {
  id: number;
  name: string;
  slug: string;
  client_key: string;
  dsn: string;
  /** Days its events are kept; null follows EVENT_RETENTION_DAYS. */
  retention_days: number | null;
  created_at: string;
}

const UNIQUE_VIOLATION = '23505';

@Injectable()
export class ProjectsService {
  constructor(
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    private readonly config: AppConfig,
  ) {}

  async list(): Promise<ProjectView[]> {
    const all = await this.projects.find({ order: { id: 'ASC' } });
    return all.map((project) => this.toView(project));
  }

  async get(id: number): Promise<ProjectView> {
    return this.toView(await this.findOrFail(id));
  }

  async findOrFail(id: number): Promise<Project> {
    const project = await this.projects.findOne({ where: { id } });
    if (!project) throw new NotFoundError('project not found');
    return project;
  }

  async create(name: string): Promise<ProjectView> {
    const base = slugify(name);
    // Two creates with the same name may race for a slug: the unique index decides, the loser retries.
    for (let attempt = 0; attempt < 5; attempt++) {
      const taken = await this.projects.find({ where: { slug: Like(`${base}%`) }, select: { slug: true } });
      const slug = firstFreeSlug(base, new Set(taken.map((project) => project.slug)));
      try {
        const saved = await this.projects.save(
          this.projects.create({ name: name.trim(), slug, clientKey: randomUUID() }),
        );
        return this.toView(saved);
      } catch (error) {
        if (!(error instanceof QueryFailedError) || (error as { code?: string }).code !== UNIQUE_VIOLATION) {
          throw error;
        }
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

  async remove(id: number): Promise<void> {
    const result = await this.projects.delete({ id });
    if (!result.affected) throw new NotFoundError('project not found');
  }

  toView(project: Project): ProjectView {
    return {
      id: project.id,
      name: project.name,
      slug: project.slug,
      client_key: project.clientKey,
      dsn: buildDsn(this.config.publicUrl, project.clientKey, project.id),
      retention_days: project.retentionDays,
      created_at: project.createdAt.toISOString(),
    };
  }
}
