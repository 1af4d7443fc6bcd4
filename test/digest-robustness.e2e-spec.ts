/**
 * Whatever ingest accepts, the digest stores: generated hostile events go through the real worker
 * into PostgreSQL (queued directly, and over HTTP through the envelope endpoint), and every one must
 * end up as a row, with nothing in the failed set.
 */
import { Job, Queue } from 'bullmq';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { QueuedEvent, digestJobId, DigestJobName } from '../src/digest/digest-job';
import { MAX_EVENT_BYTES } from '../src/ingest/envelope-limits';
import { startTestApp, TestApp } from './helpers/app';
import { hostileEvent, toJsonText } from './helpers/hostile-events';
import { eventually, openQueue } from './helpers/queues';

const hexOf = (uuid: string) => uuid.replace(/-/g, '');
const EMOJI = '\ud83d\ude00';

describe('hostile events, stored by the real digest', () => {
  let t: TestApp;
  let queue: Queue<QueuedEvent>;
  let db: DataSource;
  let project: { id: number; client_key: string };

  beforeAll(async () => {
    t = await startTestApp();
    queue = openQueue(t, QueueName.Digest) as Queue<QueuedEvent>;
    db = t.app.get(DataSource);
    project = (await t.api().post('/api/projects').send({ name: 'Hostile' }).expect(201)).body;
  });
  afterAll(async () => {
    await queue.close();
    await t.close();
  });

  async function storedIds(ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await db.query(
      'SELECT id FROM events WHERE project_id = $1 AND id = ANY($2::uuid[])',
      [project.id, ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The failed jobs among `ids`, with why they failed and the start of their payload. */
  async function failures(ids: string[]): Promise<string[]> {
    const wanted = new Set(ids.map((id) => digestJobId(project.id, id)));
    const failed: Job<QueuedEvent>[] = await queue.getFailed(0, -1);
    return failed
      .filter((job) => job.id !== undefined && wanted.has(job.id))
      .map((job) => `${job.failedReason}: ${job.data.payload.slice(0, 300)}`);
  }

  /** Waits until every event is either stored or failed, then expects all of them stored. */
  async function expectAllStored(ids: string[], note: Record<string, unknown> = {}): Promise<void> {
    await eventually(async () => {
      const stored = await storedIds(ids);
      return stored.size + (await failures(ids)).length >= ids.length;
    }, 45_000);
    const stored = await storedIds(ids);
    expect({ ...note, failed: await failures(ids) }).toEqual({ ...note, failed: [] });
    expect(ids.filter((id) => !stored.has(id))).toEqual([]);
  }

  async function postEnvelope(payload: string, eventId = randomUUID()) {
    const itemHeader = JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) });
    const body = Buffer.from(`${JSON.stringify({ event_id: hexOf(eventId) })}\n${itemHeader}\n${payload}\n`);
    const response = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('X-Client-Auth', project.client_key)
      .set('Content-Type', 'application/x-sentry-envelope')
      .send(body);
    return { eventId, status: response.status, body: response.body as Record<string, unknown> };
  }

  it('stores an event whose logentry parameters hold NUL and a lone surrogate', async () => {
    const payload = JSON.stringify({
      logentry: { message: 'user %s sent %s', params: ['ann\u0000', 'x\ud800'] },
    });
    const sent = await postEnvelope(payload);
    expect(sent.status).toBe(200);
    await expectAllStored([sent.eventId]);
    const event = await t.api().get(`/api/events/${sent.eventId}`).expect(200);
    expect(event.body.message).toBe('user ann sent x\ufffd');
  });

  it('stores an event whose message and culprit are cut inside a surrogate pair', async () => {
    const payload = JSON.stringify({
      exception: {
        values: [
          {
            type: 'Error',
            value: `${'x'.repeat(999)}${EMOJI}`,
            stacktrace: { frames: [{ module: 'm'.repeat(507), function: `${EMOJI}f`, in_app: true }] },
          },
        ],
      },
    });
    const sent = await postEnvelope(payload);
    expect(sent.status).toBe(200);
    await expectAllStored([sent.eventId]);
  });

  it('stores events whose values String() and JSON.stringify() choke on', async () => {
    const payloads = [`{"fingerprint":[{"toString":1}]}`, `{"user":{"id":{"toString":1}}}`];
    const sent = await Promise.all(payloads.map((payload) => postEnvelope(payload)));
    expect(sent.map((response) => response.status)).toEqual(payloads.map(() => 200));
    await expectAllStored(sent.map((response) => response.eventId));

    // Ingest refuses nesting this deep (400), but jobs queued before it did must still be stored.
    const deep = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
    const deepPayloads = [`{"tags":{"deep":${deep}}}`, `{"logentry":{"message":"%s","params":[${deep}]}}`];
    const refused = await postEnvelope(deepPayloads[0]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/nested deeper than/);
    const ids = deepPayloads.map(() => randomUUID());
    await queue.addBulk(
      deepPayloads.map((payload, index) => ({
        name: DigestJobName.Event,
        data: { projectId: project.id, eventId: ids[index], receivedAt: Date.now(), payload },
        opts: { jobId: digestJobId(project.id, ids[index]), removeOnComplete: true, attempts: 1 },
      })),
    );
    await expectAllStored(ids);
  });

  it('stores every one of a few hundred generated events', async () => {
    const seed = Date.now() ^ (Math.random() * 0x7fffffff);
    const texts = fc
      .sample(hostileEvent, { numRuns: 300, seed })
      .map((event) => toJsonText(event))
      .filter((text) => Buffer.byteLength(text) <= MAX_EVENT_BYTES);
    const ids = texts.map(() => randomUUID());
    await queue.addBulk(
      texts.map((payload, index) => ({
        name: DigestJobName.Event,
        data: { projectId: project.id, eventId: ids[index], receivedAt: Date.now(), payload },
        opts: { jobId: digestJobId(project.id, ids[index]), removeOnComplete: true, attempts: 1 },
      })),
    );
    await expectAllStored(ids, { seed });
    // Served back by the API as well: jsonb round-trips into JSON.
    for (const id of ids.slice(0, 20)) await t.api().get(`/api/events/${id}`).expect(200);
  });

  it('stores every generated event that the envelope endpoint answered 200', async () => {
    const seed = Date.now() ^ (Math.random() * 0x7fffffff);
    const texts = fc.sample(hostileEvent, { numRuns: 60, seed }).map((event) => toJsonText(event));
    const accepted: string[] = [];
    for (const text of texts) {
      const sent = await postEnvelope(text);
      if (sent.status === 200) accepted.push(sent.eventId);
      else if (sent.status === 400)
        expect({ seed, error: sent.body.error }).toMatchObject({
          error: expect.stringMatching(/nested deeper than/),
        });
      else
        expect({ seed, status: sent.status, size: Buffer.byteLength(text) }).toMatchObject({ status: 413 });
    }
    expect(accepted.length).toBeGreaterThan(0);
    await expectAllStored(accepted, { seed });
  });
});
