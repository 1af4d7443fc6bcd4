import { startTestApp, TestApp } from './helpers/app';

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
});
