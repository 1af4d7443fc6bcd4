/**
 * Where each feedback came from, in words, in the Feedback inbox (a real headless Chromium against
 * the real server, digest running): captureFeedback of @sentry/node (which names no source), the
 * feedback widget's item, a legacy user report, and a source the app named itself; screenshots at
 * laptop and phone widths.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { captureFeedback, defaultStackParser, makeNodeTransport, NodeClient, Scope } from '@sentry/node';
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  settledTexts,
} from './helpers/browser';
import { postEnvelope } from './helpers/envelopes';
import { eventually } from './helpers/queues';

const EMAIL = 'feedback-sources@example.com';
const PASSWORD = 'feedback-sources-pw';

interface Project {
  id: number;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

/** Each feedback's message, and the words its source is shown with. */
const EXPECTED: Array<[string, string]> = [
  ['Sent from the Node app', "Sent by the app's code (captureFeedback)"],
  ['Sent from the widget', 'Sent with the feedback widget'],
  ['Sent as a user report', 'Sent as a user report (captureUserFeedback)'],
  ['Sent from the checkout form', 'Sent from “checkout-form”'],
];

describe('feedback sources in words (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: Project;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Feedback Sources ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  async function sendEachSource(): Promise<void> {
    const client = new NodeClient({
      dsn: `http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
    });
    client.init();
    const scope = new Scope();
    scope.setClient(client);
    const eventId = client.captureException(new Error('feedback sources target'), undefined, scope);
    captureFeedback({ message: EXPECTED[0][0], associatedEventId: eventId }, {}, scope);
    expect(await client.flush(5_000)).toBe(true);
    await client.close(1_000);

    const feedbackItem = (message: string, source: string) => [
      '{"type":"feedback"}',
      JSON.stringify({
        event_id: hex(randomUUID()),
        type: 'feedback',
        contexts: { feedback: { message, source } },
      }),
    ];
    await postEnvelope(t, project, [
      '{}',
      ...feedbackItem(EXPECTED[1][0], 'widget'),
      ...feedbackItem(EXPECTED[3][0], 'checkout-form'),
      '{"type":"user_report"}',
      JSON.stringify({
        event_id: hex(eventId),
        name: 'Ann',
        email: 'ann@example.com',
        comments: EXPECTED[2][0],
      }),
    ]);
    await eventually(async () => {
      const list = await t.api().get(`/api/projects/${project.id}/feedback`).expect(200);
      return (list.body.data as unknown[]).length === EXPECTED.length;
    });
  }

  /** The words of each feedback's source (the first of its details), by its message. */
  async function sourcesShown(on: Page): Promise<Map<string, string>> {
    const items = on.locator('.feedback-item');
    await settledTexts(items, (texts) => expect(texts).toHaveLength(EXPECTED.length));
    const shown = new Map<string, string>();
    for (const item of await items.all()) {
      shown.set(
        await item.locator('.feedback-message').innerText(),
        (await item.locator('.feedback-meta').innerText()).split('\n')[0].trim(),
      );
    }
    return shown;
  }

  it('says where each feedback came from, captureFeedback included', async () => {
    await sendEachSource();
    await page.goto(`/projects/${project.id}/feedback`);
    const shown = await sourcesShown(page);
    for (const [message, words] of EXPECTED) expect(shown.get(message)).toBe(words);
    await screenshot(page, 'feedback-sources-1280');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/feedback`);
      const onPhone = await sourcesShown(mobile);
      expect(onPhone.get(EXPECTED[0][0])).toBe(EXPECTED[0][1]);
      const overflow = await mobile.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'feedback-sources-390');
    } finally {
      await phone.close();
    }
  });
});
