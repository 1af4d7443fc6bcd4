/**
 * The feedback limit (category `feedback`), end to end: feedback is no event and uses up no event
 * quota, so a DSN's feedback has a limit of its own per project and minute (MAX_FEEDBACK_PER_MINUTE),
 * for envelopes and the crash-report dialog alike. Past it an envelope of feedback alone, and the
 * dialog, answer 429 with `X-Sentry-Rate-Limits` naming `feedback`; beside an event the feedback
 * past it is dropped; every dropped feedback is a `rate_limited` outcome of category `feedback`, and
 * nothing past the limit is stored. The app's clock is pinned so that the test stays in one minute.
 */
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutcomeCounter } from '../src/outcomes/outcome-counter';
import { startTestApp, TestApp } from './helpers/app';
import { createProject, hex, Project } from './helpers/projects';
import { eventually } from './helpers/queues';
import { setClock } from './helpers/quotas';

const LIMIT = 3;

describe('feedback limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MAX_FEEDBACK_PER_MINUTE: String(LIMIT) });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  const rateLimited = () => t.app.get(OutcomeCounter).totals().get('rate_limited,feedback,rate_limit') ?? 0;
  const feedback = (message: string) => [
    JSON.stringify({ type: 'feedback' }),
    JSON.stringify({
      event_id: hex(randomUUID()),
      type: 'feedback',
      level: 'info',
      contexts: { feedback: { message } },
    }),
  ];
  const event = () => [
    JSON.stringify({ type: 'event' }),
    JSON.stringify({ event_id: hex(randomUUID()), message: 'beside feedback' }),
  ];
  const sendEnvelope = (project: Project, lines: string[][]) =>
    t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send(['{}', ...lines.flat()].join('\n'));
  const dialog = (project: Project) =>
    t
      .http()
      .post(
        `/api/embed/error-page/?dsn=${encodeURIComponent(
          `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`,
        )}&eventId=${hex(randomUUID())}`,
      )
      .type('form')
      .send({ name: 'Dialog User', email: 'dialog@example.com', comments: 'it broke' });
  const storedFeedback = async (project: Project) =>
    (
      await t.app
        .get(DataSource)
        .query<{ n: number }[]>('SELECT count(*)::int AS n FROM feedback WHERE project_id = $1', [project.id])
    )[0].n;

  it('keeps at most the limit a minute from envelopes, refuses feedback alone past it, and counts each drop', async () => {
    const project = await createProject(t, 'Feedback limit');
    setClock(t, Date.parse('2031-06-01T10:00:20Z'));
    const before = rateLimited();

    // Four in one envelope: three kept, the fourth dropped and counted.
    await sendEnvelope(project, [feedback('a'), feedback('b'), feedback('c'), feedback('d')]).expect(200);
    expect(rateLimited()).toBe(before + 1);

    const refused = await sendEnvelope(project, [feedback('e')]).expect(429);
    expect(refused.headers['retry-after']).toBe('40');
    expect(refused.headers['x-sentry-rate-limits']).toBe('40:feedback:project');
    expect(refused.body.error).toMatch(/more than 3 feedback per minute/);
    expect(rateLimited()).toBe(before + 2);

    // Beside an event, the event is kept and the feedback dropped.
    const withEvent = await sendEnvelope(project, [event(), feedback('f')]).expect(200);
    expect(withEvent.body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(rateLimited()).toBe(before + 3);

    await eventually(async () => (await storedFeedback(project)) === LIMIT, 30_000);

    // The next minute has room again.
    setClock(t, Date.parse('2031-06-01T10:01:00Z'));
    await sendEnvelope(project, [feedback('g')]).expect(200);
    await eventually(async () => (await storedFeedback(project)) === LIMIT + 1, 30_000);
  });

  it('holds the crash-report dialog to the same limit', async () => {
    const project = await createProject(t, 'Dialog feedback limit');
    setClock(t, Date.parse('2031-06-01T12:00:10Z'));
    const before = rateLimited();
    for (let i = 0; i < LIMIT; i++) await dialog(project).expect(200);
    const refused = await dialog(project).expect(429);
    expect(refused.headers['x-sentry-rate-limits']).toBe('50:feedback:project');
    expect(rateLimited()).toBe(before + 1);
    await eventually(async () => (await storedFeedback(project)) === LIMIT, 30_000);
  });
});
