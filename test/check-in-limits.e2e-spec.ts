/**
 * The check-in limit (category `monitor`), end to end: counted on the check-in URL and in envelopes,
 * per project and minute (MAX_CHECK_INS_PER_MINUTE), apart from the event limits. Past it the URL
 * and an envelope of check-ins alone answer 429 with `X-Sentry-Rate-Limits` naming `monitor`;
 * beside other items the check-ins past it are dropped; every dropped check-in is a `rate_limited`
 * outcome of category `monitor`. The app's clock is pinned so that the test stays in one minute.
 */
import { randomUUID } from 'node:crypto';
import { OutcomeCounter } from '../src/outcomes/outcome-counter';
import { startTestApp, TestApp } from './helpers/app';
import { createProject, hex, Project } from './helpers/projects';
import { setClock } from './helpers/quotas';

const LIMIT = 3;

describe('check-in limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MAX_CHECK_INS_PER_MINUTE: String(LIMIT) });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  const rateLimited = () => t.app.get(OutcomeCounter).totals().get('rate_limited,monitor,rate_limit') ?? 0;
  const cronUrl = (project: Project, slug: string) =>
    `/api/${project.id}/cron/${slug}/${hex(project.client_key)}/`;
  const checkIn = (slug: string) => [
    JSON.stringify({ type: 'check_in' }),
    JSON.stringify({ check_in_id: hex(randomUUID()), monitor_slug: slug, status: 'ok' }),
  ];
  const event = () => [
    JSON.stringify({ type: 'event' }),
    JSON.stringify({ event_id: hex(randomUUID()), message: 'beside check-ins' }),
  ];
  const sendEnvelope = (project: Project, lines: string[][]) =>
    t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send(['{}', ...lines.flat()].join('\n'));

  it('refuses the check-in URL past the limit with 429 naming `monitor`, and accepts again the next minute', async () => {
    const project = await createProject(t, 'Cron limit');
    setClock(t, Date.parse('2031-06-01T10:00:05Z'));
    for (let i = 0; i < LIMIT; i++)
      await t
        .http()
        .get(`${cronUrl(project, 'nightly')}?status=ok`)
        .expect(202);
    const before = rateLimited();

    const refused = await t
      .http()
      .get(`${cronUrl(project, 'other-job')}?status=ok`)
      .expect(429);
    expect(refused.headers['retry-after']).toBe('55');
    expect(refused.headers['x-sentry-rate-limits']).toBe('55:monitor:project');
    expect(refused.body.error).toMatch(/more than 3 check-ins per minute/);
    expect(rateLimited()).toBe(before + 1);

    setClock(t, Date.parse('2031-06-01T10:01:00Z'));
    await t.http().post(cronUrl(project, 'nightly')).send({ status: 'ok' }).expect(202);
  });

  it('counts check-ins in envelopes: drops those past the limit, and refuses an envelope of check-ins alone', async () => {
    const project = await createProject(t, 'Envelope check-in limit');
    setClock(t, Date.parse('2031-06-01T11:00:30Z'));
    const before = rateLimited();

    // Four check-ins, three within the limit: kept, the fourth dropped and counted.
    await sendEnvelope(project, [checkIn('a'), checkIn('b'), checkIn('c'), checkIn('d')]).expect(200);
    expect(rateLimited()).toBe(before + 1);

    const refused = await sendEnvelope(project, [checkIn('a'), checkIn('b')]).expect(429);
    expect(refused.headers['x-sentry-rate-limits']).toBe('30:monitor:project');
    expect(rateLimited()).toBe(before + 3);

    // Beside an event: the event is accepted, the check-ins dropped and counted.
    const withEvent = await sendEnvelope(project, [event(), checkIn('a'), checkIn('b')]).expect(200);
    expect(withEvent.body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(rateLimited()).toBe(before + 5);

    // The URL shares the project's count.
    await t
      .http()
      .get(`${cronUrl(project, 'a')}?status=ok`)
      .expect(429);
  });

  it('does not count refused check-ins: a bad check-in on the URL leaves the allowance whole', async () => {
    const project = await createProject(t, 'Bad check-ins');
    setClock(t, Date.parse('2031-06-01T12:00:00Z'));
    for (let i = 0; i < 5; i++) {
      await t
        .http()
        .get(`${cronUrl(project, 'job')}?status=ok&check_in_id=not-a-uuid`)
        .expect(400);
    }
    for (let i = 0; i < LIMIT; i++)
      await t
        .http()
        .get(`${cronUrl(project, 'job')}?status=ok`)
        .expect(202);
    await t
      .http()
      .get(`${cronUrl(project, 'job')}?status=ok`)
      .expect(429);
  });
});
