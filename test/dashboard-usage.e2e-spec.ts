/**
 * The project's Usage page in a real headless Chromium against the real server: accepted errors
 * against the errors dropped, each other kind of data apart, and why in words, at desktop and
 * phone widths; the quota's "today" in the project Settings equal to the errors accepted. The data
 * goes in as SDKs send it (events, a client report, item types the server does not store, an
 * oversized event), through the digest and the outcome fold.
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
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    const project = (await t.api().post('/api/projects').send({ name: 'Usage Shop' }).expect(201)).body as {
      id: number;
      client_key: string;
    };
    projectId = project.id;
    await t.api().patch(`/api/projects/${projectId}/quotas`).send({ daily_quota: 1_000 }).expect(200);
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
        { reason: 'no_parent_span', category: 'span', quantity: 30 },
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
      viewport: { width: 1280, height: 900 },
    }));
    context.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expectNoPageProblems(problems);
    expect(consoleErrors).toEqual([]);
  });

  /** Each reasons card: its heading, and its rows as text (outcome, reason in words, quantity). */
  const reasons = (target: Page) =>
    target.locator('.usage-reasons').evaluateAll((cards) =>
      cards.map((card) => ({
        title: (card.querySelector('h2') as HTMLElement).innerText.trim(),
        rows: [...card.querySelectorAll('tbody tr')].map((row) =>
          [...row.querySelectorAll('td')].map((cell) => (cell as HTMLElement).innerText.trim()),
        ),
      })),
    );

  const EXPECTED_REASONS = [
    {
      title: 'Errors dropped, by reason · 15',
      rows: [
        ['Discarded by the SDK', 'dropped by beforeSend', '12'],
        ['Discarded by the SDK', 'the SDK’s send queue was full', '2'],
        ['Invalid', 'too large', '1'],
      ],
    },
    {
      title: 'Transactions dropped, by reason · 34',
      rows: [
        ['Discarded by the SDK', 'sampled out by the SDK’s sample rate', '30'],
        ['Not stored (unsupported)', 'transaction items', '4'],
      ],
    },
    {
      title: 'Spans dropped, by reason · 30',
      rows: [['Discarded by the SDK', 'a span without a parent span (expected without tracing)', '30']],
    },
    { title: 'Sessions dropped, by reason · 1', rows: [['Invalid', 'no valid release', '1']] },
  ];

  it('shows errors accepted against errors dropped, other data apart, reasons in words, on a desktop', async () => {
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
    // Errors only: 5 accepted against 15 dropped (12 + 2 by the SDK, 1 too large); the spans,
    // transactions and sessions dropped are no errors.
    await settled(
      () => figures.locator('dd').allInnerTexts(),
      (value) => expect(value).toEqual([`${EVENTS} 25 %`, '15 75 %']),
    );
    await settled(
      () => reasons(page),
      (value) => expect(value).toEqual(EXPECTED_REASONS),
    );
    await expect(page.locator('.usage-others').innerText()).resolves.toBe(
      'Other data dropped, counted apart: Transactions 34 · Spans 30 · Sessions 1',
    );
    const columns = page.locator('.usage-col');
    await settledCount(columns, 24);
    // Summed over the bars: an hour may have begun since the data was sent.
    const drawn = await columns.evaluateAll((bars) =>
      ['data-accepted', 'data-dropped'].map((name) =>
        bars.reduce((sum, bar) => sum + Number(bar.getAttribute(name)), 0),
      ),
    );
    expect(drawn).toEqual([EVENTS, 15]);
    await screenshot(page, 'usage-1280');

    await page.getByRole('button', { name: '14d' }).click();
    await page.getByRole('heading', { name: 'Usage · last 14 days' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.usage-col').length === 14);
    await settledCount(page.getByRole('img', { name: /errors accepted and .* dropped, per UTC day/ }), 1);
  });

  it('shows in the project Settings as the quota’s today the errors Usage shows accepted', async () => {
    await page.goto(`/projects/${projectId}/settings/quotas`);
    await settled(
      () => page.getByText(/Events per UTC day\./).innerText(),
      (text) => expect(text).toContain(`Today: ${EVENTS}.`),
    );
  });

  it('fits a 390 px phone without scrolling sideways', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await mobile.goto(`/projects/${projectId}/usage`);
      await mobile.getByRole('heading', { name: /Errors dropped, by reason/ }).waitFor();
      await settled(
        () => reasons(mobile),
        (value) => expect(value).toEqual(EXPECTED_REASONS),
      );
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'usage-390');
    } finally {
      await phone.close();
    }
  });
});
