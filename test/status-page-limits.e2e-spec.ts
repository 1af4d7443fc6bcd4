/**
 * The public status page's protection: a slug that does not exist is remembered for a moment, so
 * that asking again costs PostgreSQL nothing, and forgotten as soon as a page takes that slug; the
 * public routes are limited per client address (429 with Retry-After). Real PostgreSQL, Redis and
 * HTTP; the repository is watched, not replaced.
 */
import { randomUUID } from 'node:crypto';
import { StatusPagesRepository } from '../src/monitors/status-page/status-pages.repository';
import { startTestApp, TestApp } from './helpers/app';

const PER_MINUTE = 4;

describe('public status pages: miss cache and rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    // The dashboard is served so that /status/{slug} is a page (its build may be missing: 503).
    t = await startTestApp({ STATUS_PAGE_REQUESTS_PER_MINUTE: String(PER_MINUTE), SERVE_DASHBOARD: 'true' });
  });

  afterAll(() => t.close());

  afterEach(() => jest.restoreAllMocks());

  /** A client address of its own per call, so that the rate limit stays out of the way. */
  let clients = 0;
  const from = () => `203.0.113.${++clients}`;

  it('asks PostgreSQL once for a slug that does not exist, and shows a page published with it at once', async () => {
    const slug = `missing-${randomUUID().slice(0, 8)}`;
    const lookups = jest.spyOn(t.app.get(StatusPagesRepository), 'findEnabled');
    for (let i = 0; i < 3; i++) {
      const answer = await t.http().get(`/api/status/${slug}`).set('X-Forwarded-For', from()).expect(404);
      expect(answer.body).toEqual({ error: 'status page not found' });
    }
    expect(lookups).toHaveBeenCalledTimes(1);

    const project = await t.api().post('/api/projects').send({ name: 'Status' }).expect(201);
    await t
      .api()
      .put(`/api/projects/${project.body.id}/status-page`)
      .send({ enabled: true, slug, title: 'Shop status' })
      .expect(200);
    const page = await t.http().get(`/api/status/${slug}`).set('X-Forwarded-For', from()).expect(200);
    expect(page.body).toMatchObject({ title: 'Shop status', monitors: [] });
  });

  it('refuses a client past the limit with 429, { error } and Retry-After, on both public routes', async () => {
    const client = '192.0.2.77';
    const slug = `nothing-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < PER_MINUTE; i++) {
      await t.http().get(`/api/status/${slug}`).set('X-Forwarded-For', client).expect(404);
    }
    const refused = await t.http().get(`/api/status/${slug}`).set('X-Forwarded-For', client).expect(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/too many requests/) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const page = await t.http().get(`/status/${slug}`).set('X-Forwarded-For', client).expect(429);
    expect(page.body.error).toEqual(expect.any(String));
    expect(page.headers['retry-after']).toBeDefined();

    // Another client is not held back by this one.
    await t.http().get(`/api/status/${slug}`).set('X-Forwarded-For', '192.0.2.78').expect(404);
    // The rest of the API is not limited by it.
    await t.api().get('/api/projects').set('X-Forwarded-For', client).expect(200);
  });
});
