/**
 * The dashboard's charts, tag distribution, user counts and retention setting in a real headless
 * Chromium against the real server. Events go in through the ingest endpoint and the digest, as an
 * SDK's would, so the charts and tags are drawn from the rollups the digest keeps.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  PageProblems,
  screenshot,
  expectNoPageProblems,
  openSignedIn,
  watchedContext,
  openPhonePage,
  BROWSER_WAIT_MS,
  settled,
  settledCount,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';

/** Where this file's screenshots go: not SCREENSHOTS, where mobile-project-settings is another test's. */
const SHOTS = process.env.SCREENSHOT_DIR ?? '/tmp/shots';
const EMAIL = 'stats-admin@example.com';
const PASSWORD = 'secret-stats';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Events of the main issue per UTC day, index = days ago (today first): 150 over 10 days. */
const DAY_COUNTS = [24, 3, 7, 12, 18, 25, 9, 14, 21, 17];
const MAIN_EVENTS = DAY_COUNTS.reduce((sum, n) => sum + n, 0);
const OTHER_EVENTS = 20;
const CUSTOMERS = 40;
const USERS = 12;
/** The dashboard's page size for "Show all values" (dashboard/src/pages/IssueTags.tsx). */
const VALUES_PAGE = 25;

type Period = '24h' | '14d' | '90d';
interface Bucket {
  start: string;
  count: number;
}
interface Stats {
  period: Period;
  interval: '1h' | '1d';
  buckets: Bucket[];
}
interface TagSummary {
  key: string;
  total: number;
  distinct: number;
  top: { value: string; count: number }[];
}

const startOfUtcDay = (at: number) => Math.floor(at / DAY) * DAY;

/** The environment of event i: 60 % production, 30 % staging, 10 % dev. */
const environmentOf = (i: number) => (i % 10 < 6 ? 'production' : i % 10 < 9 ? 'staging' : 'dev');

/** What the main issue's events are: timestamps over 10 UTC days, tags, users. */
function mainEvents(
  now: number,
  fingerprint: string,
): { timestamp: number; payload: Record<string, unknown> }[] {
  const today = startOfUtcDay(now);
  const timestamps: number[] = [];
  DAY_COUNTS.forEach((count, daysAgo) => {
    const from = today - daysAgo * DAY;
    // Today's events lie between midnight UTC and now; older days' across the whole day.
    const span = daysAgo === 0 ? Math.max(1, now - 1_000 - from) : DAY;
    for (let k = 0; k < count; k++) timestamps.push(Math.floor(from + ((k + 0.5) * span) / count));
  });
  return timestamps.map((timestamp, i) => ({
    timestamp,
    payload: {
      event_id: randomUUID().replace(/-/g, ''),
      timestamp: new Date(timestamp).toISOString(),
      platform: 'node',
      level: 'error',
      environment: environmentOf(i),
      release: i % 3 === 0 ? 'shop@1.0.0' : 'shop@1.1.0',
      user: { id: `u${i % USERS}` },
      tags: { customer: `cust-${String(i % CUSTOMERS).padStart(2, '0')}` },
      exception: {
        values: [
          {
            type: 'OrderTotalMismatch',
            value: 'Order total does not match its lines',
            stacktrace: {
              frames: [
                { filename: 'src/orders/totals.js', function: 'checkTotal', lineno: 41, in_app: true },
              ],
            },
          },
        ],
      },
      fingerprint: [fingerprint],
    },
  }));
}

describe('dashboard stats, tags and retention (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let projectId: number;
  let mainIssueId: number;
  let otherIssueId: number;
  let mainTimestamps: number[];
  /** Sends one event to the project's store endpoint, as an SDK would. */
  let send: (payload: Record<string, unknown>) => Promise<unknown>;
  const runTag = randomUUID().slice(0, 8);

  const shot = (name: string, target: Page = page) => screenshot(target, name, SHOTS);

  /** The stats endpoint's answer, read within one bucket (re-read when a bucket boundary passed). */
  async function stats(path: string, period: Period): Promise<Stats> {
    const size = period === '24h' ? HOUR : DAY;
    for (;;) {
      const before = Date.now();
      const response = await t.api().get(`${path}?period=${period}`).expect(200);
      if (Math.floor(before / size) === Math.floor(Date.now() / size)) return response.body as Stats;
    }
  }

  /** The bars the chart in `scope` draws: each one's bucket start and count. */
  function bars(scope: Locator): Promise<Bucket[]> {
    return scope.locator('.chart-col').evaluateAll((columns) =>
      columns.map((column) => ({
        start: column.getAttribute('data-start') ?? '',
        count: Number(column.getAttribute('data-count')),
      })),
    );
  }

  /**
   * The chart shows exactly the endpoint's buckets for `period`. When a bucket boundary passed between
   * the page's request and this one, the page is reloaded and compared again.
   */
  async function expectChartMatches(scope: Locator, path: string, period: Period): Promise<Bucket[]> {
    const name = period === '24h' ? 'last 24 hours' : period === '14d' ? 'last 14 days' : 'last 90 days';
    for (let attempt = 0; ; attempt++) {
      await scope.getByRole('img', { name: new RegExp(`events? in the ${name}`) }).waitFor();
      await eventually(async () => (await scope.locator('.chart-body.is-loading').count()) === 0);
      const shown = await bars(scope);
      const expected = (await stats(path, period)).buckets;
      if (attempt < 2 && shown[0]?.start !== expected[0]?.start) {
        await page.reload();
        continue;
      }
      expect(shown).toEqual(expected);
      const total = expected.reduce((sum, bucket) => sum + bucket.count, 0);
      await scope
        .getByRole('img', {
          name: `${total.toLocaleString('en-US')} ${total === 1 ? 'event' : 'events'} in the ${name}, ${period === '24h' ? 'per hour' : 'per UTC day'}`,
        })
        .waitFor();
      return shown;
    }
  }

  /** Bar heights are proportional to the counts (the tallest fills the plot). */
  async function expectProportionalBars(scope: Locator): Promise<void> {
    const measured = await scope.locator('.chart-col').evaluateAll((columns) =>
      columns.map((column) => ({
        count: Number(column.getAttribute('data-count')),
        height: (column.firstElementChild as HTMLElement).getBoundingClientRect().height,
        plot: column.getBoundingClientRect().height,
      })),
    );
    const max = Math.max(...measured.map((bar) => bar.count));
    for (const bar of measured) {
      const expected = bar.count === 0 ? 0 : Math.max(2, (bar.count / max) * bar.plot);
      expect(Math.abs(bar.height - expected)).toBeLessThan(1.5);
    }
  }

  const tagBox = (key: string) =>
    page.locator('.tag-key').filter({ has: page.getByRole('heading', { name: key, exact: true }) });

  async function rowsOf(box: Locator): Promise<{ value: string; pct: string; count: string | null }[]> {
    return box.locator('.tag-row').evaluateAll((rows) =>
      rows.map((row) => ({
        value: row.querySelector('.tag-row-value')?.textContent ?? '',
        pct: row.querySelector('.tag-row-pct')?.textContent ?? '',
        count: row.querySelector('.tag-row-count')?.textContent ?? null,
      })),
    );
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });

    const project = (await t.api().post('/api/projects').send({ name: 'Stats Shop' }).expect(201)).body as {
      id: number;
      dsn: string;
    };
    projectId = project.id;
    const key = /\/\/([^@:]+)@/.exec(project.dsn)![1];
    const auth = `Sentry sentry_version=7, sentry_key=${key}, sentry_client=dashboard-e2e/1.0`;
    send = (payload: Record<string, unknown>) =>
      t
        .http()
        .post(`/api/${projectId}/store/`)
        .set('X-Sentry-Auth', auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(payload))
        .expect(200);

    const now = Date.now();
    const main = mainEvents(now, `stats-main-${runTag}`);
    mainTimestamps = main.map((event) => event.timestamp);
    const other = Array.from({ length: OTHER_EVENTS }, (_, i) => ({
      event_id: randomUUID().replace(/-/g, ''),
      timestamp: new Date(now - (i + 1) * 10 * 60_000).toISOString(),
      platform: 'node',
      environment: 'production',
      message: 'Inventory sync was slow',
      level: 'warning',
      fingerprint: [`stats-other-${runTag}`],
    }));
    const payloads = [...main.map((event) => event.payload), ...other];
    for (let i = 0; i < payloads.length; i += 10) await Promise.all(payloads.slice(i, i + 10).map(send));

    // The digest stores them (and their rollups) a moment later.
    const issues = await eventually(async () => {
      const list = (await t.api().get(`/api/projects/${projectId}/issues`).expect(200)).body.data as {
        id: number;
        type: string;
        message: string;
        event_count: number;
      }[];
      const mainIssue = list.find((issue) => issue.type === 'OrderTotalMismatch');
      const otherIssue = list.find((issue) => issue.message === 'Inventory sync was slow');
      return mainIssue?.event_count === MAIN_EVENTS && otherIssue?.event_count === OTHER_EVENTS
        ? { mainIssue, otherIssue }
        : undefined;
    }, 40_000);
    mainIssueId = issues.mainIssue.id;
    otherIssueId = issues.otherIssue.id;
    await eventually(async () => {
      const body = await stats(`/api/projects/${projectId}/stats`, '90d');
      return body.buckets.reduce((sum, bucket) => sum + bucket.count, 0) === MAIN_EVENTS + OTHER_EVENTS;
    });

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1280, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('draws the issue chart from the stats endpoint: 150 events over 10 days, not the last 100', async () => {
    await page.goto(`/issues/${mainIssueId}`);
    const chart = page.locator('.chart').first();
    const shown = await expectChartMatches(chart, `/api/issues/${mainIssueId}/stats`, '14d');
    await settled(
      () => chart.getByRole('button', { name: '14d' }).getAttribute('aria-pressed'),
      (value) => expect(value).toBe('true'),
    );

    // Ten non-empty UTC days with the counts sent, although the page lists only 100 events.
    const expected = new Map<string, number>();
    for (const timestamp of mainTimestamps) {
      const day = new Date(startOfUtcDay(timestamp)).toISOString();
      expected.set(day, (expected.get(day) ?? 0) + 1);
    }
    const nonEmpty = shown.filter((bucket) => bucket.count > 0);
    expect(nonEmpty).toHaveLength(10);
    expect(new Map(nonEmpty.map((bucket) => [bucket.start, bucket.count]))).toEqual(expected);
    expect(shown).toHaveLength(14);
    await page.getByText(`${MAIN_EVENTS} events · last 14 days`).waitFor();
    await eventually(async () => (await page.locator('.event-item').count()) === 100);
    await page.getByRole('button', { name: 'Load older events' }).waitFor();
    await expectProportionalBars(chart);

    // Each bar says its day and count.
    const busiest = nonEmpty.reduce((a, b) => (b.count > a.count ? b : a));
    const title = await chart.locator(`.chart-col[data-start="${busiest.start}"]`).getAttribute('title');
    const day = new Date(busiest.start).toLocaleDateString('en-US', {
      timeZone: 'UTC',
      month: 'short',
      day: 'numeric',
    });
    expect(title).toBe(`${day} (UTC day): ${busiest.count} events`);

    // Events and users near the title.
    const stat = (name: string) =>
      page
        .locator('.issue-stats > div')
        .filter({ has: page.getByText(name, { exact: true }) })
        .locator('dd');
    await settled(
      () => stat('Events').textContent(),
      (value) => expect(value).toBe(String(MAIN_EVENTS)),
    );
    await settled(
      () => stat('Users affected').textContent(),
      (value) => expect(value).toBe(String(USERS)),
    );
    expect((await t.api().get(`/api/issues/${mainIssueId}`).expect(200)).body.user_count).toBe(USERS);
    await page.locator('.tag-key').first().waitFor();
    await shot('issue-page');
  });

  it('switches the chart period and remembers the choice for the session', async () => {
    const chart = page.locator('.chart').first();
    const path = `/api/issues/${mainIssueId}/stats`;
    await chart.getByRole('button', { name: '24h' }).click();
    await settled(
      () => chart.getByRole('button', { name: '24h' }).getAttribute('aria-pressed'),
      (value) => expect(value).toBe('true'),
    );
    const hourly = await expectChartMatches(chart, path, '24h');
    expect(hourly).toHaveLength(24);
    // What the window of the last 24 hours holds of what was sent.
    const from = Date.parse(hourly[0].start);
    expect(hourly.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(
      mainTimestamps.filter((timestamp) => timestamp >= from).length,
    );
    const hourTitle = await chart.locator('.chart-col').last().getAttribute('title');
    expect(hourTitle).toMatch(/–.*: \d+ events?$/);

    await chart.getByRole('button', { name: '90d' }).click();
    const daily = await expectChartMatches(chart, path, '90d');
    expect(daily).toHaveLength(90);
    expect(daily.filter((bucket) => bucket.count > 0)).toHaveLength(10);

    // Kept across a reload and a visit elsewhere in the same tab.
    await page.reload();
    await expectChartMatches(page.locator('.chart').first(), path, '90d');
    expect(
      await page.locator('.chart').first().getByRole('button', { name: '90d' }).getAttribute('aria-pressed'),
    ).toBe('true');
    await page.goto(`/issues/${otherIssueId}`);
    await expectChartMatches(page.locator('.chart').first(), `/api/issues/${otherIssueId}/stats`, '90d');
    await page.goto(`/issues/${mainIssueId}`);
    await expectChartMatches(page.locator('.chart').first(), path, '90d');

    // A new session starts from the default.
    const fresh = await watchedContext(
      browser,
      { baseURL: t.url, viewport: { width: 1280, height: 900 } },
      problems,
    );
    await fresh.addCookies(await context.cookies());
    const other = await fresh.newPage();
    other.setDefaultTimeout(BROWSER_WAIT_MS);
    await other.goto(`/issues/${mainIssueId}`);
    await other
      .locator('.chart')
      .first()
      .getByRole('img', { name: /in the last 14 days/ })
      .waitFor();
    await settled(
      () => other.getByRole('button', { name: '14d' }).getAttribute('aria-pressed'),
      (value) => expect(value).toBe('true'),
    );
    await fresh.close();

    await page.locator('.chart').first().getByRole('button', { name: '14d' }).click();
    await expectChartMatches(page.locator('.chart').first(), path, '14d');
  });

  it('shows the tag distribution: each key, its distinct count, top values with percentages', async () => {
    const summaries = (await t.api().get(`/api/issues/${mainIssueId}/tags`).expect(200)).body
      .data as TagSummary[];
    const keys = summaries.map((summary) => summary.key);
    expect(keys).toEqual(expect.arrayContaining(['environment', 'release', 'user', 'customer', 'level']));

    const environment = tagBox('environment');
    await settled(
      () => environment.locator('.tag-key-head .muted').textContent(),
      (value) => expect(value).toBe('3 distinct values'),
    );
    expect(await rowsOf(environment)).toEqual([
      { value: 'production', pct: '60%', count: null },
      { value: 'staging', pct: '30%', count: null },
      { value: 'dev', pct: '10%', count: null },
    ]);
    await settled(
      () => environment.locator('.tag-row').first().getAttribute('title'),
      (value) => expect(value).toBe('production: 90 events of 150 (60%)'),
    );
    // The bar's length is the share.
    const fill = await environment
      .locator('.tag-row')
      .first()
      .evaluate((row) => {
        const bar = row.querySelector('.tag-row-fill') as HTMLElement;
        return bar.getBoundingClientRect().width / row.getBoundingClientRect().width;
      });
    expect(fill).toBeCloseTo(0.6, 2);
    await settledCount(environment.getByRole('button', { name: /Show all/ }), 0);

    expect(await rowsOf(tagBox('release'))).toEqual([
      { value: 'shop@1.1.0', pct: '67%', count: null },
      { value: 'shop@1.0.0', pct: '33%', count: null },
    ]);
    await settled(
      () => tagBox('user').locator('.tag-key-head .muted').textContent(),
      (value) => expect(value).toBe(`${USERS} distinct values`),
    );

    // More values than the summary shows: the top five as the API orders them, then the rest as Other.
    const customer = tagBox('customer');
    const customerSummary = summaries.find((summary) => summary.key === 'customer')!;
    expect(customerSummary).toMatchObject({ total: MAIN_EVENTS, distinct: CUSTOMERS });
    await settled(
      () => customer.locator('.tag-key-head .muted').textContent(),
      (value) => expect(value).toBe(`${CUSTOMERS} distinct values`),
    );
    const top = customerSummary.top.slice(0, 5);
    expect(top).toHaveLength(5);
    const otherCount = MAIN_EVENTS - top.reduce((sum, value) => sum + value.count, 0);
    expect(await rowsOf(customer)).toEqual([
      ...top.map((value) => ({
        value: value.value,
        pct: `${Math.round((value.count / MAIN_EVENTS) * 100)}%`,
        count: null,
      })),
      { value: 'Other', pct: `${Math.round((otherCount / MAIN_EVENTS) * 100)}%`, count: null },
    ]);
    expect(top.every((value) => value.count === 4)).toBe(true);
    await settled(
      () => customer.locator('.tag-row-pct').first().textContent(),
      (value) => expect(value).toBe('3%'),
    );
  });

  it('pages through all values of a key with "Show all values"', async () => {
    const requests: string[] = [];
    const onRequest = (request: { url: () => string }) => {
      if (request.url().includes('/tags/customer')) requests.push(new URL(request.url()).search);
    };
    page.on('request', onRequest);
    const customer = tagBox('customer');
    const toggle = customer.getByRole('button', { name: `Show all ${CUSTOMERS} values` });
    await settled(
      () => toggle.getAttribute('aria-expanded'),
      (value) => expect(value).toBe('false'),
    );
    await toggle.click();
    await eventually(async () => (await customer.locator('.tag-row').count()) === VALUES_PAGE);
    await customer.getByText(`${VALUES_PAGE} of ${CUSTOMERS} values, most frequent first`).waitFor();
    await shot('issue-tags-expanded');
    await customer.getByRole('button', { name: 'Load more values' }).click();
    await eventually(async () => (await customer.locator('.tag-row').count()) === CUSTOMERS);
    await settledCount(customer.getByRole('button', { name: 'Load more values' }), 0);
    page.off('request', onRequest);

    // The same values, in the same order, as the API's pages.
    const pages: { value: string; count: number }[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const body = (
        await t.api().get(`/api/issues/${mainIssueId}/tags/customer?limit=${VALUES_PAGE}${query}`).expect(200)
      ).body as { data: { value: string; count: number }[]; next_cursor: string | null };
      pages.push(...body.data);
      cursor = body.next_cursor;
    } while (cursor);
    expect(pages).toHaveLength(CUSTOMERS);
    expect(await rowsOf(customer)).toEqual(
      pages.map((value) => ({
        value: value.value,
        pct: `${Math.round((value.count / MAIN_EVENTS) * 100)}%`,
        count: String(value.count),
      })),
    );
    expect(requests).toHaveLength(2);
    expect(requests[0]).toBe(`?limit=${VALUES_PAGE}`);
    expect(requests[1]).toMatch(new RegExp(`^\\?limit=${VALUES_PAGE}&cursor=[A-Za-z0-9_-]+$`));

    await customer.getByRole('button', { name: 'Show top values only' }).click();
    await settledCount(customer.locator('.tag-row'), 6);
  });

  it('lists users per issue and draws the project chart above the issues', async () => {
    await page.goto(`/projects/${projectId}/issues`);
    const mainRow = page.getByRole('row').filter({ hasText: 'OrderTotalMismatch' });
    await mainRow.waitFor();
    await settled(
      () => mainRow.locator('td[data-label="Users"]').textContent(),
      (value) => expect(value).toBe(String(USERS)),
    );
    await settled(
      () => mainRow.locator('td[data-label="Events"]').textContent(),
      (value) => expect(value).toBe(String(MAIN_EVENTS)),
    );
    const otherRow = page.getByRole('row').filter({ hasText: 'Inventory sync was slow' });
    await settled(
      () => otherRow.locator('td[data-label="Users"]').textContent(),
      (value) => expect(value).toBe('0'),
    );
    await page.getByRole('columnheader', { name: 'Users' }).waitFor();

    const chart = page.getByRole('region', { name: 'Events of this project' });
    const shown = await expectChartMatches(chart, `/api/projects/${projectId}/stats`, '14d');
    expect(shown.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(MAIN_EVENTS + OTHER_EVENTS);
    await chart.getByRole('button', { name: '24h' }).click();
    await expectChartMatches(chart, `/api/projects/${projectId}/stats`, '24h');
    await expectProportionalBars(chart);
    await shot('project-issues');
    await chart.getByRole('button', { name: '14d' }).click();
    await expectChartMatches(chart, `/api/projects/${projectId}/stats`, '14d');

    // Refresh asks for the chart again too.
    await send({
      event_id: randomUUID().replace(/-/g, ''),
      timestamp: new Date().toISOString(),
      message: 'Inventory sync was slow',
      level: 'warning',
      fingerprint: [`stats-other-${runTag}`],
    });
    await eventually(async () => {
      const body = await stats(`/api/projects/${projectId}/stats`, '14d');
      return body.buckets.reduce((sum, bucket) => sum + bucket.count, 0) === MAIN_EVENTS + OTHER_EVENTS + 1;
    });
    // The chart's loading state may not show yet right after the click: wait for its answer.
    const chartAnswered = page.waitForResponse((response) =>
      response.url().includes(`/api/projects/${projectId}/stats`),
    );
    await page.getByRole('button', { name: 'Refresh' }).click();
    await chartAnswered;
    const refreshed = await expectChartMatches(chart, `/api/projects/${projectId}/stats`, '14d');
    expect(refreshed.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(MAIN_EVENTS + OTHER_EVENTS + 1);
    await eventually(
      async () =>
        (await otherRow.locator('td[data-label="Events"]').textContent()) === String(OTHER_EVENTS + 1),
    );
  });

  it('saves the retention days, shows the server message for an invalid value, and goes back to the default', async () => {
    await page
      .getByRole('navigation', { name: 'Project sections' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await page.waitForURL(new RegExp(`/projects/${projectId}/settings$`));
    await page.getByText('Current setting: events follow the installation default').waitFor();
    const useDefault = page.getByRole('radio', { name: /Use the installation default/ });
    const custom = page.getByRole('radio', { name: 'Keep events for' });
    const days = page.getByRole('spinbutton', { name: 'Days to keep events' });
    await settled(
      () => useDefault.isChecked(),
      (value) => expect(value).toBe(true),
    );
    await shot('project-settings');

    await custom.check();
    await days.fill('30');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: events are kept for 30 days.' }).waitFor();
    expect((await t.api().get(`/api/projects/${projectId}`).expect(200)).body.retention_days).toBe(30);
    await page.reload();
    await page.getByText('Current setting: events are kept for 30 days').waitFor();
    await settled(
      () => page.getByRole('radio', { name: 'Keep events for' }).isChecked(),
      (value) => expect(value).toBe(true),
    );
    await settledValue(page.getByRole('spinbutton', { name: 'Days to keep events' }), '30');

    // Out of range: the server's own message, and nothing changes.
    const refused = await t
      .api()
      .patch(`/api/projects/${projectId}`)
      .send({ retention_days: 5000 })
      .expect(400);
    const message = refused.body.error as string;
    expect(message).toMatch(/retention_days/);
    await page.getByRole('spinbutton', { name: 'Days to keep events' }).fill('5000');
    await page.getByRole('button', { name: 'Save retention' }).click();
    // Shown as a sentence: the field in words, a capital first.
    const shown = message.replace('retention_days', 'Retention days');
    const alert = page.getByRole('alert').filter({ hasText: shown });
    await alert.waitFor();
    await settled(
      () => alert.textContent(),
      (value) => expect(value).toBe(shown),
    );
    expect((await t.api().get(`/api/projects/${projectId}`).expect(200)).body.retention_days).toBe(30);
    await shot('project-settings-error');

    // A fraction is the server's to refuse too.
    await page.getByRole('spinbutton', { name: 'Days to keep events' }).fill('2.5');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByRole('alert').filter({ hasText: shown }).waitFor();
    expect((await t.api().get(`/api/projects/${projectId}`).expect(200)).body.retention_days).toBe(30);

    await page.getByRole('radio', { name: /Use the installation default/ }).check();
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Saved: events follow the installation default.' })
      .waitFor();
    await settledCount(page.getByRole('alert'), 0);
    expect((await t.api().get(`/api/projects/${projectId}`).expect(200)).body.retention_days).toBeNull();

    // The project's name is edited on the same page.
    await page.getByLabel('Project name').fill('Stats Shop EU');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('status').filter({ hasText: 'Project renamed.' }).waitFor();
    await page.getByRole('heading', { name: 'Stats Shop EU', level: 1 }).waitFor();
    expect((await t.api().get(`/api/projects/${projectId}`).expect(200)).body.name).toBe('Stats Shop EU');
    await shot('project-settings-saved');
  });

  it('fits the issue page and the project settings on a 390px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    const overflow = () =>
      mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element) => !element.closest('.table-wrap, .code-block, .context, .tabs, pre, .sr-only'))
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      );
    // Cells of a table row stacked as a card, or rows of a tag, drawn over one another.
    const overlapping = () =>
      mobile.evaluate(() => {
        const found: string[] = [];
        for (const group of document.querySelectorAll('.issues-table tbody tr, .tag-row')) {
          const cells = [...group.children]
            .filter((cell) => !cell.classList.contains('sr-only') && !cell.classList.contains('tag-row-fill'))
            .map((cell) => {
              // What the cell draws, text that overflows it included.
              const range = document.createRange();
              range.selectNodeContents(cell);
              return { cell, box: range.getBoundingClientRect() };
            })
            .filter(({ box }) => box.width > 0 && box.height > 0);
          for (let i = 0; i < cells.length; i++) {
            for (let j = i + 1; j < cells.length; j++) {
              const a = cells[i].box;
              const b = cells[j].box;
              if (
                a.left < b.right - 0.5 &&
                b.left < a.right - 0.5 &&
                a.top < b.bottom - 0.5 &&
                b.top < a.bottom - 0.5
              ) {
                found.push(
                  `${cells[i].cell.className} / ${cells[j].cell.className}: ${group.textContent?.slice(0, 40)}`,
                );
              }
            }
          }
        }
        return found;
      });
    for (const [path, name, ready] of [
      [`/issues/${mainIssueId}`, 'mobile-issue-page', '.tag-key'],
      [`/projects/${projectId}/issues`, 'mobile-project-issues', '.chart-col'],
      [`/projects/${projectId}/settings`, 'mobile-project-settings', '.retention-days'],
    ] as const) {
      await mobile.goto(path);
      await mobile.locator(ready).first().waitFor();
      expect(await overflow()).toEqual([]);
      expect(await overlapping()).toEqual([]);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(name, mobile);
    }
    await phone.close();
  });
});
