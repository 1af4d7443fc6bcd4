/**
 * What attachments sent with a public DSN can make the server keep: the project's quota (on by
 * default) holds when many envelopes arrive at once, and files whose event is never stored are
 * swept once the digest has had time to store it. Real HTTP ingest, PostgreSQL storage and the
 * real retention run.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../src/config/app-config';
import { RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';
import {
  attachment,
  createProject,
  envelope,
  eventItem,
  hex,
  listAttachments,
  sendEnvelope,
  storedFor,
} from './helpers/attachments';
import { eventually, storedEvent } from './helpers/queues';
import { startProxy } from './helpers/tcp-proxy';
import { TEST_REDIS_URL } from './helpers/test-env';

jest.setTimeout(180_000);

async function storedBytes(db: DataSource, projectId: number): Promise<number> {
  const [row]: { bytes: number }[] = await db.query(
    'SELECT coalesce(sum(size), 0)::float8 AS bytes FROM attachments WHERE project_id = $1',
    [projectId],
  );
  return row.bytes;
}

describe('attachment quota', () => {
  it('is on by default', async () => {
    const t = await startTestApp();
    try {
      expect(t.app.get(AppConfig).ATTACHMENT_QUOTA_BYTES_PER_PROJECT).toBe(1024 * 1024 * 1024);
    } finally {
      await t.close();
    }
  });

  describe('under concurrency', () => {
    let t: TestApp;
    let db: DataSource;
    const quota = 250_000;
    const fileBytes = 40_000;

    beforeAll(async () => {
      t = await startTestApp({ ATTACHMENT_QUOTA_BYTES_PER_PROJECT: String(quota) });
      db = t.app.get(DataSource);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('never stores more than the quota, whatever the number of envelopes sent at once', async () => {
      const project = await createProject(t);
      const sent = 24;
      const answers = await Promise.all(
        Array.from({ length: sent }, (_, i) => {
          const eventId = randomUUID();
          return sendEnvelope(
            t,
            project,
            envelope({ event_id: hex(eventId) }, [attachment(`f${i}.bin`, randomBytes(fileBytes))]),
          );
        }),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status !== 200 && status !== 413)).toEqual([]);
      const accepted = statuses.filter((status) => status === 200).length;
      expect(accepted).toBeGreaterThan(0);
      expect(accepted * fileBytes).toBeLessThanOrEqual(quota);
      expect(await storedBytes(db, project.id)).toBe(accepted * fileBytes);
      expect(await storedBytes(db, project.id)).toBeLessThanOrEqual(quota);
      for (const answer of answers.filter((a) => a.status === 413)) {
        expect(answer.body).toEqual({
          error: `attachments would pass the project's quota of ${quota} bytes (ATTACHMENT_QUOTA_BYTES_PER_PROJECT)`,
        });
      }
      // What the refused envelopes wrote is gone: one chunk per stored file, nothing pending.
      expect(await storedFor(db, project.id)).toEqual({ rows: accepted, chunks: accepted, pending: 0 });
    });
  });
});

describe('attachments whose event is never stored', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are swept after the grace period; those of stored events, and recent ones, stay', async () => {
    const project = await createProject(t);
    const stored = randomUUID();
    const unknown = randomUUID();
    const recent = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(stored) }, [eventItem(stored), attachment('kept.txt', 'of a stored event')]),
    ).expect(200);
    // Attachments alone, naming an event that never comes.
    for (const eventId of [unknown, recent]) {
      await sendEnvelope(
        t,
        project,
        envelope({ event_id: hex(eventId) }, [attachment('orphan.bin', randomBytes(30_000))]),
      ).expect(200);
    }
    // A feedback's screenshot is stored under the feedback's own id, which no event has.
    const feedback = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(feedback) }, [
        {
          header: { type: 'feedback' },
          payload: JSON.stringify({
            event_id: hex(feedback),
            type: 'feedback',
            level: 'info',
            contexts: { feedback: { message: 'the page is blank' } },
          }),
        },
        attachment('screenshot.png', 'pixels'),
      ]),
    ).expect(200);
    await storedEvent(t, stored, 30_000);
    await eventually(
      async () =>
        (
          await db.query('SELECT 1 FROM feedback WHERE project_id = $1 AND event_id = $2', [
            project.id,
            feedback,
          ])
        ).length === 1,
      30_000,
    );
    // Two days old: past the grace period the digest has to store their event.
    await db.query(
      `UPDATE attachments SET received_at = now() - interval '2 days' WHERE project_id = $1 AND event_id <> $2`,
      [project.id, recent],
    );

    await t.app.get(RetentionService).run();

    expect((await listAttachments(t, project, stored)).map((file) => file.name)).toEqual(['kept.txt']);
    expect(await listAttachments(t, project, unknown)).toEqual([]);
    expect((await listAttachments(t, project, recent)).map((file) => file.name)).toEqual(['orphan.bin']);
    expect(
      await db.query('SELECT name FROM attachments WHERE project_id = $1 AND event_id = $2', [
        project.id,
        feedback,
      ]),
    ).toEqual([{ name: 'screenshot.png' }]);
    // Their blobs are gone too: three files left, one chunk each, nothing pending.
    expect(await storedFor(db, project.id)).toEqual({ rows: 3, chunks: 3, pending: 0 });
  });
});

describe('attachments of an event the queue refuses', () => {
  it('are not kept when the answer is 503: the SDK sends them again with its retry', async () => {
    const redisPort = Number(new URL(TEST_REDIS_URL).port || 6379);
    const proxy = await startProxy(redisPort);
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, APP_ROLE: 'api' });
    try {
      const db = t.app.get(DataSource);
      const project = await createProject(t);
      const eventId = randomUUID();
      const body = envelope({ event_id: hex(eventId) }, [
        eventItem(eventId),
        attachment('log.txt', randomBytes(20_000)),
        attachment('state.json', '{"cart":3}', { content_type: 'application/json' }),
      ]);
      proxy.freeze();
      const refused = await sendEnvelope(t, project, body);
      expect(refused.status).toBe(503);
      // Recorded, then withdrawn when the event could not be queued: no row, each blob due for deletion.
      const stored = await storedFor(db, project.id);
      expect(stored.rows).toBe(0);
      expect(stored.pending).toBe(2);
      const due: { overdue: boolean }[] = await db.query(
        `SELECT delete_after <= now() AS overdue FROM pending_blobs WHERE key LIKE $1`,
        [`attachments/${project.id}/%`],
      );
      expect(due).toEqual([{ overdue: true }, { overdue: true }]);

      // The retry, once Redis answers, stores the event with its files.
      proxy.thaw();
      await eventually(async () => (await sendEnvelope(t, project, body)).status === 200, 30_000);
      expect((await listAttachments(t, project, eventId)).map((file) => file.name)).toEqual([
        'log.txt',
        'state.json',
      ]);
    } finally {
      proxy.thaw();
      await t.close();
      await proxy.cut();
    }
  });
});
