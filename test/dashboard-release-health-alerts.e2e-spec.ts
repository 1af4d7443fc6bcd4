/**
 * Release health alert rules in the dashboard, in a real Chromium: the rule form offers the type
 * with its fields, the rule card says what it watches, and the alert history names the release
 * and links to its page; at laptop and phone widths.
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ReleaseHealthAlertsService } from '../src/alerts/release-health-alerts.service';
import { SessionFolder } from '../src/releases/health/session-folder';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  settled,
  settledCount,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { newSid, sessionEnvelope, sessionPayload, Status } from './helpers/sessions';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const EMAIL = 'health-alerts-admin@example.com';
const PASSWORD = 'health-alerts-secret';
const SETTLE_MS = 20_000;

interface ProjectView {
  id: number;
  client_key: string;
}

describe('release health alerts in the dashboard (browser)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: ProjectView;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  async function sendSessions(release: string, status: Status, count: number): Promise<void> {
    const started = Date.now() - 5_000;
    const items = Array.from({ length: count }, () => ({
      type: 'session' as const,
      payload: sessionPayload({
        sid: newSid(),
        init: true,
        started,
        timestamp: started + 1_000,
        status,
        attrs: { release, environment: 'production' },
      }),
    }));
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${project.client_key.replace(/-/g, '')}`)
      .type('text/plain')
      .send(sessionEnvelope(items))
      .expect(200);
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`,
      SERVE_DASHBOARD: 'true',
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Health Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as ProjectView;
    await t
      .api()
      .post('/api/alert-channels')
      .send({ name: 'Release hook', channel_type: 'webhook', config: { url: `${receiver.url}/health` } })
      .expect(201);
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('creates a release health rule with its fields', async () => {
    await page.goto(`/projects/${project.id}/alerts`);
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('Checkout crashes');
    await form.getByLabel('When').selectOption('release_health');
    // The issue filters and the assignee make no sense for a release: they are gone.
    await settledCount(form.getByLabel('Minimum level'), 0);
    await form.getByRole('checkbox', { name: /Release hook/ }).check();
    await form.getByLabel('Metric').selectOption('crash_free_sessions');
    // Out of range: the browser's own check holds the form back (the field says 0.01 to 100).
    await form.getByLabel('Below (%)').fill('0');
    await form.getByRole('button', { name: 'Create rule' }).click();
    expect(
      await form.getByLabel('Below (%)').evaluate((input) => (input as HTMLInputElement).validity.valid),
    ).toBe(false);
    await form.getByLabel('Over the last (hours)').fill('2');
    await form.getByLabel('Once it has at least (sessions)').fill('5');
    await form.getByLabel('Environments', { exact: true }).fill('production');
    await form.getByLabel('Below (%)').fill('95');
    await screenshot(page, 'release-health-alert-rule-form');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const card = page.locator('.rule-card').filter({ hasText: 'Checkout crashes' });
    await card
      .getByText('Crash-free sessions below 95% over 2 h, from 5 sessions · Environments: production')
      .waitFor();
    const rules = (await t.api().get(`/api/projects/${project.id}/alert-rules`).expect(200)).body as {
      alert_type: string;
      conditions: unknown;
    }[];
    expect(rules).toEqual([
      expect.objectContaining({
        alert_type: 'release_health',
        conditions: {
          metric: 'crash_free_sessions',
          threshold: 95,
          window_hours: 2,
          min_sessions: 5,
          environments: ['production'],
        },
      }),
    ]);

    // Editing shows the stored values.
    await card.getByRole('button', { name: 'Edit rule Checkout crashes' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule Checkout crashes' });
    await settledValue(edit.getByLabel('Below (%)'), '95');
    await settledValue(edit.getByLabel('Over the last (hours)'), '2');
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the release in the alert history, linking to its page', async () => {
    await sendSessions('checkout@3.1.0', 'exited', 4);
    await sendSessions('checkout@3.1.0', 'crashed', 4);
    await t.app.get(SessionFolder).fold();
    await t.app.get(ReleaseHealthAlertsService).evaluate();
    await eventually(
      async () => receiver.received.find((request) => request.body.alert_type === 'release_health'),
      SETTLE_MS,
    );

    await page.getByRole('button', { name: 'Refresh' }).click();
    const link = page.getByRole('link', { name: 'checkout@3.1.0', exact: true });
    await link.waitFor();
    await settled(
      () => link.getAttribute('href'),
      (value) => expect(value).toBe(`/projects/${project.id}/releases/checkout%403.1.0`),
    );
    await screenshot(page, 'release-health-alert-history');
  });

  it('stays usable on a 390px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(`/projects/${project.id}/alerts`);
    await mobile.getByRole('link', { name: 'checkout@3.1.0', exact: true }).waitFor();
    await mobile.getByRole('button', { name: 'New rule' }).click();
    await mobile
      .getByRole('form', { name: 'New alert rule' })
      .getByLabel('When')
      .selectOption('release_health');
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(mobile, 'release-health-alerts-phone');
    await phone.close();
  });
});
