import { randomUUID } from 'node:crypto';
import { Clock } from '../../src/common/clock';
import { TestApp } from './app';
import { createProject, hex, Project } from './projects';

export type QuotaProject = Project;

/** Moves the app's clock: quotas, spike protection and their jobs read it. */
export function setClock(t: TestApp, at: number): void {
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => at);
}

/** One envelope with one small event, authenticated by the project's key. */
export function sendEvent(t: TestApp, project: QuotaProject, message = 'quota') {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(['{}', '{"type":"event"}', JSON.stringify({ event_id: hex(randomUUID()), message })].join('\n'));
}

/** A new project with these quota settings (PATCH /quotas). */
export async function createQuotaProject(t: TestApp, quotas: Record<string, unknown>): Promise<QuotaProject> {
  const project = await createProject(t, 'Quota');
  await t.api().patch(`/api/projects/${project.id}/quotas`).send(quotas).expect(200);
  return project;
}
