/**
 * The release pages in a real headless Chromium against the real server: the project's Releases tab,
 * a release's page (its issues first seen and resolved there, its deploys), the issue page's links to
 * its releases and the release "resolved in the next release" turned out to be, and the setup's
 * "Send a test event", at laptop and phone widths. Events go in through ingest as SDKs send them.
 * The health figures need sessions: they are checked in dashboard-release-health.e2e-spec.ts; here
 * they are absent and show "—".
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
import { sendStoredEvent } from './helpers/envelopes';
import { eventually } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const EMAIL = 'releases-admin@example.com';
const PASSWORD = 'secret-releases';

describe('dashboard release pages (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: { id: number; slug: string; client_key: string };
  let fresh: { id: number; slug: string };
  const issues: Record<string, number> = {};
  const problems: PageProblems = { errors: [], cspViolations: [] };

  /** One event through ingest, as an SDK sends it; waits until it is stored. */
  async function send(
    message: string,
    release: string | undefined,
    environment = 'production',
  ): Promise<void> {
    issues[message] = (
      await sendStoredEvent(t, project, { message, release, environment, level: 'error' })
    ).issue_id;
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Release Shop' }).expect(201)).body;
    fresh = (await t.api().post('/api/projects').send({ name: 'Fresh App' }).expect(201)).body;
    await send('Checkout failed', 'shop@1.0.0');
    await send('Checkout failed', 'shop@1.0.0');
    await send('Cart failed', 'shop@1.0.0');
    await send('Checkout failed', 'shop@1.1.0');
    await send('Search failed', 'shop@1.1.0', 'staging');
    await t
      .api()
      .post(`/api/0/organizations/default/releases/${encodeURIComponent('shop@1.1.0')}/deploys/`)
      .send({ environment: 'production', name: 'Deploy 42', url: 'https://deploys.example.com/42' })
      .expect(201);
    // Resolved in the next release while the newest is shop@1.1.0; then shop@1.2.0 comes.
    await t
      .api()
      .patch(`/api/issues/${issues['Cart failed']}`)
      .send({ state: 'resolved', resolved_in: 'next_release' })
      .expect(200);
    await send('Payment failed', 'shop@1.2.0');
    await settleRollups(t.app);

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1366, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  /** The releases table as text, a row per release: its cells. */
  const releaseRows = (target: Page) =>
    target
      .locator('.releases-table tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) =>
          [...row.querySelectorAll('td')].map((cell) => (cell as HTMLElement).innerText.trim()),
        ),
      );

  const overflow = (target: Page) =>
    target.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  it('lists the releases in a tab of the project, with events, new issues and health columns', async () => {
    await page.goto(`/projects/${project.id}/issues`);
    const tab = page
      .getByRole('navigation', { name: 'Project sections' })
      .getByRole('link', { name: 'Releases', exact: true });
    await tab.click();
    await page.getByRole('heading', { name: 'Releases · last 14 days' }).waitFor();
    await settled(
      () => tab.getAttribute('aria-current'),
      (value) => expect(value).toBe('page'),
    );
    await page.locator('.releases-table tbody tr').nth(2).waitFor();
    const rows = await releaseRows(page);
    // Release, trend, crash-free sessions and users, adoption, sessions, events, new issues, first and last seen.
    expect(rows.map((row) => [row[0], row[6], row[7]])).toEqual([
      ['shop@1.2.0', '1', '1'],
      ['shop@1.1.0', '2', '1'],
      ['shop@1.0.0', '3', '2'],
    ]);
    // No sessions were sent: no release has health figures, and the project's rates are unknown
    // (no sessions to count), its sessions and users zero.
    expect(rows[0].slice(1, 6)).toEqual(['—', '—', '—', '—', '—']);
    await settled(
      () => page.locator('.health-figure dd').allInnerTexts(),
      (value) => expect(value).toEqual(['—', '—', '0', '0']),
    );
    await screenshot(page, 'releases-1366');

    // The period and the environment are kept in the address.
    await page.getByRole('group', { name: 'Period' }).getByRole('button', { name: '24h' }).click();
    await page.getByRole('heading', { name: 'Releases · last 24 hours' }).waitFor();
    await page.getByLabel('Environment').selectOption('staging');
    await page.waitForURL(/period=24h&environment=staging/);
    // Events and new issues follow the environment: staging had one event, of shop@1.1.0.
    await settled(
      async () => (await releaseRows(page)).map((row) => [row[0], row[6], row[7]]),
      (value) =>
        expect(value).toEqual([
          ['shop@1.2.0', '0', '0'],
          ['shop@1.1.0', '1', '1'],
          ['shop@1.0.0', '0', '0'],
        ]),
    );
    await page.getByLabel('Environment').selectOption('production');
    await page.waitForURL(/period=24h&environment=production/);
    await settled(
      async () => (await releaseRows(page)).map((row) => row[7]),
      (value) => expect(value).toEqual(['1', '0', '2']),
    );

    // New issues link to the issue list searching them.
    await page
      .getByRole('row', { name: /shop@1\.0\.0/ })
      .getByRole('link', { name: '2' })
      .click();
    await page.waitForURL(/\/issues\?query=first_release%3Ashop%401\.0\.0/);
    await page.locator('.issues-table .issue-link').nth(1).waitFor();
    await settled(
      () => page.locator('.issues-table .issue-title').allInnerTexts(),
      (titles) => expect(titles.sort()).toEqual(['Message: Cart failed', 'Message: Checkout failed']),
    );

    // The search box suggests the release keys, and the project's releases as their values.
    const box = page.getByRole('combobox', { name: 'Search issues' });
    await box.fill('');
    await box.pressSequentially('resolved_in:shop@1.2');
    await page
      .getByRole('listbox', { name: 'Suggestions' })
      .getByRole('option', { name: 'resolved_in:shop@1.2.0' })
      .click();
    await box.press('Enter');
    await page.waitForURL(/query=resolved_in%3Ashop%401\.2\.0/);
    await eventually(
      async () =>
        (await page.locator('.issues-table .issue-title').allInnerTexts()).join() === 'Message: Cart failed',
    );
  });

  it('shows a release: its figures, the issues first seen in it, and its deploys', async () => {
    await page.goto(`/projects/${project.id}/releases`);
    await page.getByRole('link', { name: 'shop@1.1.0' }).click();
    await page.getByRole('heading', { name: 'shop@1.1.0', level: 1 }).waitFor();
    expect(page.url()).toContain(`/projects/${project.id}/releases/shop%401.1.0`);
    const firstSeen = page.locator('section', {
      has: page.getByRole('heading', { name: /Issues first seen in this release/ }),
    });
    await firstSeen.locator('.issue-title').first().waitFor();
    await settled(
      () => firstSeen.locator('.issue-title').allInnerTexts(),
      (value) => expect(value).toEqual(['Message: Search failed']),
    );
    await page.getByRole('heading', { name: 'Issues resolved in this release · 0' }).waitFor();
    const deploys = page.locator('.deploys-table tbody tr');
    await settled(
      () => deploys.locator('td').first().innerText(),
      (value) => expect(value).toBe('production'),
    );
    await settled(
      () => deploys.getByRole('link', { name: 'Deploy 42' }).getAttribute('href'),
      (value) => expect(value).toBe('https://deploys.example.com/42'),
    );
    await page.getByText('No sessions in this period').waitFor();
    await screenshot(page, 'release-1366');
  });

  it('lists the issues resolved in the release that came after "resolved in the next release"', async () => {
    await page.goto(`/projects/${project.id}/releases/${encodeURIComponent('shop@1.2.0')}`);
    const resolved = page.locator('section', {
      has: page.getByRole('heading', { name: /Issues resolved in this release/ }),
    });
    await resolved.locator('.issue-title').first().waitFor();
    await settled(
      () => resolved.locator('.issue-title').allInnerTexts(),
      (value) => expect(value).toEqual(['Message: Cart failed']),
    );
    await page.getByRole('heading', { name: 'Issues first seen in this release · 1' }).waitFor();
  });

  it('says which release "the next release" was on the issue page, and links to its releases', async () => {
    await page.goto(`/issues/${issues['Cart failed']}`);
    await page.getByText('Resolved in the next release (shop@1.2.0)').waitFor();

    await page.goto(`/issues/${issues['Checkout failed']}`);
    const header = page.locator('.issue-header');
    await header.locator('.issue-releases').waitFor();
    await settled(
      () => header.locator('.issue-releases .release-link').allInnerTexts(),
      (value) => expect(value).toEqual(['shop@1.0.0', 'shop@1.1.0']),
    );
    // First and last release are links too.
    await settled(
      () => header.locator('.release-line .release-link').allInnerTexts(),
      (value) => expect(value).toEqual(['shop@1.0.0', 'shop@1.1.0']),
    );
    await screenshot(page, 'issue-releases-1366');
    await header.locator('.issue-releases').getByRole('link', { name: 'shop@1.1.0' }).click();
    await page.getByRole('heading', { name: 'shop@1.1.0', level: 1 }).waitFor();
  });

  it('sets release and environment in the setup snippet, and sends a test event that arrives', async () => {
    await page.goto(`/projects/${fresh.id}/issues`);
    const snippet = page.locator('.setup .code-block code');
    await snippet.waitFor();
    const code = await snippet.innerText();
    expect(code).toContain(`release: "${fresh.slug}@1.0.0"`);
    expect(code).toContain('environment: "production"');
    await page.getByRole('tab', { name: 'Browser (@sentry/browser)' }).click();
    await settled(
      () => snippet.innerText(),
      (value) => expect(value).toContain(`release: "${fresh.slug}@1.0.0"`),
    );

    await page.getByRole('button', { name: 'Send a test event' }).click();
    const arrived = page.getByRole('link', { name: `issue ${fresh.slug.toUpperCase()}-1` });
    await arrived.waitFor({ timeout: 30_000 });
    await screenshot(page, 'setup-test-event-1366');
    await arrived.click();
    await page.getByRole('heading', { name: /Test event sent from the dashboard/ }).waitFor();
  });

  it('fits a 390 px phone: the releases, a release, an issue with its releases, the setup', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/releases`);
      await mobile.locator('.releases-table tbody tr').nth(2).waitFor();
      expect(await overflow(mobile)).toBeLessThanOrEqual(0);
      // The version leads each card, above the figures.
      const first = mobile.locator('.releases-table tbody tr').first();
      const version = await first.locator('.col-release').boundingBox();
      const events = await first.locator('td[data-label="Events"]').boundingBox();
      expect(version!.y).toBeLessThan(events!.y);
      await screenshot(mobile, 'releases-390');

      await mobile.goto(`/projects/${project.id}/releases/${encodeURIComponent('shop@1.1.0')}`);
      await mobile.locator('.deploys-table tbody tr').waitFor();
      await mobile.locator('.release-issues .issue-title').first().waitFor();
      expect(await overflow(mobile)).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'release-390');

      await mobile.goto(`/issues/${issues['Checkout failed']}`);
      await mobile.locator('.issue-releases .release-link').first().waitFor();
      expect(await overflow(mobile)).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'issue-releases-390');

      const other = (await t.api().post('/api/projects').send({ name: 'Phone App' }).expect(201)).body;
      await mobile.goto(`/projects/${other.id}/issues`);
      await mobile.getByRole('button', { name: 'Send a test event' }).click();
      await mobile
        .getByRole('link', { name: `issue ${other.slug.toUpperCase()}-1` })
        .waitFor({ timeout: 30_000 });
      expect(await overflow(mobile)).toBeLessThanOrEqual(0);
      await screenshot(mobile, 'setup-test-event-390');
    } finally {
      await phone.close();
    }
  });
});
