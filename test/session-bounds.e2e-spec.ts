/**
 * What sessions sent with a public DSN can make the server keep: the releases they create (capped
 * per project and hour, the sessions past the cap counted as outcomes) and the per-session state
 * in Redis (capped per project and hour). Sent through the real HTTP ingest, folded by the real
 * fold into PostgreSQL, read back through the API and from Redis.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { SessionFolder } from '../src/releases/health/session-folder';
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
