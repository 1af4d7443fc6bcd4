import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  PageQueryDto,
  parseKey,
  toPage,
} from '../common/pagination';
import { DeployRow, ReleaseRow, ReleasesRepository } from './releases.repository';
import type { HealthQuery } from './dto/release-health.query';
import type { ReleaseHealthFigures } from './dto/release-health.response';
import { HealthScope, ReleaseHealthService } from './health/release-health.service';
import type { ReleaseView, DeployView, ReleaseDetailView } from './dto/release.response';

export type { ReleaseView, DeployView, ReleaseDetailView };

/** How many deploys a release's page lists. */
const DEPLOYS_SHOWN = 10;

const NO_EVENT = 'none';

/** A project's releases, the most recently seen first. */
@Injectable()
export class ReleasesService {
  constructor(
    private readonly releases: ReleasesRepository,
    private readonly health: ReleaseHealthService,
  ) {}

  async list(projectId: number, query: PageQueryDto & HealthQuery): Promise<Page<ReleaseView>> {
    const scope = await this.scope(projectId, query);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.inScope(
      scope,
      await this.releases.list(projectId, limit + 1, decodeReleaseCursor(query.cursor)),
    );
    const figures = await this.health.ofReleases(
      scope,
      rows.slice(0, limit).map((row) => row.version),
    );
    return toPage(
      rows,
      limit,
      (last) => encodeCursor([last.last_event?.toISOString() ?? NO_EVENT, last.version]),
      (row) => toReleaseView(row, figures.get(row.version)!),
    );
  }

  async get(projectId: number, version: string, query: HealthQuery = {}): Promise<ReleaseDetailView> {
    const scope = await this.scope(projectId, query);
    const found = await this.releases.get(projectId, version);
    if (!found) throw new NotFoundError('release not found');
    const [[row], deploys, figures] = await Promise.all([
      this.inScope(scope, [found]),
      this.releases.deploys(projectId, version, DEPLOYS_SHOWN),
      this.health.ofReleases(scope, [version]),
    ]);
    return { ...toReleaseView(row, figures.get(version)!), deploys: deploys.map(toDeployView) };
  }

  /** The health scope of a query; an environment only the releases' events named is one too. */
  private scope(projectId: number, query: HealthQuery): Promise<HealthScope> {
    return this.health.scope(projectId, query.period, query.environment, () =>
      this.releases.environments(projectId),
    );
  }

  /**
   * The rows with their events and new issues of the scope's environment, when it names one (the
   * counts of every environment otherwise): every figure of a release follows the same filter.
   */
  private async inScope(scope: HealthScope, rows: ReleaseRow[]): Promise<ReleaseRow[]> {
    if (scope.environment === null) return rows;
    const counts = await this.releases.inEnvironment(
      scope.projectId,
      scope.environment,
      rows.map((row) => row.version),
    );
    const byVersion = new Map(counts.map((row) => [row.version, row]));
    return rows.map((row) => ({
      ...row,
      event_count: Number(byVersion.get(row.version)?.event_count ?? 0),
      new_issues: byVersion.get(row.version)?.new_issues ?? 0,
    }));
  }

  /** Makes a release of these projects before any event names it (sentry-cli `releases new`). */
  announce(projectIds: number[], version: string, dateReleased: Date | null): Promise<void> {
    return this.releases.announce(projectIds, version, dateReleased);
  }

  /**
   * Marks a release released (sentry-cli `releases finalize`), for the projects given or, without,
   * every project that has it; returns the projects.
   */
  async finalize(projectIds: number[] | undefined, version: string, at: Date): Promise<number[]> {
    const targets = await this.targets(projectIds, version);
    await this.releases.announce(targets, version, at);
    return targets;
  }

  /** Records a deploy of a release (sentry-cli `releases deploys … new`). */
  async deploy(
    projectIds: number[] | undefined,
    version: string,
    deploy: {
      environment: string;
      name: string | null;
      url: string | null;
      dateStarted: Date | null;
      dateFinished: Date | null;
    },
  ): Promise<DeployView & { id: string }> {
    const targets = await this.targets(projectIds, version);
    const row = await this.releases.addDeploy(targets, version, {
      environment: deploy.environment,
      name: deploy.name,
      url: deploy.url,
      date_started: deploy.dateStarted,
      date_finished: deploy.dateFinished ?? new Date(),
    });
    return { id: row.id, ...toDeployView(row) };
  }

  /** The projects that have a release of this version. */
  projectsWith(version: string): Promise<number[]> {
    return this.releases.projectsWith(version);
  }

  private async targets(projectIds: number[] | undefined, version: string): Promise<number[]> {
    const targets = projectIds?.length ? projectIds : await this.releases.projectsWith(version);
    if (targets.length === 0) throw new NotFoundError(`release ${JSON.stringify(version)} not found`);
    return targets;
  }
}

function decodeReleaseCursor(
  raw: string | undefined,
): { lastEvent: Date | null; version: string } | undefined {
  if (raw === undefined) return undefined;
  const fields = cursorFields(raw);
  // A version may contain '|': everything after the first field is the version.
  if (fields.length < 2) throw invalidCursor();
  const version = fields.slice(1).join('|');
  if (version.length === 0 || version.length > 200) throw invalidCursor();
  if (fields[0] === NO_EVENT) return { lastEvent: null, version };
  return { lastEvent: parseKey(fields[0], '1', 'int').at, version };
}

function toReleaseView(row: ReleaseRow, health: ReleaseHealthFigures): ReleaseView {
  return {
    ...health,
    version: row.version,
    first_event: row.first_event?.toISOString() ?? null,
    last_event: row.last_event?.toISOString() ?? null,
    event_count: Number(row.event_count),
    new_issues: row.new_issues,
    created_at: row.created_at.toISOString(),
    date_released: row.date_released?.toISOString() ?? null,
  };
}

function toDeployView(row: DeployRow): DeployView {
  return {
    environment: row.environment,
    name: row.name,
    url: row.url,
    date_started: row.date_started?.toISOString() ?? null,
    date_finished: row.date_finished.toISOString(),
  };
}
