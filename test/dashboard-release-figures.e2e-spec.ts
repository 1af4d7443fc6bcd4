/**
 * A release's figures as a person counts them from what the SDKs sent, in a real headless Chromium
 * against the real server: the chart's errored part (Sentry's errored sessions, which exclude the
 * crashed ones), the crash-free line with a single day of sessions, the environment filter applied
 * to every figure (events and new issues too), and adoption said to cover 24 hours at every width.
 */
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  settled,
} from './helpers/browser';
import { postEnvelope, sendStoredEvent } from './helpers/envelopes';
import { eventually } from './helpers/queues';
import { newSid, sessionEnvelope, sessionPayload, Status } from './helpers/sessions';

const EMAIL = 'figures-admin@example.com';
const PASSWORD = 'secret-figures';
const RELEASE = 'shop@3.0.0';

/** Sessions per environment and how each ended: production has 4 errored and 1 crashed of 8. */
const SESSIONS: { environment: string; status: Status; errors: number; count: number }[] = [
  { environment: 'production', status: 'exited', errors: 0, count: 3 },
  { environment: 'production', status: 'exited', errors: 1, count: 4 },
  { environment: 'production', status: 'crashed', errors: 1, count: 1 },
  { environment: 'staging', status: 'exited', errors: 0, count: 2 },
];

/**
 * Events of the release: production has 5 events in 2 issues of its own; staging 3 events, one of
 * which opens a third issue. Messages differ in words, so that grouping keeps them apart.
 */
const EVENTS: { environment: string; message: string }[] = [
  ...Array.from({ length: 3 }, () => ({ environment: 'production', message: 'Basket total wrong' })),
  ...Array.from({ length: 2 }, () => ({ environment: 'production', message: 'Checkout button dead' })),
  ...Array.from({ length: 2 }, () => ({ environment: 'staging', message: 'Basket total wrong' })),
  { environment: 'staging', message: 'Staging banner overlaps' },
];

const productionSessions = SESSIONS.filter((s) => s.environment === 'production');
const sum = (rows: { count: number }[]) => rows.reduce((total, row) => total + row.count, 0);
const ERRORED = sum(productionSessions.filter((s) => s.status === 'exited' && s.errors > 0));
const CRASHED = sum(productionSessions.filter((s) => s.status === 'crashed'));

describe('dashboard release figures (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: { id: number; client_key: string };
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Figures Shop' }).expect(201)).body;
    for (const { environment, message } of EVENTS) {
      await sendStoredEvent(t, project, { message, release: RELEASE, environment, level: 'error' });
    }
    const now = Date.now();
    for (const { environment, status, errors, count } of SESSIONS) {
      for (let i = 0; i < count; i++) {
        await postEnvelope(t, project, [
          sessionEnvelope([
            {
              type: 'session',
              payload: sessionPayload({
                sid: newSid(),
                did: `${environment}-${status}-${errors}-${i}`,
                init: true,
                started: now - 60_000,
                timestamp: now,
                status,
                errors,
                attrs: { release: RELEASE, environment },
              }),
            },
          ]),
        ]);
      }
    }
    // Events are counted by the rollup fold and sessions by theirs: wait until the API has both.
    await eventually(async () => {
      const response = await t
        .api()
        .get(`/api/projects/${project.id}/releases/${encodeURIComponent(RELEASE)}`);
      return (
        response.status === 200 &&
        response.body.sessions === sum(SESSIONS) &&
        response.body.event_count === EVENTS.length
      );
    }, 60_000);

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1280, height: 900 },
    }));
    context.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expectNoPageProblems(problems);
    expect(consoleErrors).toEqual([]);
  });

  const releasePage = (query: string) =>
    `/projects/${project.id}/releases/${encodeURIComponent(RELEASE)}?${query}`;

  /** The release page's figures by their labels. */
  const figures = (target: Page) =>
    target
      .locator('.release-figures .health-figure')
      .evaluateAll((nodes) =>
        Object.fromEntries(
          nodes.map((node) => [
            (node.querySelector('dt') as HTMLElement).innerText.trim().toLowerCase(),
            (node.querySelector('dd') as HTMLElement).innerText.trim(),
          ]),
        ),
      );

  /** The drawn height in pixels of each part of the chart's one column with sessions. */
  const drawnParts = (target: Page) =>
    target
      .locator('.health-col[data-sessions]:not([data-sessions="0"])')
      .evaluateAll((columns) =>
        columns.map((column) =>
          Object.fromEntries(
            [...column.querySelectorAll('.health-bar')].map((bar) => [
              [...bar.classList].find((name) => name !== 'health-bar'),
              bar.getBoundingClientRect().height,
            ]),
          ),
        ),
      );

  it('shows production’s events, new issues and sessions when production is chosen', async () => {
    await page.goto(releasePage('period=24h&environment=production'));
    await settled(
      () => figures(page),
      (shown) =>
        expect(shown).toMatchObject({
          sessions: String(sum(productionSessions)),
          'crashed sessions': String(CRASHED),
          events: '5',
          'new issues': '2',
        }),
    );
    await page.goto(releasePage('period=24h'));
    await settled(
      () => figures(page),
      (shown) =>
        expect(shown).toMatchObject({ sessions: String(sum(SESSIONS)), events: '8', 'new issues': '3' }),
    );
  });

  it('filters the releases list’s events and new issues by the environment too', async () => {
    await page.goto(`/projects/${project.id}/releases?period=24h&environment=production`);
    const row = page.getByRole('row', { name: /shop@3\.0\.0/ });
    await settled(
      () =>
        row
          .locator('td')
          .evaluateAll((cells) =>
            Object.fromEntries(
              cells.map((cell) => [cell.getAttribute('data-label'), (cell as HTMLElement).innerText.trim()]),
            ),
          ),
      (cells) =>
        expect(cells).toMatchObject({
          Sessions: String(sum(productionSessions)),
          Events: '5',
          'New issues': '2',
        }),
    );
  });

  it('draws the errored sessions apart from the crashed ones', async () => {
    await page.goto(releasePage('period=24h&environment=production'));
    const [column] = await settled(
      () => drawnParts(page),
      (parts) => expect(parts).toHaveLength(1),
    );
    expect(column.crashed).toBeGreaterThan(0);
    // Errored sessions exclude the crashed ones already: 4 errored against 1 crashed, drawn so.
    expect(column.errored / column.crashed).toBeCloseTo(ERRORED / CRASHED, 1);
    expect(column.healthy / column.crashed).toBeCloseTo(3 / CRASHED, 1);
    await screenshot(page, 'release-figures-page-1280');
  });

  it('draws the crash-free rate of a single day with data over 14 days', async () => {
    await page.goto(releasePage('period=14d&environment=production'));
    await page.locator('.health-col').first().waitFor();
    // What the rate's drawing covers, across its shapes: a line of one point covers nothing.
    await settled(
      () =>
        page
          .locator('.health-rate svg')
          .evaluate((svg) =>
            Math.max(
              0,
              ...[...svg.querySelectorAll('polyline, line, path, rect, circle')].map(
                (shape) => shape.getBoundingClientRect().width,
              ),
            ),
          ),
      (width) => expect(width).toBeGreaterThan(4),
    );
    await screenshot(page, 'release-figures-14d-1280');
  });

  it('says adoption covers the last 24 hours on the desktop list, under a 14-day heading', async () => {
    await page.goto(`/projects/${project.id}/releases?period=14d`);
    await expect(page.locator('#releases-title').innerText()).resolves.toContain('14 days');
    await settled(
      () => page.locator('.releases-table th.col-adoption').textContent(),
      (text) => expect(text).toMatch(/24 h/),
    );
    await screenshot(page, 'release-figures-list-1280');
  });

  it('shows the same on a 390 px phone', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await mobile.goto(releasePage('period=24h&environment=production'));
      await settled(
        () => figures(mobile),
        (shown) =>
          expect(shown).toMatchObject({ events: '5', 'new issues': '2', 'adoption (24 h)': '100 %' }),
      );
      const [column] = await settled(
        () => drawnParts(mobile),
        (parts) => expect(parts).toHaveLength(1),
      );
      expect(column.errored / column.crashed).toBeCloseTo(ERRORED / CRASHED, 1);
      expect(
        await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'release-figures-page-390');
      await mobile.goto(`/projects/${project.id}/releases?period=14d&environment=production`);
      const row = mobile.getByRole('row', { name: /shop@3\.0\.0/ });
      await settled(
        () => row.locator('td.col-adoption').getAttribute('data-label'),
        (label) => expect(label).toMatch(/24 h/),
      );
      expect(
        await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'release-figures-list-390');
    } finally {
      await phone.close();
    }
  });
});
