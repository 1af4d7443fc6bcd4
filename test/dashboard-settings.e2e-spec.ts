/**
 * Project settings, alert rules and notification channels in a real headless Chromium against the
 * real server (SERVE_DASHBOARD on, digest and alert workers running): rename, retention, client key
 * rotation with a grace period, deleting a project, rule conditions, webhook headers and the alert
 * history. What the UI saves is checked through the API, and what it sends at a webhook receiver.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  PageProblems,
  screenshot,
  expectNoPageProblems,
  openSignedIn,
  openPhonePage,
  settled,
  settledCount,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const EMAIL = 'settings-admin@example.com';
const PASSWORD = 'settings-secret';
const HOUR_MS = 3_600_000;

/** How long the digest, the alert worker and the webhook receiver get to do their part. */
const SETTLE_MS = 20_000;

interface ProjectView {
  id: number;
  name: string;
  slug: string;
  dsn: string;
  retention_days: number | null;
  previous_dsn: string | null;
  previous_client_key_expires_at: string | null;
}

interface ChannelView {
  id: number;
  name: string;
  config: { url: string; headers?: Record<string, string> };
}

interface RuleView {
  id: number;
  name: string;
  conditions: Record<string, unknown>;
  channel_ids: number[];
}

interface IssueView {
  id: number;
  short_id: string;
  message: string;
}

describe('dashboard settings (browser)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: ProjectView;
  let originalDsn: string;
  let channelId: number;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  const getProject = async () =>
    (await t.api().get(`/api/projects/${project.id}`).expect(200)).body as ProjectView;

  /** Sends one error event with the DSN's key, as an SDK would; answers the HTTP status. */
  async function ingest(dsn: string, message: string, environment = 'production'): Promise<number> {
    const match = /^https?:\/\/([0-9a-f]{32})@[^/]+\/(\d+)$/.exec(dsn);
    if (!match) throw new Error(`not a DSN: ${dsn}`);
    const eventId = randomUUID().replace(/-/g, '');
    const body = [
      JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'event' }),
      JSON.stringify({ event_id: eventId, message, level: 'error', environment }),
    ].join('\n');
    const response = await t
      .http()
      .post(`/api/${match[2]}/envelope/`)
      .set('X-Sentry-Auth', `Sentry sentry_version=7, sentry_key=${match[1]}`)
      .send(body);
    return response.status;
  }

  /** The project's issue with this message, once the digest has stored it. */
  function issueWithMessage(message: string): Promise<IssueView> {
    return eventually(async () => {
      const list = await t.api().get(`/api/projects/${project.id}/issues`).expect(200);
      return (list.body.data as IssueView[]).find((issue) => issue.message === message);
    }, SETTLE_MS);
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
        .send({ name: `Settings Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as ProjectView;
    originalDsn = project.dsn;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('renames the project', async () => {
    await page.goto(`/projects/${project.id}/settings`);
    const name = page.getByLabel('Project name');
    await name.fill('Checkout Web');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('status').filter({ hasText: 'Project renamed.' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Checkout Web' }).waitFor();
    expect(await getProject()).toMatchObject({ name: 'Checkout Web', slug: project.slug, dsn: originalDsn });
    project.name = 'Checkout Web';
  });

  it('sets and clears the retention', async () => {
    await page.getByLabel('Days to keep events').fill('30');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: events are kept for 30 days.' }).waitFor();
    expect((await getProject()).retention_days).toBe(30);

    await page.getByLabel(/Use the installation default/).check();
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Saved: events follow the installation default.' })
      .waitFor();
    expect((await getProject()).retention_days).toBeNull();
  });

  it('rotates the client key with a grace period, after which both DSNs ingest', async () => {
    const card = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Client key' }) });
    await settledValue(card.getByLabel('DSN', { exact: true }), originalDsn);
    await settledCount(card.getByLabel('Previous DSN'), 0);

    await card.getByRole('button', { name: 'Rotate key…' }).click();
    // 24 hours is what the dialog proposes; this rotation keeps the old key for one hour.
    await settled(
      () => card.getByLabel('24 hours').isChecked(),
      (value) => expect(value).toBe(true),
    );
    await card.getByLabel('1 hour').check();
    await card.getByText('After 1 hour, events sent with the current DSN are refused.').waitFor();
    await screenshot(page, 'project-settings-rotate-confirm');
    const before = Date.now();
    await card.getByRole('button', { name: 'Rotate key', exact: true }).click();
    await card
      .getByRole('status')
      .filter({ hasText: /^New DSN created\. The old DSN keeps working until .+\.$/ })
      .waitFor();

    const rotated = await getProject();
    expect(rotated.dsn).not.toBe(originalDsn);
    expect(rotated.previous_dsn).toBe(originalDsn);
    const expiresAt = Date.parse(rotated.previous_client_key_expires_at!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS);
    await settledValue(card.getByLabel('DSN', { exact: true }), rotated.dsn);
    await settledValue(card.getByLabel('Previous DSN'), originalDsn);
    await card.getByText('Still accepted until').waitFor();
    await screenshot(page, 'project-settings-rotated');

    // Both keys are accepted, and their events reach the project.
    expect(await ingest(originalDsn, 'sent with the old DSN during its grace')).toBe(200);
    expect(await ingest(rotated.dsn, 'sent with the new DSN')).toBe(200);
    await issueWithMessage('sent with the old DSN during its grace');
    await issueWithMessage('sent with the new DSN');
    project = { ...project, ...rotated };
  });

  it('edits the headers of a webhook channel, which its requests carry', async () => {
    await page.goto('/settings/channels');
    await page.getByRole('button', { name: 'New channel' }).click();
    const form = page.getByRole('form', { name: 'New channel' });
    await form.getByLabel('Name', { exact: true }).fill('Ops hook');
    await form.getByLabel('URL').fill(`${receiver.url}/ops`);
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Header 1 name').fill('X-Team');
    await form.getByLabel('Header 1 value').fill('payments');
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Header 2 name').fill('Authorization');
    await form.getByLabel('Header 2 value').fill('Bearer receiver-token-0123');

    // A name that is not a header name is refused before anything is sent.
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Header 3 name').fill('Bad Name');
    await form.getByRole('button', { name: 'Create channel' }).click();
    await form.getByRole('alert').filter({ hasText: '"Bad Name" is not a valid header name' }).waitFor();
    await form.getByRole('button', { name: 'Remove header 3 (Bad Name)' }).click();
    await screenshot(page, 'settings-channel-headers-form');
    await form.getByRole('button', { name: 'Create channel' }).click();

    const card = page.locator('.channel-card').filter({ hasText: 'Ops hook' });
    // Listed by name, whatever order they were entered in.
    await card.getByText('Authorization, X-Team').waitFor();
    const created = ((await t.api().get('/api/alert-channels').expect(200)).body as ChannelView[]).find(
      (channel) => channel.name === 'Ops hook',
    )!;
    channelId = created.id;
    expect(created.config.headers).toEqual({ 'X-Team': '****', Authorization: 'Bear...****' });

    await card.getByRole('button', { name: 'Send test' }).click();
    await card.getByRole('status').filter({ hasText: 'Test sent: webhook answered 200 OK' }).waitFor();
    expect(receiver.received.at(-1)?.headers).toMatchObject({
      'x-team': 'payments',
      authorization: 'Bearer receiver-token-0123',
    });

    // Editing: the masked Authorization goes back as shown (and is kept), X-Team goes, X-Region comes.
    await card.getByRole('button', { name: 'Edit Ops hook' }).click();
    const edit = page.getByRole('form', { name: 'Edit channel Ops hook' });
    await settledValue(edit.getByLabel('Header 1 name'), 'Authorization');
    await settledValue(edit.getByLabel('Header 1 value'), 'Bear...****');
    await edit.getByRole('button', { name: 'Remove header 2 (X-Team)' }).click();
    await edit.getByRole('button', { name: 'Add header' }).click();
    await edit.getByLabel('Header 2 name').fill('X-Region');
    await edit.getByLabel('Header 2 value').fill('eu-west');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await card.getByText('Authorization, X-Region').waitFor();
    const edited = (await t.api().get(`/api/alert-channels/${channelId}`).expect(200)).body as ChannelView;
    expect(edited.config.headers).toEqual({ Authorization: 'Bear...****', 'X-Region': '****' });

    const sent = receiver.received.length;
    await card.getByRole('button', { name: 'Send test' }).click();
    await eventually(async () => receiver.received.length > sent, SETTLE_MS);
    const headers = receiver.received.at(-1)!.headers;
    expect(headers).toMatchObject({ authorization: 'Bearer receiver-token-0123', 'x-region': 'eu-west' });
    expect(headers['x-team']).toBeUndefined();
    await screenshot(page, 'settings-channels-headers');
  });

  it('creates and edits an alert rule with conditions', async () => {
    await page.goto(`/projects/${project.id}/alerts`);
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('Production errors');
    await form.getByRole('checkbox', { name: /Ops hook/ }).check();
    // The environments seen in the project are offered; one more is typed in.
    await form.getByRole('button', { name: 'production', exact: true }).click();
    const environments = form.getByLabel('Environments', { exact: true });
    await settledValue(environments, 'production');
    await environments.fill('production, staging');
    await form.getByLabel('Minimum level').selectOption('error');
    await screenshot(page, 'project-alerts-rule-form');
    await form.getByRole('button', { name: 'Create rule' }).click();

    const card = page.locator('.rule-card').filter({ hasText: 'Production errors' });
    await card.getByText('Environments: production, staging · Level: error or worse').waitFor();
    let rules = (await t.api().get(`/api/projects/${project.id}/alert-rules`).expect(200)).body as RuleView[];
    expect(rules).toEqual([
      expect.objectContaining({
        name: 'Production errors',
        channel_ids: [channelId],
        conditions: { environments: ['production', 'staging'], min_level: 'error' },
      }),
    ]);

    await card.getByRole('button', { name: 'Edit rule Production errors' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule Production errors' });
    await settledValue(edit.getByLabel('Environments', { exact: true }), 'production, staging');
    await settledValue(edit.getByLabel('Minimum level'), 'error');
    await edit.getByLabel('Environments', { exact: true }).fill('production');
    await edit.getByLabel('Minimum level').selectOption('warning');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await card.getByText('Environments: production · Level: warning or worse').waitFor();
    rules = (await t.api().get(`/api/projects/${project.id}/alert-rules`).expect(200)).body as RuleView[];
    expect(rules[0].conditions).toEqual({ environments: ['production'], min_level: 'warning' });

    // Emptied filters are saved as none: the rule then covers every issue.
    await card.getByRole('button', { name: 'Edit rule Production errors' }).click();
    await edit.getByLabel('Environments', { exact: true }).fill('');
    await edit.getByLabel('Minimum level').selectOption('');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await card.getByText('Environments: any · Level: any').waitFor();
    rules = (await t.api().get(`/api/projects/${project.id}/alert-rules`).expect(200)).body as RuleView[];
    expect(rules[0].conditions).toEqual({});

    await card.getByRole('button', { name: 'Edit rule Production errors' }).click();
    await edit.getByLabel('Environments', { exact: true }).fill('production');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await card.getByText('Environments: production · Level: any').waitFor();
  });

  it("shows the alert history with the issue's short id, linking to the issue", async () => {
    const sent = receiver.received.length;
    expect(await ingest(project.dsn, 'checkout total is NaN')).toBe(200);
    const issue = await issueWithMessage('checkout total is NaN');
    expect(issue.short_id).toBe(`${project.slug.toUpperCase()}-3`);
    await eventually(
      async () => receiver.received.slice(sent).find((request) => request.body.test === false),
      SETTLE_MS,
    );

    await page.getByRole('button', { name: 'Refresh' }).click();
    const link = page.getByRole('link', { name: issue.short_id, exact: true });
    await link.waitFor();
    const history = (await t.api().get(`/api/projects/${project.id}/alert-history`).expect(200)).body as {
      issue_id: number;
      issue_short_id: string;
    }[];
    expect(history).toEqual([
      expect.objectContaining({ issue_id: issue.id, issue_short_id: issue.short_id }),
    ]);
    await screenshot(page, 'project-alerts-history');
    await link.click();
    await page.waitForURL((url) => url.pathname === `/issues/${issue.id}`);
    await page.getByText('checkout total is NaN').first().waitFor();
  });

  it('stays usable on a 390px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    const overflow = () =>
      mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element) => !element.closest('.table-wrap, .code-block, .context, .tabs, pre'))
          .map(
            (element) =>
              `${element.tagName.toLowerCase()}.${element.className} ${Math.round(element.getBoundingClientRect().right)}`,
          ),
      );
    const check = async (name: string) => {
      expect(await overflow()).toEqual([]);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(mobile, name);
    };

    await mobile.goto(`/projects/${project.id}/settings`);
    await mobile.getByText('Still accepted until').waitFor();
    await mobile.getByRole('button', { name: 'Rotate key…' }).click();
    await mobile.getByRole('button', { name: 'Delete project…' }).click();
    await check('mobile-project-settings');

    await mobile.goto(`/projects/${project.id}/alerts`);
    await mobile.getByRole('button', { name: 'Edit rule Production errors' }).click();
    await mobile.getByLabel('Minimum level').waitFor();
    await check('mobile-project-alerts');

    await mobile.goto('/settings/channels');
    await mobile.getByRole('button', { name: 'Edit Ops hook' }).click();
    await mobile.getByLabel('Header 1 name').waitFor();
    await check('mobile-settings-channels');
    await phone.close();
  });

  it('deletes the project once its name is typed, and goes back to the projects', async () => {
    await page.goto(`/projects/${project.id}/settings`);
    await page.getByRole('button', { name: 'Delete project…' }).click();
    const confirm = page.getByRole('button', { name: 'Delete this project' });
    const typed = page.getByLabel(`Type ${project.name} to confirm`);
    await settled(
      () => confirm.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await typed.fill(project.name.toLowerCase());
    await settled(
      () => confirm.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await typed.fill(project.name);
    await screenshot(page, 'project-settings-delete');
    await confirm.click();
    await page.waitForURL((url) => url.pathname === '/');
    await t.api().get(`/api/projects/${project.id}`).expect(404, { error: 'project not found' });
    await page.getByRole('heading', { name: 'Projects' }).first().waitFor();
    await settledCount(page.getByText(project.name, { exact: true }), 0);
  });
});
