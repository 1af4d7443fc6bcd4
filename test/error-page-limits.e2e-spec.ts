/**
 * The crash-report dialog's form (`POST /api/embed/error-page/`) under the project's limits, as an
 * envelope of feedback: refused with 429 past the event rate limits, quotas and spike protection
 * (with the rate limits on or off), counting nothing against them once taken, and failing open
 * with a warning when Redis errors, never with a 5xx of its own. Real HTTP, Redis and PostgreSQL.
 */
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LimitKeys } from '../src/limits/limit-keys';
import { REDIS, RedisClient } from '../src/redis/redis.module';
import { startTestApp, TestApp } from './helpers/app';
import { hex } from './helpers/projects';
import { createQuotaProject, QuotaProject } from './helpers/quotas';

const RATE_LIMITS_OFF = { MAX_EVENTS_PER_MINUTE: '0', MAX_EVENTS_PER_HOUR: '0' };

describe.each([
  ['with the rate limits on', {}],
  ['with the rate limits off', RATE_LIMITS_OFF],
])('crash-report dialog limits %s', (_name, limits) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(limits);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  const submit = (project: QuotaProject) =>
    t
      .http()
      .post(
        `/api/embed/error-page/?dsn=${encodeURIComponent(
          `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`,
        )}&eventId=${hex(randomUUID())}`,
      )
      .type('form')
      .send({ name: 'Dialog User', email: 'dialog@example.com', comments: 'it broke' });

  const usage = async (project: QuotaProject) =>
    (await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body.usage.today as number;

  it('refuses a report past the daily quota with 429 and the reason', async () => {
    const project = await createQuotaProject(t, { daily_quota: 0, spike_protection: false });
    const refused = await submit(project).expect(429);
    expect(refused.body.error).toContain('daily event quota');
    expect(refused.headers['x-sentry-rate-limits']).toMatch(/:project:daily_quota$/);
  });

  it('takes a report within the quota without using it up', async () => {
    const project = await createQuotaProject(t, { daily_quota: 2, spike_protection: false });
    for (let i = 0; i < 3; i++) await submit(project).expect(200);
    expect(await usage(project)).toBe(0);
  });

  it('takes the report with a warning when Redis answers the check with an error', async () => {
    const project = await createQuotaProject(t, { daily_quota: 0, spike_protection: false });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const redis = t.app.get<RedisClient>(REDIS);
    const limits = new LimitKeys(t.config.REDIS_PREFIX).limits(project.id);
    // A key of the wrong type: the limits script fails (WRONGTYPE) as a broken Redis would.
    await redis.del(limits);
    await redis.set(limits, 'not a hash');
    try {
      await submit(project).expect(200);
      expect(warn.mock.calls.map((call) => String(call[0])).join('\n')).toMatch(
        /event limits not checked, events accepted uncounted: Redis failed/,
      );
    } finally {
      await redis.del(limits);
      warn.mockRestore();
    }
  });
});
