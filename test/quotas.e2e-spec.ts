/**
 * Quotas end to end, through the real HTTP ingest and Redis, with the injectable clock (Clock)
 * moved by the test: a daily and a monthly quota refusing with 429, Retry-After until the period
 * ends and an `X-Sentry-Rate-Limits` entry with the reason, counted as `rate_limited` outcomes with
 * that reason, and accepting again once the period ends; two API instances sharing the count; a
 * Redis that errors or hangs failing open with a warning; the settings API and its bad input.
 */
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { OutcomeCounter } from '../src/outcomes/outcome-counter';
import { LimitKeys } from '../src/limits/limit-keys';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { createQuotaProject as createProject, QuotaProject, sendEvent, setClock } from './helpers/quotas';
import { startProxy } from './helpers/tcp-proxy';
import { TEST_REDIS_URL } from './helpers/test-env';

/** Every category but sessions and check-ins, which have limits of their own. */
const EVENT_CATEGORIES =
  'default;error;security;attachment;transaction;span;profile;profile_chunk;replay;feedback;log_item;metric_bucket';

function outcomeTotal(t: TestApp, reason: string): number {
  return t.app.get(OutcomeCounter).totals().get(`rate_limited,error,${reason}`) ?? 0;
}

describe('quotas', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  it('refuses past the daily quota with 429, Retry-After until UTC midnight and the reason, and accepts the next day', async () => {
    const project = await createProject(t, { daily_quota: 3, spike_protection: false });
    setClock(t, Date.parse('2031-03-10T23:59:00Z'));
    for (let i = 0; i < 3; i++) await sendEvent(t, project).expect(200);
    const before = outcomeTotal(t, 'daily_quota');

    const refused = await sendEvent(t, project).expect(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['x-sentry-rate-limits']).toBe(`60:${EVENT_CATEGORIES}:project:daily_quota`);
    expect(refused.body.error).toContain('daily event quota');
    expect(outcomeTotal(t, 'daily_quota')).toBe(before + 1);

    const usage = (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body;
    expect(usage).toMatchObject({ daily_quota: 3, monthly_quota: null, spike_protection: false });
    expect(usage.usage).toMatchObject({ today: 3, this_month: 3 });

    setClock(t, Date.parse('2031-03-11T00:00:01Z'));
    await sendEvent(t, project).expect(200);
    expect((await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body.usage.today).toBe(1);
  });

  it('refuses past the monthly quota until the first of the next month', async () => {
    const project = await createProject(t, { monthly_quota: 4, spike_protection: false });
    setClock(t, Date.parse('2031-01-30T10:00:00Z'));
    await sendEvent(t, project).expect(200);
    await sendEvent(t, project).expect(200);
    setClock(t, Date.parse('2031-01-31T22:00:00Z'));
    await sendEvent(t, project).expect(200);
    await sendEvent(t, project).expect(200);
    const refused = await sendEvent(t, project).expect(429);
    expect(refused.headers['retry-after']).toBe(String(2 * 3600));
    expect(refused.headers['x-sentry-rate-limits']).toBe(
      `${2 * 3600}:${EVENT_CATEGORIES}:project:monthly_quota`,
    );

    setClock(t, Date.parse('2031-02-01T00:00:00Z'));
    await sendEvent(t, project).expect(200);
  });

  it('applies a changed quota at once, and a quota of null removes it', async () => {
    const project = await createProject(t, { daily_quota: 0, spike_protection: false });
    setClock(t, Date.parse('2031-04-02T12:00:00Z'));
    await sendEvent(t, project).expect(429);
    await t.api().patch(`/api/projects/${project.id}/quotas`).send({ daily_quota: null }).expect(200);
    await sendEvent(t, project).expect(200);
  });

  it('shares the count between two API instances on the same Redis', async () => {
    const other = await startTestApp({
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
    try {
      const project = await createProject(t, { daily_quota: 4, spike_protection: false });
      const at = Date.parse('2031-05-05T08:00:00Z');
      setClock(t, at);
      setClock(other, at);
      await sendEvent(t, project).expect(200);
      await sendEvent(other, project).expect(200);
      await sendEvent(t, project).expect(200);
      await sendEvent(other, project).expect(200);
      await sendEvent(other, project).expect(429);
      await sendEvent(t, project).expect(429);
    } finally {
      await other.close();
    }
  });

  it('fails open with a warning when Redis answers the check with an error', async () => {
    const project = await createProject(t, { daily_quota: 0, spike_protection: false });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const redis = t.app.get<RedisClient>(REDIS);
    const limits = new LimitKeys(t.config.REDIS_PREFIX).limits(project.id);
    // A key of the wrong type: the script's HMGET fails (WRONGTYPE) as a broken Redis would.
    await redis.del(limits);
    await redis.set(limits, 'not a hash');
    try {
      await sendEvent(t, project).expect(200);
      expect(warn.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(
        /event limits not checked, events accepted uncounted: Redis failed/,
      );
    } finally {
      await redis.del(limits);
      warn.mockRestore();
    }
  });

  it('fails open when Redis does not answer within EVENT_LIMITS_TIMEOUT_MS, never answering 5xx for it', async () => {
    const proxy = await startProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
    const slow = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      EVENT_LIMITS_TIMEOUT_MS: '100',
      APP_ROLE: 'api',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const project = await createProject(slow, { daily_quota: 0, spike_protection: false });
      await sendEvent(slow, project).expect(429);
      proxy.freeze();
      const answer = sendEvent(slow, project).then((response) => response);
      // The check gives up after 100 ms; the queue then waits for Redis, which comes back.
      await eventually(async () =>
        warn.mock.calls.some((call) => /event limits not checked/.test(String(call[0]))),
      );
      proxy.thaw();
      expect((await answer).status).toBe(200);
    } finally {
      proxy.thaw();
      warn.mockRestore();
      await slow.close();
      await proxy.cut();
    }
  });

  it('serves and changes the settings, audited, refusing bad input with the reason', async () => {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Quota settings ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as QuotaProject;
    const path = `/api/projects/${project.id}/quotas`;
    expect((await t.api().get(path).expect(200)).body).toMatchObject({
      project_id: project.id,
      daily_quota: null,
      monthly_quota: null,
      spike_protection: true,
      updated_at: null,
      current_spike: null,
      recent_spikes: [],
    });
    await t
      .api()
      .patch(path)
      .send({ daily_quota: -1 })
      .expect(400, { error: 'daily_quota must not be below 0' });
    await t
      .api()
      .patch(path)
      .send({ monthly_quota: 2.5 })
      .expect(400, { error: 'monthly_quota must be an integer (or null for no quota)' });
    await t.api().patch(path).send({ daily_quota: '100' }).expect(400);
    await t.api().patch(path).send({ daily_quota: 3_000_000_000 }).expect(400);
    await t
      .api()
      .patch(path)
      .send({ spike_protection: 'off' })
      .expect(400, { error: 'spike_protection must be true or false' });
    await t.api().patch(path).send({ weekly_quota: 5 }).expect(400);
    await t.api().patch('/api/projects/999999999/quotas').send({ daily_quota: 5 }).expect(404);

    const changed = await t.api().patch(path).send({ daily_quota: 1000, monthly_quota: 20_000 }).expect(200);
    expect(changed.body).toMatchObject({ daily_quota: 1000, monthly_quota: 20_000, spike_protection: true });
    const partly = await t.api().patch(path).send({ spike_protection: false }).expect(200);
    expect(partly.body).toMatchObject({ daily_quota: 1000, monthly_quota: 20_000, spike_protection: false });

    const audit = await t.api().get('/api/audit-log').query({ action: 'project.quotas_update' }).expect(200);
    expect(JSON.stringify(audit.body)).toContain('20000');
  });
});
