/**
 * Cron monitors in a real headless Chromium against the real server: the Monitors tab, a monitor's
 * page with check-ins of every status (sent to the DSN check-in URL as curl and sentry-cli send
 * them; missed and timed out marked by the cron clock's tick), its environments, snippets with the
 * project's DSN, the create form and the server's refusals, at laptop and phone widths.
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { CronClockService } from '../src/monitors/crons/cron-clock.service';
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
} from './helpers/browser';
import { eventually } from './helpers/queues';

const EMAIL = 'crons-admin@example.com';
const PASSWORD = 'secret-crons';
const MINUTE_MS = 60_000;
const SLUG = 'nightly-backup';

interface ListedCheckIn {
  id: string;
  status: string;
  environment: string;
}

describe('dashboard cron monitors (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: { id: number; slug: string; client_key: string; dsn: string };
  let empty: { id: number };
  const problems: PageProblems = { errors: [], cspViolations: [] };

  /** One check-in to the DSN check-in URL, answered 202. */
  async function checkIn(fields: Record<string, unknown>): Promise<void> {
    const response = await fetch(`${t.url}/api/${project.id}/cron/${SLUG}/${project.client_key}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(fields),
    });
    expect(response.status).toBe(202);
  }

  const listCheckIns = async (environment = 'production'): Promise<ListedCheckIn[]> =>
    (
      await t
        .api()
        .get(`/api/projects/${project.id}/monitors/${SLUG}/check-ins`)
        .query({ environment })
        .expect(200)
    ).body.data;

  /** Waits until the check-in `id` is stored with `status`. */
  const stored = (id: string, status: string, environment = 'production') =>
    eventually(
      async () => (await listCheckIns(environment)).some((row) => row.id === id && row.status === status),
      30_000,
    );

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Cron Shop' }).expect(201)).body;
    empty = (await t.api().post('/api/projects').send({ name: 'No Crons' }).expect(201)).body;
    const config = {
      schedule: { type: 'interval', value: 1, unit: 'minute' },
      checkin_margin: 1,
      max_runtime: 1,
    };

    // A run that went well, one that failed, and one that never reports its end.
    const good = randomUUID();
    await checkIn({
      check_in_id: good,
      status: 'in_progress',
      release: 'backup@2.1.0',
      monitor_config: config,
    });
    await stored(good, 'in_progress');
    await checkIn({ check_in_id: good, status: 'ok', duration: 42.5, release: 'backup@2.1.0' });
    await stored(good, 'ok');
    const failed = randomUUID();
    await checkIn({ check_in_id: failed, status: 'in_progress' });
    await stored(failed, 'in_progress');
    await checkIn({ check_in_id: failed, status: 'error', duration: 3.2 });
    await stored(failed, 'error');
    const hung = randomUUID();
    await checkIn({ check_in_id: hung, status: 'in_progress' });
    await stored(hung, 'in_progress');
    // Three minutes on, the hung run has timed out and the runs expected since were missed.
    await t.app.get(CronClockService).tick(new Date(Date.now() + 3 * MINUTE_MS));
    await stored(hung, 'timeout');
    await eventually(async () => (await listCheckIns()).some((row) => row.status === 'missed'), 30_000);
    // A run under way now, and one in another environment.
    const running = randomUUID();
    await checkIn({ check_in_id: running, status: 'in_progress' });
    await stored(running, 'in_progress');
    const staging = randomUUID();
    await checkIn({ check_in_id: staging, status: 'ok', duration: 12, environment: 'staging' });
    await stored(staging, 'ok', 'staging');

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1280, height: 800 },
    }));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  const overflow = (target: Page) =>
    target.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  it('lists the cron monitors with their state per environment, schedule in words, next and last run', async () => {
    await page.goto(`/projects/${project.id}/monitors`);
    await page.getByRole('heading', { name: 'Cron monitors' }).waitFor();
    const row = page.getByRole('row', { name: /Nightly Backup|nightly-backup/i });
    await row.waitFor();
    await settled(
      () => row.innerText(),
      (text) => {
        expect(text).toMatch(/production: In progress/);
        expect(text).toMatch(/staging: OK/);
        expect(text).toMatch(/every minute/i);
      },
    );
    await screenshot(page, 'monitors-cron-1280');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(`/projects/${project.id}/monitors`);
    await mobile.locator('.cron-table tbody tr').first().waitFor();
    expect(await overflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'monitors-cron-390');
    await phone.close();

    // Without monitors: what a cron monitor does, and the snippets with this project's DSN.
    await page.goto(`/projects/${empty.id}/monitors`);
    await page.getByText('No cron monitors yet').waitFor();
    await settled(
      () => page.locator('.code-block').innerText(),
      (value) => expect(value).toContain('Sentry.withMonitor'),
    );
    await screenshot(page, 'monitors-cron-empty-1280');
  });

  it('shows a monitor: a timeline of every status, durations, environments and the setup', async () => {
    await page.goto(`/projects/${project.id}/monitors`);
    await page.locator('.cron-table a.monitor-name').first().click();
    await page.locator('.checkin-timeline li').nth(4).waitFor();
    const statuses = await page
      .locator('.checkin-timeline li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-status')));
    for (const status of ['ok', 'error', 'missed', 'timeout', 'in_progress'])
      expect(statuses).toContain(status);
    // Each state in words too, not only in colour.
    await settled(
      () => page.locator('.checkin-timeline .status-pill').allInnerTexts(),
      (words) => {
        for (const word of ['OK', 'Error', 'Missed', 'Timed out', 'In progress'])
          expect(words.join(' ')).toContain(word);
      },
    );
    await settled(
      () => page.locator('.checkin-timeline').innerText(),
      (value) => expect(value).toContain('took 42.5 s'),
    );
    await settled(
      () => page.locator('.checkin-timeline').innerText(),
      (value) => expect(value).toContain('release backup@2.1.0'),
    );
    // The durations chart: a bar per run, failures marked.
    await settledCount(page.locator('.chart-col[data-status="error"]'), 1);
    await screenshot(page, 'cron-monitor-1280');

    // The snippets carry the project's DSN and its check-in URL.
    const setup = page.getByRole('region', { name: 'Send check-ins' }).or(page.locator('.setup').last());
    await settled(
      () => setup.locator('.code-block').innerText(),
      (value) => expect(value).toContain(project.dsn),
    );
    await page.getByRole('tab', { name: 'curl' }).click();
    const curl = await settled(
      () => page.locator('.code-block').last().innerText(),
      (text) => expect(text).toContain('status=in_progress'),
    );
    // The URL in the snippet takes check-ins (the test server's public URL names another port).
    const url = new URL(/CHECK_IN_URL="([^"]+)"/.exec(curl)![1]);
    expect(url.pathname).toBe(`/api/${project.id}/cron/${SLUG}/${project.client_key.replace(/-/g, '')}/`);
    const answer = await fetch(`${t.url}${url.pathname}?status=ok&environment=snippet`);
    expect(answer.status).toBe(202);
    await page.getByRole('tab', { name: 'Python' }).click();
    await settled(
      () => page.locator('.code-block').last().innerText(),
      (value) => expect(value).toContain('@sentry_sdk.monitor(monitor_slug="nightly-backup"'),
    );
    await page.getByRole('tab', { name: 'sentry-cli' }).click();
    await settled(
      () => page.locator('.code-block').last().innerText(),
      (value) => expect(value).toContain('sentry-cli monitors run'),
    );

    // The failures opened the monitor's issue in production: its page is one click away.
    const issueLink = page
      .locator('.environment-figure')
      .filter({ hasText: 'production' })
      .getByRole('link', { name: /^Open issue CRON-SHOP-\d+$/ });
    await issueLink.waitFor();
    await settled(
      () => issueLink.getAttribute('href'),
      (value) => expect(value).toMatch(/^\/issues\/\d+$/),
    );

    // Another environment's check-ins.
    await page.getByLabel('Environment').selectOption('staging');
    await eventually(async () => (await page.locator('.checkin-timeline li').count()) === 1, 10_000);

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(page.url());
    await mobile.locator('.checkin-timeline li').nth(4).waitFor();
    expect(await overflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'cron-monitor-390');
    await phone.close();

    await issueLink.click();
    await page.waitForURL(/\/issues\/\d+$/);
    await page.locator('h1').first().waitFor();
    await expectMonitorIssuePage(page);
    await screenshot(page, 'cron-monitor-issue-1280');
    const issuePhone = await openPhonePage(browser, context, t.url, problems);
    try {
      await issuePhone.mobile.goto(page.url());
      await expectMonitorIssuePage(issuePhone.mobile);
      expect(await overflow(issuePhone.mobile)).toBeLessThanOrEqual(0);
      await screenshot(issuePhone.mobile, 'cron-monitor-issue-390');
    } finally {
      await issuePhone.phone.close();
    }
  });

  /**
   * A cron monitor's issue is no dead end: the monitor is linked, its failures are listed (the
   * failed check-ins of the issue's environment), and no event controls are shown without events.
   */
  async function expectMonitorIssuePage(target: Page): Promise<void> {
    const panel = target.getByRole('region', { name: 'Monitor' });
    await panel.waitFor();
    expect(await panel.getByRole('link', { name: SLUG }).getAttribute('href')).toBe(
      `/projects/${project.id}/monitors/cron/${SLUG}`,
    );
    await target.getByRole('heading', { name: 'Failed check-ins' }).waitFor();
    const statuses = target.locator('.checkin-timeline li');
    await statuses.first().waitFor();
    const shown = await statuses.evaluateAll((items) =>
      items.map((item) => item.getAttribute('data-status')),
    );
    const failures = (await listCheckIns()).filter((row) =>
      ['error', 'missed', 'timeout'].includes(row.status),
    );
    expect(shown).toEqual(failures.map((row) => row.status));
    expect(await target.locator('.issue-stats dt').first().innerText()).toMatch(/^failures$/i);
    await settledCount(target.getByRole('heading', { name: 'Events', exact: true }), 0);
    expect(await target.getByText('Select an event to see its details').count()).toBe(0);
    expect(await target.getByText('No events stored').count()).toBe(0);
    expect(await target.locator('.events-panel').count()).toBe(0);
    expect(await target.getByText(/events · last/).count()).toBe(0);
    // All of them, ok runs included, one switch away.
    await target.getByLabel('Failures only').uncheck();
    await target.getByRole('heading', { name: 'Check-ins', exact: true }).waitFor();
    await settled(
      () => statuses.evaluateAll((items) => items.map((item) => item.getAttribute('data-status'))),
      (value) => expect(value).toContain('ok'),
    );
  }

  it('creates, edits, mutes and deletes a monitor, showing the server’s refusals', async () => {
    await page.goto(`/projects/${project.id}/monitors/cron/new`);
    await page.getByRole('heading', { name: 'New cron monitor' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Weekly report');
    await page.getByLabel('Crontab').fill('61 * * * *');
    await page.getByLabel('Timezone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('alert').waitFor();
    expect((await page.getByRole('alert').innerText()).length).toBeGreaterThan(10);
    await screenshot(page, 'cron-form-error-1280');
    await page.getByLabel('Crontab').fill('0 9 * * 1');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('heading', { name: 'Weekly report', exact: true }).waitFor();
    await settled(
      () => page.locator('header.card').innerText(),
      (value) => expect(value).toContain('Europe/Berlin'),
    );

    await page.getByRole('button', { name: 'Mute' }).click();
    await page.locator('.monitor-head').getByText('Muted').waitFor();

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit Weekly report' }).waitFor();
    await page.getByLabel('Fixed interval').check();
    await page.getByLabel('Every').fill('2');
    await page.getByLabel('Unit').selectOption('hour');
    await page.getByRole('button', { name: 'Save monitor' }).click();
    await page.getByRole('heading', { name: 'Weekly report', exact: true }).waitFor();
    const body = (await t.api().get(`/api/projects/${project.id}/monitors/weekly-report`).expect(200)).body;
    expect(body).toMatchObject({
      schedule: { type: 'interval', value: 2, unit: 'hour' },
      muted: true,
      timezone: 'Europe/Berlin',
    });

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete monitor' }).click();
    await page.getByRole('heading', { name: 'Cron monitors' }).waitFor();
    await t.api().get(`/api/projects/${project.id}/monitors/weekly-report`).expect(404);
  });
});
