/**
 * The project's Usage page in a real headless Chromium against the real server: accepted errors
 * against what was dropped and why, at desktop and phone widths. The data goes in as SDKs send it
 * (events, a client report, item types the server does not store, an oversized event), through the
 * digest and the outcome fold.
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
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
import { storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const EMAIL = 'usage-admin@example.com';
const PASSWORD = 'secret-usage';
const EVENTS = 5;

const hex = (uuid: string) => uuid.replace(/-/g, '');

describe('dashboard usage page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId: number;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    const project = (await t.api().post('/api/projects').send({ name: 'Usage Shop' }).expect(201)).body as {
      id: number;
      client_key: string;
    };
    projectId = project.id;
    const send = (lines: string[]) =>
      t
        .http()
        .post(`/api/${projectId}/envelope/?sentry_key=${hex(project.client_key)}`)
        .type('text/plain')
        .send(lines.join('\n'));
    const eventIds = Array.from({ length: EVENTS }, () => randomUUID());
    for (const eventId of eventIds) {
      await send([
        '{}',
        '{"type":"event"}',
        JSON.stringify({ event_id: hex(eventId), message: 'Checkout failed' }),
      ]).expect(200);
    }
    const report = {
      timestamp: Date.now() / 1000,
      discarded_events: [
        { reason: 'sample_rate', category: 'transaction', quantity: 30 },
        { reason: 'before_send', category: 'error', quantity: 12 },
        { reason: 'queue_overflow', category: 'error', quantity: 2 },
      ],
    };
    await send([
      '{}',
      '{"type":"client_report"}',
      JSON.stringify(report),
      ...Array.from({ length: 4 }, () => ['{"type":"transaction"}', '{}']).flat(),
      // A session without a release: dropped as invalid.
      '{"type":"session"}',
      '{"init":true}',
    ]).expect(200);
    const large = JSON.stringify({ message: 'x'.repeat(1024 * 1024) });
    await send(['{}', JSON.stringify({ type: 'event', length: Buffer.byteLength(large) }), large]).expect(
      413,
    );
    for (const eventId of eventIds) await storedEvent(t, eventId, 30_000);
    await settleRollups(t.app);
    await t.app.get(OutcomeFolder).fold();

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1366, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  /** The table's rows as text: outcome, category, reason, quantity. */
  const reasons = (target: Page) =>
    target
      .locator('.usage-table tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) =>
          [...row.querySelectorAll('td')].map((cell) => (cell as HTMLElement).innerText.trim()),
        ),
      );

  it('shows accepted against dropped, by reason, with a chart, on a desktop', async () => {
    await page.goto(`/projects/${projectId}/issues`);
    const tab = page
      .getByRole('navigation', { name: 'Project sections' })
      .getByRole('link', { name: 'Usage', exact: true });
    await tab.click();
    await page.getByRole('heading', { name: 'Usage · last 24 hours' }).waitFor();
    await settled(
      () => tab.getAttribute('aria-current'),
      (value) => expect(value).toBe('page'),
    );
    const figures = page.locator('.usage-figure');
    await figures.first().waitFor();
    await settled(
      () => figures.locator('strong').allTextContents(),
      (value) => expect(value).toEqual([String(EVENTS), '50']),
    );
    expect(await reasons(page)).toEqual([
      ['Discarded by the SDK', 'transaction', 'sample_rate', '30'],
      ['Discarded by the SDK', 'error', 'before_send', '12'],
      ['Not stored (unsupported)', 'transaction', 'transaction', '4'],
      ['Discarded by the SDK', 'error', 'queue_overflow', '2'],
      ['Invalid', 'error', 'too_large', '1'],
      ['Invalid', 'session', 'invalid_release', '1'],
    ]);
    const columns = page.locator('.usage-col');
    await settledCount(columns, 24);
    // Summed over the bars: an hour may have begun since the data was sent.
    const drawn = await columns.evaluateAll((bars) =>
      ['data-accepted', 'data-dropped'].map((name) =>
        bars.reduce((sum, bar) => sum + Number(bar.getAttribute(name)), 0),
      ),
    );
    expect(drawn).toEqual([EVENTS, 50]);
    await screenshot(page, 'usage-1366');

    await page.getByRole('button', { name: '14d' }).click();
    await page.getByRole('heading', { name: 'Usage · last 14 days' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.usage-col').length === 14);
    await settledCount(page.getByRole('img', { name: /accepted and .* dropped, per UTC day/ }), 1);
  });

  it('fits a 390 px phone without scrolling sideways', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${projectId}/usage`);
      await mobile.getByRole('heading', { name: 'Dropped, by reason' }).waitFor();
      await mobile.locator('.usage-table tbody tr').first().waitFor();
      const rows = await reasons(mobile);
      expect(rows).toHaveLength(6);
      // The category moves under the outcome: a column fewer to share 390 px.
      expect(rows[0][0]).toBe('Discarded by the SDK · transaction');
      await settled(
        () => mobile.locator('th.usage-category-column').isVisible(),
        (value) => expect(value).toBe(false),
      );
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'usage-390');
    } finally {
      await phone.close();
    }
  });
});
