import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const DAY_MS = 86_400_000;

describe('projects', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ PUBLIC_URL: 'https://errors.example.com' });
  });
  afterAll(() => t.close());

  it('creates a project with a derived slug, a UUID client key and a DSN built from PUBLIC_URL', async () => {
    const response = await t.api().post('/api/projects').send({ name: 'Web Shop!' }).expect(201);
    expect(response.body).toEqual({
      id: expect.any(Number),
      name: 'Web Shop!',
      slug: 'web-shop',
      client_key: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      dsn: expect.any(String),
      previous_dsn: null,
      previous_client_key_expires_at: null,
      retention_days: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const key = (response.body.client_key as string).replace(/-/g, '');
    expect(response.body.dsn).toBe(`https://${key}@errors.example.com/${response.body.id}`);
  });

  it('deduplicates slugs with a suffix', async () => {
    const first = await t.api().post('/api/projects').send({ name: 'Dup Name' }).expect(201);
    const second = await t.api().post('/api/projects').send({ name: 'dup name' }).expect(201);
    expect(first.body.slug).toBe('dup-name');
    expect(second.body.slug).toBe('dup-name-2');
  });

  it('lists, gets, renames and deletes', async () => {
    const created = await t.api().post('/api/projects').send({ name: 'Lifecycle' }).expect(201);
    const id = created.body.id as number;

    const list = await t.api().get('/api/projects').expect(200);
    expect(list.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, slug: 'lifecycle' })]),
    );

    await t.api().get(`/api/projects/${id}`).expect(200, created.body);

    const renamed = await t.api().patch(`/api/projects/${id}`).send({ name: 'Renamed' }).expect(200);
    expect(renamed.body).toMatchObject({ id, name: 'Renamed', slug: 'lifecycle' });

    await t.api().delete(`/api/projects/${id}`).expect(204);
    await t.api().get(`/api/projects/${id}`).expect(404, { error: 'project not found' });
    await t.api().delete(`/api/projects/${id}`).expect(404);
  });

  it('rejects bad input with a message naming the field', async () => {
    await t
      .api()
      .post('/api/projects')
      .send({})
      .expect(400)
      .expect(({ body }) => expect(body.error).toMatch(/name/));
    await t
      .api()
      .post('/api/projects')
      .send({ name: 42 })
      .expect(400)
      .expect(({ body }) => expect(body.error).toMatch(/name must be a string/));
    await t.api().post('/api/projects').send({ name: '' }).expect(400);
    await t
      .api()
      .post('/api/projects')
      .send({ name: 'x', slug: 'y' })
      .expect(400, { error: 'property slug should not exist' });
    await t.api().patch('/api/projects/1').send({ name: 'x', client_key: 'y' }).expect(400);
    await t.api().get('/api/projects/abc').expect(400, { error: 'id must be a positive integer' });
    await t.api().get('/api/projects/1.5').expect(400);
    await t.api().get('/api/projects/1e3').expect(400, { error: 'id must be a positive integer' });
    await t.api().get('/api/issues/0x10').expect(400, { error: 'id must be a positive integer' });
    await t.api().get('/api/projects/0').expect(400);
    await t.api().get('/api/projects/99999999').expect(404, { error: 'project not found' });
    await t
      .api()
      .post('/api/projects')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400, { error: 'request body is not valid JSON' });
  });

  it('lists each project with its open issues and its events of the last 24 hours, as sent', async () => {
    const busy = (await t.api().post('/api/projects').send({ name: 'Counted' }).expect(201)).body;
    const quiet = (await t.api().post('/api/projects').send({ name: 'Quiet' }).expect(201)).body;
    const auth = `Sentry sentry_version=7, sentry_key=${(busy.client_key as string).replace(/-/g, '')}, sentry_client=test/1.0`;
    const send = async (group: string, timestamp = Date.now() / 1000) => {
      const eventId = randomUUID().replace(/-/g, '');
      await t
        .http()
        .post(`/api/${busy.id}/store/`)
        .set('X-Sentry-Auth', auth)
        .send({
          event_id: eventId,
          message: `${group} failed`,
          fingerprint: [group],
          level: 'error',
          timestamp,
        })
        .expect(200);
    };
    for (const group of ['checkout', 'checkout', 'checkout', 'login', 'login', 'search']) await send(group);
    // An issue of an event two days old: open, but none of its events are of the last 24 hours.
    await send('nightly', (Date.now() - 2 * DAY_MS) / 1000);

    const issuesOf = async () =>
      (await t.api().get(`/api/projects/${busy.id}/issues`).query({ query: '' }).expect(200)).body as {
        total: number;
        data: { id: number; message: string; event_count: number }[];
      };
    const issues = await eventually(async () => {
      const page = await issuesOf();
      const events = page.data.reduce((sum, issue) => sum + issue.event_count, 0);
      return page.total === 4 && events === 7 && page.data;
    });
    await settleRollups(t.app);
    const login = issues.find((issue) => issue.message === 'login failed')!;
    await t.api().patch(`/api/issues/${login.id}`).send({ state: 'resolved' }).expect(200);

    const list = (await t.api().get('/api/projects').expect(200)).body.data as Record<string, unknown>[];
    const created = await t.api().get(`/api/projects/${busy.id}`).expect(200);
    // The counts come on top of the project as every other route shows it.
    expect(list.find((project) => project.id === busy.id)).toEqual({
      ...created.body,
      open_issues: 3,
      events_24h: 6,
    });
    expect(list.find((project) => project.id === quiet.id)).toMatchObject({ open_issues: 0, events_24h: 0 });
    // The card's number is the default issue list's total, and the 24h stats' sum.
    const unresolved = (
      await t.api().get(`/api/projects/${busy.id}/issues`).query({ query: 'is:unresolved' }).expect(200)
    ).body;
    expect(unresolved.total).toBe(3);
    const stats = (await t.api().get(`/api/projects/${busy.id}/stats`).query({ period: '24h' }).expect(200))
      .body;
    expect(stats.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0)).toBe(6);
  });
});
