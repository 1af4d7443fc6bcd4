/**
 * Release health as the dashboard shows it, in a real headless Chromium against the real server:
 * `session` envelopes as @sentry/browser and @sentry/node send them go through ingest and the session
 * counting; the Releases tab and a release's page must show the crash-free rates, the adoption and the
 * sessions that the test works out on its own from what it sent, at laptop and phone widths.
 */
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
  settled,
} from './helpers/browser';
import { postEnvelope, sendStoredEvent } from './helpers/envelopes';
import { eventually } from './helpers/queues';

const EMAIL = 'health-admin@example.com';
const PASSWORD = 'secret-health';

const hex = (uuid: string) => uuid.replace(/-/g, '');

/** One session as the JavaScript SDKs serialise it (`Session.toJSON`): started and ended in one update. */
interface SentSession {
  release: string;
  user: string;
  status: 'exited' | 'crashed';
  errors: number;
}

const SESSIONS: SentSession[] = [
  { release: 'shop@2.0.0', user: 'u1', status: 'exited', errors: 0 },
  { release: 'shop@2.0.0', user: 'u2', status: 'exited', errors: 0 },
  { release: 'shop@2.0.0', user: 'u3', status: 'exited', errors: 1 },
  { release: 'shop@2.0.0', user: 'u3', status: 'crashed', errors: 1 },
  { release: 'shop@1.0.0', user: 'u4', status: 'exited', errors: 0 },
  { release: 'shop@1.0.0', user: 'u5', status: 'exited', errors: 0 },
  { release: 'shop@1.0.0', user: 'u5', status: 'exited', errors: 0 },
];

/** The figures worked out here from SESSIONS, independently of the server. */
function expected(release?: string) {
  const of = SESSIONS.filter((session) => release === undefined || session.release === release);
  const users = new Set(of.map((session) => session.user));
  const crashedUsers = new Set(
    of.filter((session) => session.status === 'crashed').map((session) => session.user),
  );
  const allUsers = new Set(SESSIONS.map((session) => session.user));
  return {
    sessions: of.length,
    users: users.size,
    crashFreeSessions: (100 * of.filter((session) => session.status !== 'crashed').length) / of.length,
    crashFreeUsers: (100 * (users.size - crashedUsers.size)) / users.size,
    adoptionSessions: (100 * of.length) / SESSIONS.length,
    adoptionUsers: (100 * users.size) / allUsers.size,
    crashed: of.filter((session) => session.status === 'crashed').length,
  };
}

/** A percent as the dashboard writes it (en-US): one decimal at most, none when whole. */
const shown = (value: number) => `${Math.round(value * 10) / 10} %`;

describe('dashboard release health (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: { id: number; client_key: string };
  const problems: PageProblems = { errors: [], cspViolations: [] };

  const envelope = (lines: string[]) => postEnvelope(t, project, lines);

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Health Shop' }).expect(201)).body;
    // An event per release, so that each is a release of the project whatever else counts; their
    // messages differ in words, not only in digits (which grouping treats as variable), so that each
    // release opens an issue of its own.
    for (const [release, place] of [
      ['shop@1.0.0', 'checkout'],
      ['shop@2.0.0', 'basket'],
    ]) {
      await sendStoredEvent(t, project, {
        message: `Boom in the ${place}`,
        release,
        environment: 'production',
      });
    }
    const now = new Date();
    for (const session of SESSIONS) {
      const started = new Date(now.getTime() - 60_000).toISOString();
      await envelope([
        JSON.stringify({
          sent_at: now.toISOString(),
          sdk: { name: 'sentry.javascript.browser', version: '10.0.0' },
        }),
        '{"type":"session"}',
        JSON.stringify({
          sid: hex(randomUUID()),
          did: session.user,
          init: true,
          started,
          timestamp: now.toISOString(),
          status: session.status,
          errors: session.errors,
          duration: 60,
          attrs: { release: session.release, environment: 'production', user_agent: 'Mozilla/5.0' },
        }),
      ]);
    }
    // Counted in batches: wait until the API has them all.
    await eventually(async () => {
      const response = await t
        .api()
        .get(`/api/projects/${project.id}/release-health`)
        .query({ period: '24h' });
      return response.status === 200 && response.body.totals?.sessions === SESSIONS.length;
    }, 60_000);

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1366, height: 900 },
    }));
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  const rowOf = async (target: Page, version: string) => {
    const row = target.getByRole('row', { name: new RegExp(version.replace(/[.@]/g, '\\$&')) });
    await row.waitFor();
    return row
      .locator('td')
      .evaluateAll((cells) => cells.map((cell) => (cell as HTMLElement).innerText.trim()));
  };

  it('shows each release’s crash-free rates, adoption, sessions and trend on the Releases tab', async () => {
    await page.goto(`/projects/${project.id}/releases?period=24h`);
    await page.locator('.releases-table .sparkline').nth(1).waitFor();
    for (const version of ['shop@2.0.0', 'shop@1.0.0']) {
      const figures = expected(version);
      const cells = await rowOf(page, version);
      // Release, trend, crash-free sessions and users, adoption, sessions, …
      expect(cells.slice(2, 6)).toEqual([
        shown(figures.crashFreeSessions),
        shown(figures.crashFreeUsers),
        shown(figures.adoptionSessions),
        String(figures.sessions),
      ]);
      expect(
        await page
          .getByRole('row', { name: new RegExp(version.replace(/[.@]/g, '\\$&')) })
          .locator('.adoption')
          .getAttribute('title'),
      ).toContain(`users (${shown(figures.adoptionUsers)})`);
    }
    const project_ = expected();
    await settled(
      () => page.locator('.health-figure dd').allInnerTexts(),
      (value) =>
        expect(value).toEqual([
          shown(project_.crashFreeSessions),
          shown(project_.crashFreeUsers),
          String(project_.sessions),
          String(project_.users),
        ]),
    );
    await screenshot(page, 'release-health-list-1366');
  });

  it('draws a release’s sessions and crash-free rate, with its figures', async () => {
    await page.goto(`/projects/${project.id}/releases/${encodeURIComponent('shop@2.0.0')}?period=24h`);
    const figures = expected('shop@2.0.0');
    await page.locator('.health-col').first().waitFor();
    const drawn = await page
      .locator('.health-col')
      .evaluateAll((columns) =>
        ['data-sessions', 'data-crashed'].map((name) =>
          columns.reduce((sum, column) => sum + Number(column.getAttribute(name)), 0),
        ),
      );
    expect(drawn).toEqual([figures.sessions, figures.crashed]);
    await settled(
      () => page.locator('.release-figures .health-figure dd').allInnerTexts(),
      (value) =>
        expect(value).toEqual([
          shown(figures.crashFreeSessions),
          shown(figures.crashFreeUsers),
          shown(figures.adoptionSessions),
          String(figures.sessions),
          String(figures.users),
          String(figures.crashed),
          '1',
          '1',
        ]),
    );
    await screenshot(page, 'release-health-page-1366');
  });

  it('shows the same on a 390 px phone', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/releases?period=24h`);
      await mobile.locator('.releases-table .sparkline').nth(1).waitFor();
      expect(
        await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'release-health-list-390');
      await mobile.goto(`/projects/${project.id}/releases/${encodeURIComponent('shop@2.0.0')}?period=24h`);
      await mobile.locator('.health-col').first().waitFor();
      expect(
        await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'release-health-page-390');
    } finally {
      await phone.close();
    }
  });
});
