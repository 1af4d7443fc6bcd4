import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DashboardMiddleware, MISSING_BUILD_MESSAGE } from './dashboard.module';

function appServing(root: string) {
  const middleware = new DashboardMiddleware(root);
  const app = express();
  // As in the app: controller routes first, then the dashboard, then the JSON 404.
  app.get('/top-level-route', (_req, res) => void res.json({ ok: true }));
  app.use((req, res, next) => middleware.use(req, res, next));
  app.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  return app;
}

describe('DashboardMiddleware', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'dashboard-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>dash</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(root, 'favicon.svg'), '<svg/>');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves index.html without caching at / and for page paths', async () => {
    const pages = [
      '/',
      '/projects/3/issues',
      '/issues/12?event=x',
      '/index.html',
      '/projects/3/releases/shop%401.2.0',
    ];
    for (const path of pages) {
      const response = await request(appServing(root)).get(path).expect(200);
      expect(response.headers['content-type']).toMatch(/text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
    }
  });

  it('sends every dashboard answer with a strict Content-Security-Policy and the other browser safeguards', async () => {
    const app = appServing(root);
    const responses = [
      await request(app).get('/').expect(200),
      await request(app).get('/projects/3/issues').expect(200),
      await request(app).get('/index.html').expect(200),
      await request(app).head('/settings/tokens').expect(200),
      await request(app).get('/assets/index-abc123.js').expect(200),
      await request(app).get('/favicon.svg').expect(200),
      await request(appServing(join(root, 'nope')))
        .get('/')
        .expect(503),
    ];
    for (const response of responses) {
      const csp = String(response.headers['content-security-policy']);
      const directives = Object.fromEntries(
        csp.split(';').map((directive) => {
          const [name, ...values] = directive.trim().split(/\s+/);
          return [name, values.join(' ')];
        }),
      );
      expect(directives).toEqual({
        'default-src': "'self'",
        'script-src': "'self'",
        'style-src': "'self'",
        'img-src': "'self'",
        'font-src': "'self'",
        'connect-src': "'self'",
        'object-src': "'none'",
        'base-uri': "'self'",
        'form-action': "'self'",
        'frame-ancestors': "'none'",
      });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['referrer-policy']).toBe('same-origin');
    }
  });

  it('caches hashed assets for good and other files briefly', async () => {
    const asset = await request(appServing(root)).get('/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await request(appServing(root)).get('/favicon.svg').expect(200);
    expect(icon.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('never answers API, auth, health paths, unknown files or other methods with the page', async () => {
    const app = appServing(root);
    for (const path of [
      '/api/projects',
      '/api',
      '/auth/me',
      '/health',
      '/health/ready',
      '/metrics',
      '/assets/gone.js',
      '/robots.txt',
    ]) {
      await request(app).get(path).expect(404, { error: 'not found' });
    }
    await request(app).post('/projects').expect(404);
  });

  it('leaves routes mounted before it to them', async () => {
    await request(appServing(root)).get('/top-level-route').expect(200, { ok: true });
  });

  it('explains how to build the dashboard when the build output is missing', async () => {
    const response = await request(appServing(join(root, 'nope')))
      .get('/')
      .expect(503);
    expect(response.headers['content-type']).toMatch(/text\/plain/);
    expect(response.text).toBe(MISSING_BUILD_MESSAGE);
    expect(response.text).toContain('npm run build');
    await request(appServing(join(root, 'nope')))
      .get('/api/projects')
      .expect(404);
  });
});
