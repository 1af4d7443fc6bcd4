import { Injectable } from '@nestjs/common';
import { InvalidInputError, NotFoundError } from '../../common/domain-errors';
import type {
  HealthBucket,
  HealthPeriod,
  ProjectHealthView,
  ReleaseHealthEntry,
  ReleaseHealthFigures,
  ReleaseHealthView,
} from '../dto/release-health.response';
import {
  adoptionWindow,
  bucketStarts,
  crashFree,
  HealthCounts,
  healthWindow,
  NO_COUNTS,
  percentOf,
} from './health-figures';
import { HealthCountRow, HealthFilter, ReleaseHealthRepository } from './release-health.repository';

export interface HealthScope {
  projectId: number;
  period: HealthPeriod;
  /** null: every environment. */
  environment: string | null;
}

/**
 * Release health figures, read from the hourly rows the session fold writes (they lag ingest by up
 * to a minute). Every figure is a count or a ratio of counts: sessions are summed, users counted
 * distinct over the period, so that a user seen in many hours counts once.
 */
@Injectable()
export class ReleaseHealthService {
  constructor(private readonly health: ReleaseHealthRepository) {}

  /**
   * The scope of a query: the period (24h by default) and an environment the sessions named, or
   * one of `alsoKnown` (the environments of the releases' events, where the releases are asked for:
   * their sessions there are none).
   */
  async scope(
    projectId: number,
    period: HealthPeriod | undefined,
    environment: string | undefined,
    alsoKnown: () => Promise<string[]> = () => Promise.resolve([]),
  ): Promise<HealthScope> {
    const wanted = environment === undefined || environment === '' ? null : environment;
    if (
      wanted !== null &&
      !(await this.health.environments(projectId)).includes(wanted) &&
      !(await alsoKnown()).includes(wanted)
    ) {
      throw new InvalidInputError(
        `environment ${JSON.stringify(wanted)} is not one this project's sessions or events named`,
      );
    }
    return { projectId, period: period ?? '24h', environment: wanted };
  }

  /** The figures of these releases (a release without sessions gets zeros). */
  async ofReleases(
    scope: HealthScope,
    versions: string[],
    now = new Date(),
  ): Promise<Map<string, ReleaseHealthFigures>> {
    const figures = new Map<string, ReleaseHealthFigures>();
    if (versions.length === 0) return figures;
    const window = healthWindow(scope.period, now);
    const recent = adoptionWindow(now);
    const filter = (range: { from: Date; to: Date }, releases: string[] | null): HealthFilter => ({
      projectId: scope.projectId,
      environment: scope.environment,
      from: range.from,
      to: range.to,
      releases,
    });
    const [counts, recentCounts, projectRecent] = await Promise.all([
      this.health.counts(filter(window, versions), { release: true }),
      this.health.counts(filter(recent, versions), { release: true }),
      this.health.totals(filter(recent, null)),
    ]);
    const byRelease = new Map(counts.map((row) => [row.key, row]));
    const recentByRelease = new Map(recentCounts.map((row) => [row.key, row]));
    for (const version of versions) {
      const adoption = recentByRelease.get(version) ?? NO_COUNTS;
      figures.set(version, {
        ...figuresOf(byRelease.get(version) ?? NO_COUNTS),
        adoption: {
          sessions: percentOf(adoption.sessions, projectRecent.sessions),
          users: percentOf(adoption.users, projectRecent.users),
        },
      });
    }
    return figures;
  }

  /** One release's totals and series; 404 when the project has no such release. */
  async ofRelease(scope: HealthScope, version: string, now = new Date()): Promise<ReleaseHealthView> {
    if (!(await this.health.releaseExists(scope.projectId, version)))
      throw new NotFoundError('release not found');
    const window = healthWindow(scope.period, now);
    const filter: HealthFilter = { ...scope, from: window.from, to: window.to, releases: [version] };
    const [totals, buckets] = await Promise.all([
      this.ofReleases(scope, [version], now),
      this.health.counts(filter, { bucketHours: window.bucketHours }),
    ]);
    const byStart = bucketsByStart(buckets);
    return {
      version,
      period: scope.period,
      environment: scope.environment,
      interval: window.interval,
      totals: totals.get(version)!,
      series: bucketStarts(window).map((start) => bucketOf(start, byStart.get(start.getTime()) ?? NO_COUNTS)),
    };
  }

  /** The project's totals and every release with sessions in the period, with a sparkline each. */
  async ofProject(scope: HealthScope, now = new Date()): Promise<ProjectHealthView> {
    const window = healthWindow(scope.period, now);
    const filter: HealthFilter = { ...scope, from: window.from, to: window.to, releases: null };
    const [environments, totals, perRelease] = await Promise.all([
      this.health.environments(scope.projectId),
      this.health.totals(filter),
      this.health.counts(filter, { release: true }),
    ]);
    const versions = perRelease.filter((row) => row.sessions > 0 || row.users > 0).map((row) => row.key);
    const [figures, sparklines] = await Promise.all([
      this.ofReleases(scope, versions, now),
      this.sparklines(filter, window.bucketHours, bucketStarts(window), versions),
    ]);
    const releases: ReleaseHealthEntry[] = versions
      .map((version) => ({ version, ...figures.get(version)!, sparkline: sparklines.get(version)! }))
      .sort((a, b) => b.sessions - a.sessions || (a.version < b.version ? -1 : 1));
    return {
      period: scope.period,
      environment: scope.environment,
      environments,
      totals: { ...figuresOf(totals), adoption: { sessions: null, users: null } },
      releases,
    };
  }

  private async sparklines(
    filter: HealthFilter,
    bucketHours: number,
    starts: Date[],
    versions: string[],
  ): Promise<Map<string, number[]>> {
    const lines = new Map(versions.map((version) => [version, starts.map(() => 0)]));
    if (versions.length === 0) return lines;
    const index = new Map(starts.map((start, i) => [start.getTime(), i]));
    const rows = await this.health.sessionsPerReleaseAndBucket(
      { ...filter, releases: versions },
      bucketHours,
    );
    for (const row of rows) {
      const at = index.get(new Date(row.start).getTime());
      const line = lines.get(row.release);
      if (at !== undefined && line) line[at] += Number(row.sessions);
    }
    return lines;
  }
}

function figuresOf(counts: HealthCounts): Omit<ReleaseHealthFigures, 'adoption'> {
  return {
    sessions: counts.sessions,
    users: counts.users,
    errored_sessions: counts.errored,
    crashed_sessions: counts.crashed,
    crash_free_sessions: crashFree(counts.crashed, counts.sessions),
    crash_free_users: crashFree(counts.crashed_users, counts.users),
  };
}

function bucketsByStart(rows: HealthCountRow[]): Map<number, HealthCountRow> {
  return new Map(rows.map((row) => [Number(row.key), row]));
}

function bucketOf(start: Date, counts: HealthCounts): HealthBucket {
  return {
    time: start.toISOString(),
    sessions: counts.sessions,
    users: counts.users,
    errored_sessions: counts.errored,
    crashed_sessions: counts.crashed,
    abnormal_sessions: counts.abnormal,
    crash_free_sessions: crashFree(counts.crashed, counts.sessions),
    crash_free_users: crashFree(counts.crashed_users, counts.users),
  };
}
