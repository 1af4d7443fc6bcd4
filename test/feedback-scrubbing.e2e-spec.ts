/**
 * User feedback is scrubbed as events are: a secret pasted into the message or carried in the page
 * URL is stored as `[Filtered]` under the project's data-protection settings, while the name and
 * e-mail address the user gave to be answered stay. Real HTTP ingest, queue, worker and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from './helpers/app';
import { createProject as createTestProject, hex, Project } from './helpers/projects';
import { eventually } from './helpers/queues';

const CARD = '4111 1111 1111 1111';
const MESSAGE = `I was charged twice on my card ${CARD}, please refund`;
const URL_WITH_SECRETS = 'https://shop.example.com/checkout?step=2&api_key=sk_live_abcdef123456';

describe('scrubbing user feedback', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const createProject = () => createTestProject(t, 'feedback-scrub');

  async function sendFeedback(project: Project): Promise<string> {
    const feedbackId = hex(randomUUID());
    const payload = JSON.stringify({
      event_id: feedbackId,
      type: 'feedback',
      level: 'info',
      contexts: {
        feedback: {
          message: MESSAGE,
          url: URL_WITH_SECRETS,
          name: 'Ann Example',
          contact_email: 'ann@example.com',
        },
      },
    });
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
      .type('text/plain')
      .send([JSON.stringify({ event_id: feedbackId }), '{"type":"feedback"}', payload].join('\n'))
      .expect(200);
    return feedbackId;
  }

  async function stored(project: Project, feedbackId: string) {
    return eventually(async () => {
      const page = await t.api().get(`/api/projects/${project.id}/feedback?limit=100`).expect(200);
      return (
        page.body.data as {
          event_id: string;
          message: string;
          url: string;
          name: string;
          contact_email: string;
        }[]
      ).find((row) => row.event_id === feedbackId);
    });
  }

  it('filters a card number in the message and a key in the URL, keeping who sent it', async () => {
    const project = await createProject();
    const feedback = await stored(project, await sendFeedback(project));
    expect(feedback.message).toBe('I was charged twice on my card [Filtered], please refund');
    expect(feedback.url).not.toContain('sk_live_abcdef123456');
    expect(feedback.url).toContain('step=2');
    expect(feedback).toMatchObject({ name: 'Ann Example', contact_email: 'ann@example.com' });
  });

  it('stores the feedback as sent when the project turned scrubbing off', async () => {
    const project = await createProject();
    await t
      .api()
      .patch(`/api/projects/${project.id}/data-protection`)
      .send({ scrub_data: false })
      .expect(200);
    // The worker has not read this project's settings before: it reads them with this feedback.
    const feedback = await stored(project, await sendFeedback(project));
    expect(feedback.message).toBe(MESSAGE);
    expect(feedback.url).toBe(URL_WITH_SECRETS);
  });
});
