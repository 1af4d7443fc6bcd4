import type { Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { routeDeclarations } from '../src/access/route-declarations';
import { startTestApp, TestApp } from './helpers/app';

/** Every route the application serves declares who may use it (the guard refuses one that does not). */
describe('route permissions', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ SERVE_DASHBOARD: 'true' });
  });
  afterAll(() => app.close());

  function controllers(): Type[] {
    const found = new Set<Type>();
    for (const module of app.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) found.add(wrapper.metatype as Type);
    }
    return [...found];
  }

  it('are declared on every route', () => {
    const routes = routeDeclarations(controllers());
    expect(routes.length).toBeGreaterThan(80);
    expect(routes.filter((route) => route.declared === null).map((route) => route.route)).toEqual([]);
  });

  it("leave public only sign-in, the invitee's side of invitations, health, metrics, the report dialog and status pages", () => {
    const open = routeDeclarations(controllers())
      .filter((route) => route.declared === 'public')
      .map((route) => route.route)
      .sort();
    expect(open).toEqual([
      // The crash-report dialog authenticates with the DSN's client key, as ingest does.
      'GET /api/embed/error-page',
      // A project's status page, once an admin has enabled it.
      'GET /api/status/:slug',
      'GET /auth/invitations/:secret',
      // Whether this browser is signed in: its own session's user, or null; nothing of anyone else.
      'GET /auth/session',
      'GET /auth/sso',
      'GET /auth/sso/callback',
      'GET /auth/sso/start',
      'GET /health',
      'GET /health/ready',
      'GET /metrics',
      'POST /api/embed/error-page',
      'POST /auth/invitations/:secret/accept',
      'POST /auth/login',
      'POST /auth/logout',
    ]);
  });
});
