/**
 * The daily session quota end to end, through the real HTTP ingest and Redis: a project with a
 * quota of N session items per UTC day accepts N, then refuses a sessions-only envelope with 429,
 * Retry-After until the UTC day ends and an `X-Sentry-Rate-Limits` entry naming the `session`
 * category and the reason; beside an event, the sessions are dropped and counted as outcomes while
 * the event is kept; the quotas API shows the setting and the sessions accepted today; another
 * project is unaffected.
 */
import { randomUUID } from 'node:crypto';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { startTestApp, TestApp } from './helpers/app';
import { createProject, hex, Project } from './helpers/projects';
import { storedEvent } from './helpers/queues';
import { newSid, sessionEnvelope, sessionPayload, UpdateSpec } from './helpers/sessions';

const DAY_MS = 86_400_000;

function session(): UpdateSpec {
  return {
    sid: newSid(),
    init: true,
    started: Date.now(),
    timestamp: Date.now(),
    status: 'ok',
    attrs: { release: 'quota@1' },
  };
}

function send(t: TestApp, project: Project, body: string) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('text/plain')
    .send(body);
}

function sendSessions(t: TestApp, project: Project, count: number) {
  const items = Array.from({ length: count }, () => ({
    type: 'session' as const,
    payload: sessionPayload(session()),
  }));
  return send(t, project, sessionEnvelope(items));
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

async function quotas(t: TestApp, project: Project) {
  return (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body as {
    daily_session_quota: number | null;
    usage: { sessions_today: number; today: number } | null;
  };
}

describe('daily session quota', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
      MAX_SESSIONS_PER_MINUTE: '0',
      MAX_SESSIONS_PER_HOUR: '0',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('accepts N session items a day, then refuses sessions alone and drops those beside an event', async () => {
    const project = await createProject(t, 'SessionQuota');
    const other = await createProject(t, 'NoSessionQuota');
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ daily_session_quota: 3 }).expect(200);
    expect(await quotas(t, project)).toMatchObject({ daily_session_quota: 3, usage: { sessions_today: 0 } });

    await sendSessions(t, project, 2).expect(200);
    await sendSessions(t, project, 1).expect(200);

    const before = Date.now();
    const refused = await sendSessions(t, project, 1).expect(429);
    const after = Date.now();
    const seconds = Number(refused.headers['retry-after']);
    // Until the end of the UTC day the request was answered in.
    const dayEnd = (at: number) => at - (at % DAY_MS) + DAY_MS;
    expect(seconds).toBeGreaterThanOrEqual(Math.floor((dayEnd(after) - after) / 1000));
    expect(seconds).toBeLessThanOrEqual(Math.ceil((dayEnd(before) - before) / 1000));
    expect(refused.headers['x-sentry-rate-limits']).toBe(`${seconds}:session:project:session_quota`);
    expect(refused.body.error).toContain('daily session quota');

    // Beside an event: the event is kept, the sessions dropped and counted.
    const eventId = hex(randomUUID());
    await send(
      t,
      project,
      sessionEnvelope([
        { type: 'event', payload: { event_id: eventId, message: 'beside sessions' } },
        { type: 'session', payload: sessionPayload(session()) },
        { type: 'session', payload: sessionPayload(session()) },
      ]),
    ).expect(200);
    expect((await storedEvent(t, eventId)).project_id).toBe(project.id);
    expect(await sessionOutcomes(t, project)).toEqual(['rate_limited:session_quota:3']);

    // Refused items do not count as accepted.
    expect(await quotas(t, project)).toMatchObject({ daily_session_quota: 3, usage: { sessions_today: 3 } });

    // Another project has no session quota.
    await sendSessions(t, other, 5).expect(200);
    expect(await quotas(t, other)).toMatchObject({ daily_session_quota: null, usage: { sessions_today: 5 } });
    expect(await sessionOutcomes(t, other)).toEqual([]);

    // A raised quota applies at once; null removes it.
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ daily_session_quota: 4 }).expect(200);
    await sendSessions(t, project, 1).expect(200);
    await sendSessions(t, project, 1).expect(429);
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ daily_session_quota: null }).expect(200);
    await sendSessions(t, project, 2).expect(200);
    expect(await quotas(t, project)).toMatchObject({ daily_session_quota: null, usage: { sessions_today: 6 } });
  });

  it('refuses a bad daily_session_quota with a clear 400', async () => {
    const project = await createProject(t, 'BadSessionQuota');
    for (const bad of [-1, 1.5, 'ten', 2_000_000_001]) {
      const response = await t
        .api()
        .patch(`/api/projects/${project.id}/quotas`)
        .send({ daily_session_quota: bad })
        .expect(400);
      expect(response.body.error).toContain('daily_session_quota');
    }
  });
});
