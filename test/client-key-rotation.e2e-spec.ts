/**
 * Rotating a project's client key: the new DSN ingests at once, the replaced one keeps ingesting for
 * the grace period and stops at its end, between reloads of the key snapshot too. Real server, real
 * PostgreSQL and Redis, a real SDK and raw envelopes.
 */
import { NodeClient, defaultStackParser, makeNodeTransport } from '@sentry/node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ProjectKeys } from '../src/ingest/project-keys';
import { startTestApp, TestApp } from './helpers/app';

interface ProjectView {
  id: number;
  client_key: string;
  dsn: string;
  previous_dsn: string | null;
  previous_client_key_expires_at: string | null;
}

const PUBLIC_URL = 'https://errors.example.com';
const HOUR_MS = 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `https://<key>@errors.example.com/<id>` → its key and project id. */
function partsOf(dsn: string): { key: string; projectId: number } {
  const match = /^https:\/\/([0-9a-f]{32})@errors\.example\.com\/(\d+)$/.exec(dsn);
  if (!match) throw new Error(`not a DSN of this installation: ${dsn}`);
  return { key: match[1], projectId: Number(match[2]) };
}

describe('client key rotation', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api', PUBLIC_URL });
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  async function createProject(): Promise<ProjectView> {
    const name = `rotate-${randomUUID().slice(0, 6)}`;
    return (await t.api().post('/api/projects').send({ name }).expect(201)).body as ProjectView;
  }

  function rotate(id: number, body?: object) {
    const request = t.api().post(`/api/projects/${id}/client-key/rotate`);
    return body === undefined ? request : request.send(body);
  }

  /** Status of an envelope sent as SDKs do, with the DSN's key in X-Sentry-Auth. */
  async function ingest(dsn: string): Promise<number> {
    const { key, projectId } = partsOf(dsn);
    const eventId = randomUUID().replace(/-/g, '');
    const body = [
      JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify({ event_id: eventId, message: 'rotation check', level: 'error' }),
    ].join('\n');
    const response = await t
      .http()
      .post(`/api/${projectId}/envelope/`)
      .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${key}, sentry_client=e2e/1.0`)
      .set('Content-Type', 'application/x-sentry-envelope')
      .send(body);
    if (response.status !== 200) expect(response.body).toEqual({ error: expect.any(String) });
    return response.status;
  }

  /** Status the official Node SDK gets for an event sent with this DSN (pointed at the test server). */
  async function ingestWithSdk(dsn: string): Promise<number | undefined> {
    const { key, projectId } = partsOf(dsn);
    const client = new NodeClient({
      dsn: `http://${key}@127.0.0.1:${t.port}/${projectId}`,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
    });
    const statuses: (number | undefined)[] = [];
    client.on('afterSendEvent', (_event, response) => statuses.push(response?.statusCode));
    client.init();
    client.captureException(new Error('sent after a key rotation'));
    expect(await client.flush(5_000)).toBe(true);
    expect(statuses).toHaveLength(1);
    return statuses[0];
  }

  it('gives a new key and DSN, and keeps the old DSN ingesting for 24 hours by default', async () => {
    const project = await createProject();
    expect(project).toMatchObject({ previous_dsn: null, previous_client_key_expires_at: null });
    expect(await ingestWithSdk(project.dsn)).toBe(200);

    const before = Date.now();
    const rotated = (await rotate(project.id).expect(200)).body as ProjectView;
    expect(rotated.client_key).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(rotated.client_key).not.toBe(project.client_key);
    expect(rotated.dsn).toBe(
      `${PUBLIC_URL.replace('//', `//${rotated.client_key.replace(/-/g, '')}@`)}/${project.id}`,
    );
    expect(rotated.previous_dsn).toBe(project.dsn);
    const expiresAt = Date.parse(rotated.previous_client_key_expires_at!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * HOUR_MS);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR_MS);
    await t.api().get(`/api/projects/${project.id}`).expect(200, rotated);

    expect(await ingestWithSdk(rotated.dsn)).toBe(200);
    expect(await ingestWithSdk(project.dsn)).toBe(200);
    expect(await ingest(rotated.dsn)).toBe(200);
    expect(await ingest(project.dsn)).toBe(200);
    // The old key is still this project's only: it opens no other project.
    const other = await createProject();
    expect(await ingest(project.dsn.replace(/\/\d+$/, `/${other.id}`))).toBe(401);
  });

  it('stops the old key at once with grace_hours 0', async () => {
    const project = await createProject();
    expect(await ingest(project.dsn)).toBe(200);
    const rotated = (await rotate(project.id, { grace_hours: 0 }).expect(200)).body as ProjectView;
    expect(rotated).toMatchObject({ previous_dsn: null, previous_client_key_expires_at: null });
    expect(await ingest(project.dsn)).toBe(401);
    expect(await ingestWithSdk(project.dsn)).toBe(401);
    expect(await ingest(rotated.dsn)).toBe(200);
  });

  it('stops the old key when its grace ends, without waiting for a reload of the keys', async () => {
    const project = await createProject();
    const rotated = (await rotate(project.id, { grace_hours: 1 }).expect(200)).body as ProjectView;
    expect(Date.parse(rotated.previous_client_key_expires_at!) - Date.now()).toBeGreaterThan(
      HOUR_MS - 60_000,
    );
    expect(await ingest(project.dsn)).toBe(200);

    // Bring the end of the grace period close, and have ingest read the keys again.
    await db.query(
      `UPDATE projects SET previous_client_key_expires_at = now() + interval '1500 milliseconds' WHERE id = $1`,
      [project.id],
    );
    const [{ expires_at: expiresAt }] = await db.query<{ expires_at: Date }[]>(
      'SELECT previous_client_key_expires_at AS expires_at FROM projects WHERE id = $1',
      [project.id],
    );
    await t.app.get(ProjectKeys).refresh();
    expect(await ingest(project.dsn)).toBe(200);
    expect((await t.api().get(`/api/projects/${project.id}`).expect(200)).body).toMatchObject({
      previous_dsn: project.dsn,
      previous_client_key_expires_at: expiresAt.toISOString(),
    });

    // Well within the 30 s between reloads: the snapshot itself knows when the key ends.
    await sleep(expiresAt.getTime() - Date.now() + 50);
    expect(await ingest(project.dsn)).toBe(401);
    expect(await ingest(rotated.dsn)).toBe(200);
    expect((await t.api().get(`/api/projects/${project.id}`).expect(200)).body).toMatchObject({
      previous_dsn: null,
      previous_client_key_expires_at: null,
    });
  });

  it('refuses the old key once its expiry in the database has passed and the keys are reloaded', async () => {
    const project = await createProject();
    const rotated = (await rotate(project.id, { grace_hours: 720 }).expect(200)).body as ProjectView;
    expect(Date.parse(rotated.previous_client_key_expires_at!) - Date.now()).toBeGreaterThan(719 * HOUR_MS);
    expect(await ingest(project.dsn)).toBe(200);
    await db.query(
      `UPDATE projects SET previous_client_key_expires_at = now() - interval '1 minute' WHERE id = $1`,
      [project.id],
    );
    await t.app.get(ProjectKeys).refresh();
    expect(await ingest(project.dsn)).toBe(401);
    expect(await ingest(rotated.dsn)).toBe(200);
  });

  it('keeps only the key the latest rotation replaced', async () => {
    const first = await createProject();
    const second = (await rotate(first.id, { grace_hours: 24 }).expect(200)).body as ProjectView;
    const third = (await rotate(first.id, { grace_hours: 2 }).expect(200)).body as ProjectView;
    expect(third.previous_dsn).toBe(second.dsn);
    expect(Date.parse(third.previous_client_key_expires_at!) - Date.now()).toBeLessThanOrEqual(2 * HOUR_MS);
    expect(await ingest(first.dsn)).toBe(401);
    expect(await ingest(second.dsn)).toBe(200);
    expect(await ingest(third.dsn)).toBe(200);
  });

  it('lets another instance accept the new key within a second', async () => {
    const other = await startTestApp({ APP_ROLE: 'api', PUBLIC_URL });
    try {
      const project = await createProject();
      const rotated = (await rotate(project.id).expect(200)).body as ProjectView;
      const { key } = partsOf(rotated.dsn);
      const status = await other
        .http()
        .post(`/api/${project.id}/store/`)
        .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${key}`)
        .send({ event_id: randomUUID().replace(/-/g, ''), message: 'from another instance' });
      expect(status.status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it.each([
    [{ grace_hours: -1 }],
    [{ grace_hours: 721 }],
    [{ grace_hours: 1.5 }],
    [{ grace_hours: '24' }],
    [{ grace_hours: null }],
    [{ grace_hours: true }],
  ])('refuses %j with 400', async (body) => {
    const project = await createProject();
    await rotate(project.id, body).expect(400, { error: 'grace_hours must be an integer from 0 to 720' });
    // Nothing changed.
    await t.api().get(`/api/projects/${project.id}`).expect(200, project);
  });

  it('refuses unknown fields, unknown projects, bad ids and requests without a token', async () => {
    const project = await createProject();
    await rotate(project.id, { grace_hours: 1, client_key: 'mine' }).expect(400, {
      error: 'property client_key should not exist',
    });
    await rotate(99_999_999, { grace_hours: 1 }).expect(404, { error: 'project not found' });
    await t.api().post('/api/projects/abc/client-key/rotate').send({}).expect(400, {
      error: 'id must be a positive integer',
    });
    await t.http().post(`/api/projects/${project.id}/client-key/rotate`).send({}).expect(401);
    await t.api().get(`/api/projects/${project.id}`).expect(200, project);
  });
});
