import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { fixtureEvent } from './fixtures/fixtures';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

/** How events are laid out in PostgreSQL: what an issue's events share is stored once. */
describe('event storage', () => {
  let t: TestApp;
  let digest: Queue;
  let db: DataSource;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    db = t.app.get(DataSource);
    projectId = (await t.api().post('/api/projects').send({ name: 'Storage' }).expect(201)).body.id;
  });
  afterAll(async () => {
    await digest.close();
    await t.close();
  });

  async function digestAll(events: Record<string, unknown>[]): Promise<string[]> {
    const ids: string[] = [];
    for (const event of events) ids.push(await enqueueEvent(digest, projectId, event));
    await eventually(async () => {
      const [{ n }] = await db.query('SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[])', [
        ids,
      ]);
      return n === ids.length;
    });
    return ids;
  }

  it('stores the stack trace and SDK an issue’s events share once, and serves every event whole', async () => {
    const sent: Record<string, unknown>[] = Array.from({ length: 5 }, (_, index) => ({
      ...fixtureEvent('exception-event'),
      event_id: undefined,
      message: undefined,
      extra: { attempt: index },
    }));
    const ids = await digestAll(sent);
    const [{ issue_id: issueId }] = await db.query('SELECT issue_id FROM events WHERE id = $1', [ids[0]]);
    const parts: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM event_parts WHERE issue_id = $1',
      [issueId],
    );
    const exceptions = (sent[0].exception as { values: unknown[] }).values.length;
    // One part per exception's stack trace plus one for the SDK, not one per event.
    expect(parts[0].n).toBe(exceptions + 1);
    const [stored] = await db.query(`SELECT payload FROM events WHERE id = $1`, [ids[0]]);
    expect(JSON.stringify(stored.payload)).not.toContain('"frames"');

    for (const [index, id] of ids.entries()) {
      const event = (await t.api().get(`/api/events/${id}`).expect(200)).body;
      const frames = (values: unknown) =>
        (values as { stacktrace?: { frames: { function?: string; lineno?: number }[] } }[]).map((value) =>
          value.stacktrace?.frames.map((frame) => [frame.function ?? null, frame.lineno ?? null]),
        );
      expect(frames(event.exception.values)).toEqual(
        frames((sent[index].exception as { values: unknown[] }).values),
      );
      expect(event.sdk.name).toBe((sent[index].sdk as { name: string }).name);
      expect(event.extra).toEqual({ attempt: index });
    }
  });

  it('removes an issue’s shared parts with the issue', async () => {
    const [id] = await digestAll([
      { ...fixtureEvent('exception-event'), event_id: undefined, fingerprint: [randomUUID()] },
    ]);
    const [{ issue_id: issueId }] = await db.query('SELECT issue_id FROM events WHERE id = $1', [id]);
    const count = async () =>
      (await db.query('SELECT count(*)::int AS n FROM event_parts WHERE issue_id = $1', [issueId]))[0]
        .n as number;
    expect(await count()).toBeGreaterThan(0);
    await t.api().delete(`/api/issues/${issueId}`).expect(204);
    expect(await count()).toBe(0);
  });

  it('writes a batch’s events before their parts, the order in which a partition drop locks the two tables', async () => {
    // Fails any transaction that writes event_parts before it has written to events: a digest batch
    // in the other order deadlocks with retention's DROP TABLE events_p…, event_parts_p….
    await db.query(`
      CREATE FUNCTION storage_test_parts_after_events() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'
                          AND relation = 'events'::regclass AND mode = 'RowExclusiveLock') THEN
          RAISE EXCEPTION 'event_parts written before events';
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER storage_test_parts_after_events BEFORE INSERT ON event_parts
        FOR EACH STATEMENT EXECUTE FUNCTION storage_test_parts_after_events();`);
    try {
      const [id] = await digestAll([
        { ...fixtureEvent('exception-event'), event_id: undefined, fingerprint: [randomUUID()] },
      ]);
      const [{ issue_id: issueId }] = await db.query('SELECT issue_id FROM events WHERE id = $1', [id]);
      const [{ n }] = await db.query('SELECT count(*)::int AS n FROM event_parts WHERE issue_id = $1', [
        issueId,
      ]);
      expect(n).toBeGreaterThan(0);
      expect(await digest.getFailedCount()).toBe(0);
    } finally {
      await db.query(
        'DROP TRIGGER storage_test_parts_after_events ON event_parts; DROP FUNCTION storage_test_parts_after_events()',
      );
    }
  });
});
