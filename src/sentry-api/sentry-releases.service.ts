import { Injectable } from '@nestjs/common';
import { InvalidInputError, NotFoundError } from '../common/domain-errors';
import { Project } from '../projects/project.entity';
import { ProjectsService, VisibleProjects } from '../projects/projects.service';
import { DeployView, ReleasesService, ReleaseView } from '../releases/releases.service';
import type { SentryDeploy, SentryRelease } from './dto/sentry.response';

export type { SentryDeploy, SentryRelease };

/** How many releases `sentry-cli releases list` gets. */
const LISTED = 100;

/**
 * sentry-cli's release commands (`new`, `finalize`, `deploys … new`, `list`, `info`) on this
 * tracker's releases: organization-wide calls name their projects in the body or mean every
 * project that has the release; project-scoped calls name one in the path.
 */
@Injectable()
export class SentryReleasesService {
  constructor(
    private readonly releases: ReleasesService,
    private readonly projects: ProjectsService,
  ) {}

  async create(
    version: string,
    projectRefs: (string | number)[] | undefined,
    dateReleased: string | undefined,
    visible: VisibleProjects,
  ): Promise<SentryRelease> {
    const projects = await this.resolve(projectRefs, visible);
    if (projects.length === 0) throw new InvalidInputError('projects must name at least one project');
    await this.releases.announce(
      projects.map((project) => project.id),
      version,
      dateReleased ? new Date(dateReleased) : null,
    );
    return this.show(version, projects);
  }

  /** `releases new` on a project's route: the project in the path must exist (a 404 otherwise). */
  async createForProject(
    project: string,
    version: string,
    others: (string | number)[] | undefined,
    dateReleased: string | undefined,
    visible: VisibleProjects,
  ): Promise<SentryRelease> {
    const inPath = await this.projects.findBySlugOrId(project, visible);
    return this.create(version, [inPath.id, ...(others ?? [])], dateReleased, visible);
  }

  async finalizeForProject(
    project: string,
    version: string,
    dateReleased: string | undefined,
    visible: VisibleProjects,
  ): Promise<SentryRelease> {
    const inPath = await this.projects.findBySlugOrId(project, visible);
    return this.finalize(version, [inPath.id], dateReleased, visible);
  }

  async finalize(
    version: string,
    projectRefs: (string | number)[] | undefined,
    dateReleased: string | undefined,
    visible: VisibleProjects,
  ): Promise<SentryRelease> {
    const ids = await this.releases.finalize(
      await this.targets(version, projectRefs, visible),
      version,
      dateReleased ? new Date(dateReleased) : new Date(),
    );
    return this.show(version, await this.byIds(ids));
  }

  async deploy(
    version: string,
    projectRefs: (string | number)[] | undefined,
    deploy: {
      environment: string;
      name?: string | null;
      url?: string | null;
      dateStarted?: string | null;
      dateFinished?: string | null;
    },
    visible: VisibleProjects,
  ): Promise<SentryDeploy> {
    const saved = await this.releases.deploy(await this.targets(version, projectRefs, visible), version, {
      environment: deploy.environment,
      name: deploy.name ?? null,
      url: deploy.url ?? null,
      dateStarted: deploy.dateStarted ? new Date(deploy.dateStarted) : null,
      dateFinished: deploy.dateFinished ? new Date(deploy.dateFinished) : null,
    });
    return toSentryDeploy(saved);
  }

  /** One release, of the project given or of every project that has it. */
  async get(version: string, visible: VisibleProjects, projectRef?: string): Promise<SentryRelease> {
    return this.show(version, await this.scope(visible, projectRef));
  }

  /** The latest releases, of one project or of all. */
  async list(visible: VisibleProjects, projectRef?: string): Promise<SentryRelease[]> {
    const projects = await this.scope(visible, projectRef);
    const versions = new Map<string, ReleaseView>();
    for (const project of projects) {
      for (const release of (await this.releases.list(project.id, { limit: LISTED })).data) {
        if (!versions.has(release.version)) versions.set(release.version, release);
      }
    }
    const latest = [...versions.values()]
      .sort((a, b) => (b.last_event ?? b.created_at).localeCompare(a.last_event ?? a.created_at))
      .slice(0, LISTED);
    return Promise.all(latest.map((release) => this.show(release.version, projects)));
  }

  /** The release across the projects given that have it; NotFoundError when none has. */
  private async show(version: string, projects: Project[]): Promise<SentryRelease> {
    const found: { project: Project; release: ReleaseView }[] = [];
    for (const project of projects) {
      const release = await this.releases.get(project.id, version).catch((error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      if (release) found.push({ project, release });
    }
    if (found.length === 0) throw new NotFoundError(`release ${JSON.stringify(version)} not found`);
    const times = (pick: (release: ReleaseView) => string | null) =>
      found
        .map(({ release }) => pick(release))
        .filter((time): time is string => time !== null)
        .sort();
    return {
      version,
      shortVersion: version,
      dateCreated: times((release) => release.created_at)[0],
      dateReleased: times((release) => release.date_released).pop() ?? null,
      firstEvent: times((release) => release.first_event)[0] ?? null,
      lastEvent: times((release) => release.last_event).pop() ?? null,
      newGroups: found.reduce((sum, { release }) => sum + release.new_issues, 0),
      url: null,
      projects: found.map(({ project }) => ({ id: project.id, slug: project.slug, name: project.name })),
    };
  }

  private resolve(refs: (string | number)[] | undefined, visible: VisibleProjects): Promise<Project[]> {
    return this.projects.findReferenced(refs ?? [], visible);
  }

  /**
   * The projects a finalize or deploy acts on: those named, or when none is, every project with the
   * release that the request may see.
   */
  private async targets(
    version: string,
    refs: (string | number)[] | undefined,
    visible: VisibleProjects,
  ): Promise<number[] | undefined> {
    const named = await this.resolve(refs, visible);
    if (named.length > 0) return named.map((project) => project.id);
    if (visible === 'all') return undefined;
    const seen = (await this.releases.projectsWith(version)).filter((id) => visible.has(id));
    if (seen.length === 0) throw new NotFoundError(`release ${JSON.stringify(version)} not found`);
    return seen;
  }

  /** The project named in the path, or every project the request may see. */
  private async scope(visible: VisibleProjects, projectRef?: string): Promise<Project[]> {
    if (projectRef !== undefined) return [await this.projects.findBySlugOrId(projectRef, visible)];
    return (await this.projects.findEntities()).filter(
      (project) => visible === 'all' || visible.has(project.id),
    );
  }

  private async byIds(ids: number[]): Promise<Project[]> {
    return Promise.all(ids.map((id) => this.projects.findOrFail(id)));
  }
}

function toSentryDeploy(deploy: DeployView & { id: string }): SentryDeploy {
  return {
    id: deploy.id,
    environment: deploy.environment,
    name: deploy.name,
    url: deploy.url,
    dateStarted: deploy.date_started,
    dateFinished: deploy.date_finished,
  };
}
