import { randomUUID } from 'node:crypto';
import type { TestApp } from './app';

/** What the tests need of a project the API created. */
export interface Project {
  id: number;
  client_key: string;
}

/** A DSN key or event id as SDKs write it: 32 hex digits, no dashes. */
export const hex = (uuid: string) => uuid.replace(/-/g, '');

/** A new project through the API, named `<prefix>-<random>` so that test files never collide. */
export async function createProject(t: TestApp, prefix = 'project'): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `${prefix}-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}
