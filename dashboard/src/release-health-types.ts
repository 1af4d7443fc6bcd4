import { call, client, StatsPeriod } from './api';

/*
 * Release health as the server answers it. These types mirror the server's schema of the release
 * health routes (GET /api/projects/{id}/release-health and /releases/{version}/health) by hand,
 * until api-schema.d.ts is generated with those routes; then they become `components['schemas'][…]`.
 * Every field is read as possibly missing: a server without release health answers 404 there, and
 * the pages show "—".
 */

/** A release's (or the project's) session figures over a period. Rates and shares are percents, 0–100. */
export interface HealthFigures {
  sessions?: number | null;
  users?: number | null;
  errored_sessions?: number | null;
  crashed_sessions?: number | null;
  crash_free_sessions?: number | null;
  crash_free_users?: number | null;
  /** Its share of the project's sessions and users in the last 24 hours. */
  adoption?: { sessions?: number | null; users?: number | null } | null;
}

/** GET /api/projects/{id}/release-health: every release's figures, with a trend of its sessions. */
export interface ProjectReleaseHealth {
  period: StatsPeriod;
  environment?: string | null;
  environments?: string[];
  totals?: HealthFigures;
  releases?: (HealthFigures & { version: string; sparkline?: number[] })[];
}

/** One bucket of a release's health series. */
export interface HealthBucket {
  time: string;
  sessions?: number | null;
  users?: number | null;
  errored_sessions?: number | null;
  crashed_sessions?: number | null;
  abnormal_sessions?: number | null;
  crash_free_sessions?: number | null;
  crash_free_users?: number | null;
}

/** GET /api/projects/{id}/releases/{version}/health. */
export interface ReleaseHealth {
  version: string;
  period: StatsPeriod;
  environment?: string | null;
  interval: 'hour' | 'day';
  totals?: HealthFigures;
  series?: HealthBucket[];
}

/** The same client as every other call (its error handling, its sign-in redirect), without path types. */
const untypedClient = client as unknown as {
  GET(
    path: string,
    init: { params: { path: Record<string, string | number>; query: Record<string, string | undefined> } },
  ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
};

function getHealth<T>(path: string, pathParams: Record<string, string | number>, period: StatsPeriod, environment: string): Promise<T> {
  return call(untypedClient.GET(path, { params: { path: pathParams, query: { period, environment: environment || undefined } } })) as Promise<T>;
}

export function loadProjectReleaseHealth(projectId: number, period: StatsPeriod, environment: string): Promise<ProjectReleaseHealth> {
  return getHealth('/api/projects/{id}/release-health', { id: projectId }, period, environment);
}

export function loadReleaseHealth(projectId: number, version: string, period: StatsPeriod, environment: string): Promise<ReleaseHealth> {
  return getHealth('/api/projects/{id}/releases/{version}/health', { id: projectId, version }, period, environment);
}
