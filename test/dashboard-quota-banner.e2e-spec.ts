/**
 * The banner a used-up quota puts on a project's Issues, Usage and Settings pages, in a real
 * headless Chromium against the real server with the injectable clock: which quota, since when,
 * until when, with a link to the quotas; none on a project whose events are accepted; and the
 * `quota_exhausted` alert offered among the rule types. Screenshots at 1280 and 390 px; no console
 * errors. Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
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
  settledCount,
} from './helpers/browser';
import { createQuotaProject, QuotaProject, sendEvent, setClock } from './helpers/quotas';

const EMAIL = 'quota-banner-admin@example.com';
const PASSWORD = 'quota-banner-secret';
const NOW = Date.parse('2031-06-15T10:20:00Z');

describe('dashboard quota banner (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let used: QuotaProject;
  let fine: QuotaProject;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const consoleErrors: string[] = [];

  /** The project's pages that show the banner: the path, and what says the page has loaded. */
  const pages = (projectId: number) =>
    [
      ['issues', `/projects/${projectId}/issues`],
      ['usage', `/projects/${projectId}/usage`],
      ['settings', `/projects/${projectId}/settings/quotas`],
    ] as const;

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({
      CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`,
      SERVE_DASHBOARD: 'true',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
    });
    setClock(t, NOW);
    used = await createQuotaProject(t, { daily_quota: 1, spike_protection: false });
    fine = await createQuotaProject(t, { daily_quota: 1000 });
    await sendEvent(t, used).expect(200);
    await sendEvent(t, used).expect(429);
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
    // The page says "in 14 hours" by its own clock: the server's moment.
    await context.clock.setFixedTime(NOW);
    context.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expectNoPageProblems(problems);
    expect(consoleErrors).toEqual([]);
  });

  it('shows on Issues, Usage and Settings which quota refuses events, since and until when', async () => {
    for (const [name, path] of pages(used.id)) {
      await page.goto(path);
      const banner = page.locator('.refusal-banner');
      await banner.getByRole('heading', { name: 'Daily quota used up' }).waitFor();
      const text = await banner.innerText();
      expect(text).toContain('events are refused (429) and dropped by the SDKs');
      expect(text).toContain('quota of 1 event per UTC day');
      expect(text).toMatch(/Since .+, /);
      expect(text).toMatch(/accepted again at .+ \(in 14 hours\)/);
      expect(await banner.getByRole('link', { name: 'Quotas and spike protection' }).getAttribute('href')).toBe(
        `/projects/${used.id}/settings/quotas`,
      );
      await screenshot(page, `project-${name}-quota-banner`);
    }
  });

  it('shows nothing on a project whose events are accepted', async () => {
    for (const [, path] of pages(fine.id)) {
      const answered = page.waitForResponse((response) => response.url().endsWith(`/api/projects/${fine.id}/quotas/refusal`));
      await page.goto(path);
      expect((await answered).status()).toBe(200);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settledCount(page.locator('.refusal-banner'), 0);
    }
  });

  it('offers an alert rule for a quota used up', async () => {
    await page.goto(`/projects/${used.id}/alerts`);
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('Quota used up');
    await form.getByLabel('When').selectOption('quota_exhausted');
    await form.getByText('One alert each time a quota of the project is used up').waitFor();
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.locator('.rule-card').filter({ hasText: 'Quota used up' }).getByText('When a quota is used up: once per day or month').waitFor();
    const rules = (await t.api().get(`/api/projects/${used.id}/alert-rules`).expect(200)).body as Array<{ alert_type: string }>;
    expect(rules.map((rule) => rule.alert_type)).toEqual(['quota_exhausted']);
  });

  it('fits a 390 px phone', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await phone.clock.setFixedTime(NOW);
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      for (const [name, path] of pages(used.id)) {
        await mobile.goto(path);
        await mobile.locator('.refusal-banner').getByRole('heading', { name: 'Daily quota used up' }).waitFor();
        expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await screenshot(mobile, `mobile-project-${name}-quota-banner`);
      }
    } finally {
      await phone.close();
    }
  });
});
