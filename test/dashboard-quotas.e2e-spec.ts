/**
 * Quotas and spike protection in a real headless Chromium against the real server: the settings
 * section saving quotas, the daily session quota among them (checked through the API) and showing the server's refusal as it words it,
 * and the banner a spike puts on the project's issues and Usage pages (the spike made through real
 * ingest with the injectable clock); screenshots at laptop (1280×800) and phone (390×844) widths.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { SpikeAlertsService } from '../src/alerts/spike-alerts.service';
import { Clock } from '../src/common/clock';
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

const EMAIL = 'quotas-admin@example.com';
const PASSWORD = 'quotas-secret-pw';

interface Project {
  id: number;
  name: string;
  client_key: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

describe('dashboard quotas and spike protection (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: Project;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const now = Date.now();

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({
      CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`,
      SERVE_DASHBOARD: 'true',
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
      SPIKE_PROTECTION_MIN_PER_HOUR: '3',
    });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
    project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Busy Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1280, height: 800 },
    }));
  }, 120_000);

  afterAll(async () => {
    jest.restoreAllMocks();
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('saves quotas, and refuses one that is not a whole number before sending it', async () => {
    await page.goto(`/projects/${project.id}/settings/quotas`);
    const form = page.locator('#quotas');
    await form.getByLabel('Daily quota').waitFor();
    await settled(
      () => form.getByLabel('Spike protection').isChecked(),
      (value) => expect(value).toBe(true),
    );
    await form.getByLabel('Daily quota').fill('50000');
    await form.getByLabel('Monthly quota').fill('1000000');
    await form.getByLabel('Daily session quota').fill('200000');
    await form.getByRole('button', { name: 'Save quotas' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved. Ingest applies it at once.' }).waitFor();
    expect((await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body).toMatchObject({
      daily_quota: 50_000,
      monthly_quota: 1_000_000,
      daily_session_quota: 200_000,
      spike_protection: true,
    });
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, 'project-settings-quotas');

    await form.getByLabel('Daily quota').fill('-5');
    await form.getByRole('button', { name: 'Save quotas' }).click();
    await form.getByRole('alert').filter({ hasText: 'The daily quota must be a whole number' }).waitFor();
    expect((await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body.daily_quota).toBe(
      50_000,
    );

    // Emptied, the session quota is removed.
    await form.getByLabel('Daily quota').fill('50000');
    await form.getByLabel('Daily session quota').fill('');
    await form.getByRole('button', { name: 'Save quotas' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved. Ingest applies it at once.' }).waitFor();
    expect((await t.api().get(`/api/projects/${project.id}/quotas`).expect(200)).body).toMatchObject({
      daily_quota: 50_000,
      daily_session_quota: null,
    });
  });

  it('shows a spike on the project pages: engaged since, the limit, the events dropped', async () => {
    await t.app.get(SpikeAlertsService).check();
    for (let i = 0; i < 5; i++) {
      await t
        .http()
        .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
        .type('text/plain')
        .send(
          ['{}', '{"type":"event"}', JSON.stringify({ event_id: hex(randomUUID()), message: 'burst' })].join(
            '\n',
          ),
        )
        .expect(i < 3 ? 200 : 429);
    }
    expect(await t.app.get(SpikeAlertsService).check()).toMatchObject({ spikes: 1 });

    await page.goto(`/projects/${project.id}/issues`);
    const banner = page.locator('.refusal-banner');
    await banner.getByRole('heading', { name: 'Spike protection engaged' }).waitFor();
    const text = await banner.innerText();
    expect(text).toContain('more than 3 events in an hour');
    expect(text).toContain('2 events were dropped');
    await screenshot(page, 'project-issues-spike-banner');
    await page.goto(`/projects/${project.id}/usage`);
    await page.locator('.refusal-banner').waitFor();

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/issues`);
      await mobile.locator('.refusal-banner').waitFor();
      await screenshot(mobile, 'project-issues-spike-banner-phone');
      await mobile.goto(`/projects/${project.id}/settings/quotas`);
      await mobile.locator('#quotas').getByLabel('Monthly quota').waitFor();
      await mobile.locator('#quotas').scrollIntoViewIfNeeded();
      await screenshot(mobile, 'project-settings-quotas-phone');
      const overflow = await mobile.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });
});
