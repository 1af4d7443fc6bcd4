import { call, client, StatsPeriod } from './api';
import type { components } from './api-schema';

/** Release health as the server answers it (docs/release-health.md). Rates and shares are percents, 0–100. */
export type HealthFigures = components['schemas']['ReleaseHealthFigures'];
/** GET /api/projects/{id}/release-health: every release's figures, with a trend of its sessions. */
export type ProjectReleaseHealth = components['schemas']['ProjectHealthView'];
/** One bucket of a release's health series. */
export type HealthBucket = components['schemas']['HealthBucket'];
/** GET /api/projects/{id}/releases/{version}/health. */
export type ReleaseHealth = components['schemas']['ReleaseHealthView'];

export function loadProjectReleaseHealth(projectId: number, period: StatsPeriod, environment: string): Promise<ProjectReleaseHealth> {
  const query = { period, environment: environment || undefined };
  return call(client.GET('/api/projects/{projectId}/release-health', { params: { path: { projectId }, query } }));
}

export function loadReleaseHealth(projectId: number, version: string, period: StatsPeriod, environment: string): Promise<ReleaseHealth> {
  const query = { period, environment: environment || undefined };
  return call(client.GET('/api/projects/{projectId}/releases/{version}/health', { params: { path: { projectId, version }, query } }));
}
