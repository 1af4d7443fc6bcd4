/**
 * Uptime monitors and the public status page in a real headless Chromium against the real server: the
 * Monitors tab, the create form and the server's refusals, a monitor's page (response times, failed
 * checks, mute, delete), the status page settings, and the status page signed out, at laptop and
 * phone widths. The checks are real requests to a local site, three days of them on the uptime clock.
 */
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { UptimeClock } from '../src/monitors/uptime/uptime-clock';
import { UptimeScheduler } from '../src/monitors/uptime/uptime-scheduler.service';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  watchedContext,
  settled,
  settledCount,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { startUptimeSites, UptimeSites } from './helpers/uptime-sites';

const EMAIL = 'uptime-admin@example.com';
const PASSWORD = 'secret-uptime';
const HOUR_MS = 3_600_000;
/** Hours of checks, one an hour, ending at the real time (so that the pages read "an hour ago"). */
const HOURS = 72;

describe('dashboard uptime monitors and status page (browser)', () => {
  let t: TestApp;
  let sites: UptimeSites;
  let db: DataSource;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: { id: number; slug: string };
  let empty: { id: number };
  const monitors: Record<string, number> = {};
  let now = Date.now();
  const problems: PageProblems = { errors: [], cspViolations: [] };

  const checkCount = async (monitorId: number): Promise<number> =>
    (await db.query('SELECT count(*)::int AS n FROM uptime_checks WHERE monitor_id = $1', [monitorId]))[0].n;

  beforeAll(async () => {
    ensureDashboardBuilt();
    sites = await startUptimeSites();
    t = await startTestApp({
      CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`,
      SERVE_DASHBOARD: 'true',
      UPTIME_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    db = t.app.get(DataSource);
    const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 60_000;
    now = end - HOURS * HOUR_MS;
    t.app.get(UptimeClock).now = () => new Date(now);
    project = (await t.api().post('/api/projects').send({ name: 'Status Shop' }).expect(201)).body;
    empty = (await t.api().post('/api/projects').send({ name: 'No Monitors' }).expect(201)).body;
    const create = async (name: string, path: string, headers?: Record<string, string>) =>
      (monitors[name] = (
        await t
          .api()
          .post(`/api/projects/${project.id}/uptime-monitors`)
          .send({ name, url: `${sites.url}${path}`, interval_seconds: 3600, timeout_seconds: 10, headers })
          .expect(201)
      ).body.id);
    await create('Shop front page', '/ok');
    await create('Checkout API', '/flaky', { Authorization: 'Bearer checkout-probe-token' });
    // The checkout fails for four hours two days ago, and again in the last hour.
    for (let hour = 0; hour <= HOURS; hour++) {
      now = end - (HOURS - hour) * HOUR_MS;
      sites.state.up = !((hour >= 20 && hour < 24) || hour === HOURS);
      await t.app.get(UptimeScheduler).tick();
      await eventually(async () => (await checkCount(monitors['Checkout API'])) > hour, 30_000);
      await eventually(async () => (await checkCount(monitors['Shop front page'])) > hour, 30_000);
    }
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1280, height: 800 },
    }));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sites?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  const overflow = (target: Page) =>
    target.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  it('lists the uptime monitors in the Monitors tab, with state, response time and uptime', async () => {
    await page.goto(`/projects/${project.id}/issues`);
    await page
      .getByRole('navigation', { name: 'Project sections' })
      .getByRole('link', { name: 'Monitors', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Uptime monitors' }).waitFor();
    const rows = page.locator('.monitors-table tbody tr');
    await rows.nth(1).waitFor();
    const front = page.getByRole('row', { name: /Shop front page/ });
    const checkout = page.getByRole('row', { name: /Checkout API/ });
    await settled(
      () => front.locator('.status-pill').innerText(),
      (value) => expect(value).toContain('Up'),
    );
    await settled(
      () => checkout.locator('.status-pill').innerText(),
      (value) => expect(value).toContain('Down'),
    );
    await settled(
      () => front.innerText(),
      (value) => expect(value).toContain('100 %'),
    );
    await settled(
      () => front.innerText(),
      (value) => expect(value).toContain(new URL(sites.url).host),
    );
    // A trend of the last day's response times per row.
    await front.locator('svg.sparkline').waitFor();
    await screenshot(page, 'monitors-uptime-1280');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(`/projects/${project.id}/monitors`);
    await mobile.locator('.monitors-table tbody tr').nth(1).waitFor();
    await mobile.locator('svg.sparkline').first().waitFor();
    expect(await overflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'monitors-uptime-390');
    await phone.close();

    // A project without monitors says how to add one.
    await page.goto(`/projects/${empty.id}/monitors`);
    await page.getByText('No uptime monitors yet').waitFor();
    await screenshot(page, 'monitors-empty-1280');
  });

  it('creates a monitor through the form, showing the server’s refusal first', async () => {
    await page.goto(`/projects/${project.id}/monitors`);
    await page.getByRole('link', { name: 'New uptime monitor' }).click();
    await page.getByRole('heading', { name: 'New uptime monitor' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Admin console');
    await page.getByLabel('URL').fill(`http://admin:secret@${new URL(sites.url).host}/ok`);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('alert').waitFor();
    await settled(
      () => page.getByRole('alert').innerText(),
      (value) => expect(value).toMatch(/credentials|user/i),
    );
    await page.getByLabel('URL').fill(`${sites.url}/ok`);
    await page.getByLabel('Interval (seconds)').fill('300');
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('heading', { name: 'Admin console' }).waitFor();
    expect(page.url()).toMatch(/\/monitors\/uptime\/\d+$/);
    await settled(
      () => page.locator('.monitor-head .status-pill').innerText(),
      (value) => expect(value).toContain('Waiting'),
    );
    await settled(
      () => page.locator('.monitor-figures').innerText(),
      (value) => expect(value).toContain('5 minutes'),
    );
  });

  it('shows a monitor: response times, failed checks, uptime; mutes, edits and deletes it', async () => {
    await page.goto(`/projects/${project.id}/monitors/uptime/${monitors['Checkout API']}`);
    await page.getByRole('heading', { name: 'Checkout API', exact: true }).waitFor();
    await settled(
      () => page.locator('.monitor-head .status-pill').innerText(),
      (value) => expect(value).toContain('Down'),
    );
    await page.locator('.chart-col').first().waitFor();
    // 24 hours on a real time axis: 48 half hours, of which the hourly checks fill every other
    // one; the last check failed, so one bucket is failed, and the strip fills it red in whole.
    await settledCount(page.locator('.chart-col'), 48);
    await settledCount(page.locator('.chart-col[data-checks="1"]'), 24);
    await settledCount(page.locator('.chart-col:not([data-failures="0"])'), 1);
    expect(await page.locator('.share-cell.share-all .share-fill').getAttribute('style')).toContain(
      'height: 100',
    );
    expect(new Set(await page.locator('.chart-labels span').allInnerTexts()).size).toBe(3);
    await settledCount(page.locator('.check-errors tbody tr'), 1);
    await settled(
      () => page.locator('.check-errors').innerText(),
      (value) => expect(value).toContain('HTTP 503'),
    );
    // Being down opened the monitor's issue, linked from its page.
    expect(
      await page
        .locator('.monitor-figures')
        .getByRole('link', { name: /^Open issue STATUS-SHOP-\d+$/ })
        .getAttribute('href'),
    ).toMatch(/^\/issues\/\d+$/);
    await screenshot(page, 'uptime-monitor-1280');

    // The issue shows the monitor, linked, and its failed checks, not event controls without events.
    const issueHref = await page
      .locator('.monitor-figures')
      .getByRole('link', { name: /^Open issue STATUS-SHOP-\d+$/ })
      .getAttribute('href');
    for (const [width, height, name] of [
      [1280, 800, 'uptime-monitor-issue-1280'],
      [390, 844, 'uptime-monitor-issue-390'],
    ] as const) {
      const issuePage = await context.newPage();
      try {
        await issuePage.setViewportSize({ width, height });
        await issuePage.goto(issueHref!);
        const panel = issuePage.getByRole('region', { name: 'Monitor' });
        await panel.waitFor();
        expect(await panel.getByRole('link', { name: 'Checkout API' }).getAttribute('href')).toBe(
          `/projects/${project.id}/monitors/uptime/${monitors['Checkout API']}`,
        );
        await settledCount(issuePage.locator('.check-errors tbody tr'), 1);
        expect(await issuePage.locator('.check-errors tbody tr').first().innerText()).toContain('HTTP 503');
        expect(await issuePage.locator('.issue-stats dt').first().innerText()).toMatch(/^failures$/i);
        expect(await issuePage.locator('.events-panel').count()).toBe(0);
        expect(await issuePage.getByText(/events · last/).count()).toBe(0);
        await screenshot(issuePage, name);
        expect(await overflow(issuePage)).toBeLessThanOrEqual(0);
      } finally {
        await issuePage.close();
      }
    }

    await page.getByRole('group', { name: 'Chart period' }).getByRole('button', { name: '7d' }).click();
    await page.getByRole('heading', { name: 'Response times · last 7 days' }).waitFor();
    await settledCount(page.locator('.check-errors tbody tr'), 5);

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(`/projects/${project.id}/monitors/uptime/${monitors['Checkout API']}`);
    await mobile.locator('.chart-col').first().waitFor();
    expect(await overflow(mobile)).toBeLessThanOrEqual(0);
    await screenshot(mobile, 'uptime-monitor-390');
    await phone.close();

    await page.getByRole('button', { name: 'Mute' }).click();
    await page.locator('.monitor-head').getByText('Muted').waitFor();
    await page.getByRole('button', { name: 'Unmute' }).click();
    await page.getByRole('button', { name: 'Mute' }).waitFor();

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit Checkout API' }).waitFor();
    // Header values are write-only: the form shows them masked, and sending the mask back keeps them.
    await settledValue(page.locator('textarea[name="headers"]'), 'Authorization: Bear...****');
    await screenshot(page, 'uptime-form-1280');
    await page.getByLabel('Down after failures').fill('0');
    await page.getByRole('button', { name: 'Save monitor' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Down after failures').fill('2');
    await page.getByRole('button', { name: 'Save monitor' }).click();
    await page.getByRole('heading', { name: 'Checkout API', exact: true }).waitFor();
    const [stored] = await db.query('SELECT headers FROM uptime_monitors WHERE id = $1', [
      monitors['Checkout API'],
    ]);
    expect(stored.headers).toEqual({ Authorization: 'Bearer checkout-probe-token' });
    const saved = await t
      .api()
      .get(`/api/projects/${project.id}/uptime-monitors/${monitors['Checkout API']}`)
      .expect(200);
    expect(saved.body).toMatchObject({ failure_threshold: 2, muted: false, url: `${sites.url}/flaky` });

    // Deleting asks first.
    const admin = (
      await t
        .api()
        .post(`/api/projects/${project.id}/uptime-monitors`)
        .send({ name: 'Old', url: `${sites.url}/ok` })
        .expect(201)
    ).body;
    await page.goto(`/projects/${project.id}/monitors/uptime/${admin.id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete monitor' }).click();
    await page.getByRole('heading', { name: 'Uptime monitors' }).waitFor();
    await t.api().get(`/api/projects/${project.id}/uptime-monitors/${admin.id}`).expect(404);
  });

  /** The day bars take one Tab stop per monitor, and arrows, Home and End move along the days. */
  async function expectDayBarsByKeyboard(visitor: Page): Promise<void> {
    const focused = () =>
      visitor.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        return element?.classList.contains('day-bar')
          ? { date: element.dataset.date ?? '', label: element.getAttribute('aria-label') ?? '' }
          : null;
      });
    let reached: { date: string; label: string } | null = null;
    for (let presses = 0; presses < 20 && reached === null; presses++) {
      await visitor.keyboard.press('Tab');
      reached = await focused();
    }
    expect(reached).not.toBeNull();
    const card = visitor.locator('.status-monitor').first();
    const dates = await card
      .locator('.day-bar')
      .evaluateAll((bars) => bars.map((bar) => (bar as HTMLElement).dataset.date));
    expect(dates).toHaveLength(90);
    // Tab lands on today; the legend says what the focused day was.
    expect(reached!.date).toBe(dates[89]);
    await visitor.keyboard.press('ArrowLeft');
    const yesterday = await focused();
    expect(yesterday?.date).toBe(dates[88]);
    await settled(
      () => card.locator('.day-legend [aria-live]').innerText(),
      (value) => expect(value).toBe(yesterday!.label),
    );
    await visitor.keyboard.press('Home');
    expect((await focused())?.date).toBe(dates[0]);
    await visitor.keyboard.press('End');
    expect((await focused())?.date).toBe(dates[89]);
    // One Tab stop: the next Tab leaves this monitor's bars for the next monitor's.
    await visitor.keyboard.press('Tab');
    const next = await focused();
    expect(next?.date).toBe(dates[89]);
    expect(
      await visitor.evaluate(
        () =>
          document.activeElement?.closest('.status-monitor') !== document.querySelector('.status-monitor'),
      ),
    ).toBe(true);
  }

  it('publishes a status page from the settings, shown signed out with 90 days per monitor', async () => {
    await page.goto(`/projects/${project.id}/settings/status-page`);
    const form = page.getByRole('form', { name: 'Status page settings' });
    await form.waitFor();
    await form.getByLabel('Publish the status page').check();
    await form.getByLabel('Address').fill('status-shop');
    await form.getByLabel('Title').fill('Status Shop status');
    await form.getByLabel('Shop front page').check();
    await form.getByLabel('Checkout API').check();
    await form.getByRole('button', { name: 'Save status page' }).click();
    await form.getByText('Saved: the status page is public.').waitFor();
    await settled(
      () => form.getByRole('link', { name: 'Open the public page' }).getAttribute('href'),
      (value) => expect(value).toBe(`${t.url}/status/status-shop`),
    );
    await screenshot(page, 'status-page-settings-1280');

    // Signed out: a fresh browser context without the session.
    for (const [width, height, name] of [
      [1280, 800, 'status-page-1280'],
      [390, 844, 'status-page-390'],
    ] as const) {
      const anonymous = await watchedContext(
        browser,
        { baseURL: t.url, viewport: { width, height }, deviceScaleFactor: width < 600 ? 2 : 1 },
        problems,
      );
      const visitor = await anonymous.newPage();
      await visitor.goto('/status/status-shop');
      await visitor.getByRole('heading', { name: 'Status Shop status' }).waitFor();
      expect(visitor.url()).toBe(`${t.url}/status/status-shop`);
      await settled(
        () => visitor.getByRole('status').first().innerText(),
        (value) => expect(value).toContain('1 of 2 systems are down'),
      );
      const cards = visitor.locator('.status-monitor');
      await settledCount(cards, 2);
      await settledCount(cards.nth(0).locator('.day-bar'), 90);
      // Today and the days before it were checked; a day with the four failed hours shows less than 100 %.
      expect(
        await cards.nth(1).locator('.day-bar.good, .day-bar.minor, .day-bar.bad').count(),
      ).toBeGreaterThanOrEqual(3);
      await settled(
        () => cards.nth(1).locator('.day-bar').last().getAttribute('title'),
        (value) => expect(value).toMatch(/uptime$/),
      );
      await settledCount(visitor.getByRole('navigation'), 0);
      if (width === 1280) await expectDayBarsByKeyboard(visitor);
      expect(await overflow(visitor)).toBeLessThanOrEqual(0);
      await screenshot(visitor, name);
      await anonymous.close();
    }

    // Turned off, the address says there is nothing there.
    await t.api().put(`/api/projects/${project.id}/status-page`).send({ enabled: false }).expect(200);
    const anonymous = await watchedContext(browser, { baseURL: t.url }, problems);
    const visitor = await anonymous.newPage();
    await visitor.goto('/status/status-shop');
    await visitor.getByRole('heading', { name: 'No status page here' }).waitFor();
    await anonymous.close();
  });
});
