/**
 * What sessions sent with a public DSN can make the server keep: the releases they create (capped
 * per project and hour, the sessions past the cap counted as outcomes) and the per-session state
 * in Redis (at most a number of new sessions per project and hour, each for a day). Sent through the real HTTP ingest, folded by the real
 * fold into PostgreSQL, read back through the API and from Redis.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { SessionFolder } from '../src/releases/health/session-folder';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';
import { newSid, sessionEnvelope, sessionPayload, UpdateSpec } from './helpers/sessions';

interface Project {
  id: number;
  client_key: string;
}

const HOUR = 3_600_000;
const hex = (uuid: string) => uuid.replace(/-/g, '');
const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;

jest.setTimeout(120_000);

async function createProject(t: TestApp): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `bounds-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}

function sendUpdates(t: TestApp, project: Project, updates: UpdateSpec[]) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(sessionEnvelope(updates.map((u) => ({ type: 'session', payload: sessionPayload(u) }))));
}

function initUpdate(release: string, started: number, sid = newSid()): UpdateSpec {
  return {
    sid,
    init: true,
    started,
    timestamp: started,
    status: 'ok',
    attrs: { release, environment: 'production' },
  };
}

async function releaseNames(db: DataSource, project: Project): Promise<string[]> {
  const rows: { version: string }[] = await db.query(
    'SELECT version FROM releases WHERE project_id = $1 ORDER BY version',
    [project.id],
  );
  return rows.map((row) => row.version);
}

async function sessionsCounted(db: DataSource, project: Project): Promise<Map<string, number>> {
  const rows: { release: string; sessions: string }[] = await db.query(
    'SELECT release, sum(sessions) AS sessions FROM release_health_hourly WHERE project_id = $1 GROUP BY release',
    [project.id],
  );
  return new Map(rows.map((row) => [row.release, Number(row.sessions)]));
}

async function sessionOutcomes(t: TestApp, project: Project): Promise<string[]> {
  await t.app.get(OutcomeFolder).fold();
  const body = (await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200)).body as {
    totals: { outcome: string; category: string; reason: string; quantity: number }[];
  };
  return body.totals
    .filter((row) => row.category === 'session')
    .map(({ outcome, reason, quantity }) => `${outcome}:${reason}:${quantity}`)
    .sort();
}

describe('releases made from sessions', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ MAX_NEW_RELEASES_FROM_SESSIONS_PER_HOUR: '10' });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('makes at most the hourly cap of new releases; sessions past it are counted as outcomes, those of existing releases kept', async () => {
    const project = await createProject(t);
    const now = Date.now();
    const started = Math.max(hourOf(now), now - 60_000);
    // A release the project has before the flood: its sessions are never refused.
    await sendUpdates(t, project, [initUpdate('known@1.0.0', started)]).expect(200);
    await t.app.get(SessionFolder).fold();
    expect(await releaseNames(db, project)).toEqual(['known@1.0.0']);

    // One envelope of 100 sessions naming 100 releases, as anyone holding the DSN can send.
    const flood = Array.from({ length: 100 }, (_, i) => initUpdate(`flood@${i}.0.0`, started));
    await sendUpdates(t, project, flood).expect(200);
    await t.app.get(SessionFolder).fold();
    // A second envelope: the cap is per hour, not per fold; the known release is unaffected.
    const more = Array.from({ length: 20 }, (_, i) => initUpdate(`more@${i}.0.0`, started));
    await sendUpdates(t, project, [...more, initUpdate('known@1.0.0', started)]).expect(200);
    await t.app.get(SessionFolder).fold();

    const names = await releaseNames(db, project);
    expect(names).toContain('known@1.0.0');
    // The known release was made from sessions this hour too: it took one of the 10.
    expect(names).toHaveLength(10);
    const counted = await sessionsCounted(db, project);
    expect(counted.get('known@1.0.0')).toBe(2);
    // Counts only for releases that exist: nothing is kept for a release the cap refused.
    expect([...counted.keys()].sort()).toEqual(names);
    expect([...counted.values()].reduce((a, b) => a + b, 0)).toBe(2 + 9);
    expect(await sessionOutcomes(t, project)).toEqual([`rate_limited:release_limit:${100 - 9 + 20}`]);

    // Another project has its own cap.
    const other = await createProject(t);
    await sendUpdates(t, other, [initUpdate('flood@0.0.0', started)]).expect(200);
    await t.app.get(SessionFolder).fold();
    expect(await releaseNames(db, other)).toEqual(['flood@0.0.0']);
  });
});

describe('sessions tracked in Redis', () => {
  let t: TestApp;
  let db: DataSource;
  let redis: RedisClient;

  beforeAll(async () => {
    t = await startTestApp({ MAX_TRACKED_SESSIONS_PER_HOUR: '5' });
    db = t.app.get(DataSource);
    redis = t.app.get<RedisClient>(REDIS);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function stateKeys(project: Project): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(
        cursor,
        'MATCH',
        `${t.config.REDIS_PREFIX}:{sessions}:s:${project.id}:*`,
        'COUNT',
        1000,
      );
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    return keys;
  }

  async function figures(project: Project) {
    const [row]: { sessions: number; errored: number; crashed: number }[] = await db.query(
      `SELECT coalesce(sum(sessions), 0)::int AS sessions, coalesce(sum(errored), 0)::int AS errored,
              coalesce(sum(crashed), 0)::int AS crashed
         FROM release_health_hourly WHERE project_id = $1`,
      [project.id],
    );
    return row;
  }

  it('keeps the state of at most the hourly cap of new sessions per project, for a day; the others are counted without it', async () => {
    const project = await createProject(t);
    const now = Date.now();
    const started = Math.max(hourOf(now), now - 60_000);
    const release = 'app@1.0.0';
    const inits = Array.from({ length: 20 }, () => initUpdate(release, started));
    await sendUpdates(t, project, inits).expect(200);

    const keys = await stateKeys(project);
    expect(keys).toHaveLength(5);
    for (const key of keys) {
      // An open session is tracked until a day after the hour it started, not five.
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(25 * HOUR);
    }
    await t.app.get(SessionFolder).fold();
    // Every session is counted, tracked or not (by its init update, as Relay counts).
    expect(await figures(project)).toEqual({ sessions: 20, errored: 0, crashed: 0 });

    // An error in each: only a tracked session can be moved to errored (counted once); the update
    // of an untracked one is dropped and counted as an outcome.
    const errors = inits.map((u) => ({ ...u, init: false, timestamp: started + 1_000, errors: 1 }));
    await sendUpdates(t, project, errors).expect(200);
    await t.app.get(SessionFolder).fold();
    expect(await figures(project)).toEqual({ sessions: 20, errored: 5, crashed: 0 });
    expect(await sessionOutcomes(t, project)).toEqual(['rate_limited:untracked_session:15']);

    // Each ends in a crash: an update that ends a session counts its final class, tracked or not.
    const crashes = inits.map((u) => ({
      ...u,
      init: false,
      timestamp: started + 2_000,
      errors: 1,
      status: 'crashed' as const,
    }));
    await sendUpdates(t, project, crashes).expect(200);
    await t.app.get(SessionFolder).fold();
    expect(await figures(project)).toEqual({ sessions: 20, errored: 0, crashed: 20 });
    expect(await stateKeys(project)).toHaveLength(5);

    // The cap is per project: another project tracks its own.
    const other = await createProject(t);
    await sendUpdates(t, other, [initUpdate(release, started)]).expect(200);
    expect(await stateKeys(other)).toHaveLength(1);
  });
});
