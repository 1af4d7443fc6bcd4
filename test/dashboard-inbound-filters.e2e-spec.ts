/**
 * The inbound filters in the project settings, in a real headless Chromium against the real server:
 * turning filters on and entering globs and ranges (checked through the API), the server's refusal
 * of a range that does not parse shown as it words it, and a filter's count of dropped events once
 * a crawler's event was filtered; screenshots at laptop (1280×800) and phone (390×844) widths.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { USER_AGENTS } from '../src/privacy/filters/user-agents.fixtures';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  SCREENSHOTS,
  settled,
} from './helpers/browser';

const EMAIL = 'filters-admin@example.com';
const PASSWORD = 'filters-secret-pw';

interface Project {
  id: number;
  name: string;
  client_key: string;
}

describe('dashboard inbound filters (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: Project;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `Filtered Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('saves the filters, and shows the server refusing a range that does not parse', async () => {
    await page.goto(`/projects/${project.id}/settings/inbound-filters`);
    const form = page.locator('#inbound-filters');
    await form.getByLabel('Web crawlers').waitFor();
    await settled(
      () => form.getByLabel('Web crawlers').isChecked(),
      (value) => expect(value).toBe(false),
    );

    await form.getByLabel('Web crawlers').check();
    await form.getByLabel('Errors caused by browser extensions').check();
    await form.getByLabel('Internet Explorer 8 and older').check();
    await form.getByLabel('Internet Explorer 11').check();
    await form.getByLabel('Releases').fill('*-beta*\n\n  web@1.0.*  ');
    await form.getByLabel('Error messages').fill('*ResizeObserver loop*');
    await form.getByLabel('Client IP addresses').fill('203.0.113.0/24\n2001:db8::/32');
    await form.getByRole('button', { name: 'Save inbound filters' }).click();
    await form.getByRole('status').filter({ hasText: 'Matching events are dropped from now on' }).waitFor();
    const saved = await t.api().get(`/api/projects/${project.id}/inbound-filters`).expect(200);
    expect(saved.body).toMatchObject({
      web_crawlers: true,
      browser_extensions: true,
      localhost: false,
      legacy_browsers: ['ie_pre_9', 'ie11'],
      releases: ['*-beta*', 'web@1.0.*'],
      error_messages: ['*ResizeObserver loop*'],
      client_ips: ['203.0.113.0/24', '2001:db8::/32'],
    });

    await form.getByLabel('Client IP addresses').fill('10.0.0.0/33');
    await form.getByRole('button', { name: 'Save inbound filters' }).click();
    await form.getByRole('alert').filter({ hasText: 'has a prefix length outside 0 to 32' }).waitFor();
    expect(
      (await t.api().get(`/api/projects/${project.id}/inbound-filters`).expect(200)).body.client_ips,
    ).toEqual(['203.0.113.0/24', '2001:db8::/32']);
  });

  it('shows how many events a filter dropped, at laptop and phone widths', async () => {
    const eventId = randomUUID().replace(/-/g, '');
    const body = [
      JSON.stringify({ event_id: eventId }),
      '{"type":"event"}',
      JSON.stringify({
        event_id: eventId,
        message: 'crawled',
        request: { url: 'https://shop.example.com/', headers: { 'User-Agent': USER_AGENTS.googlebot } },
      }),
    ].join('\n');
    await t
      .http()
      .post(`/api/${project.id}/envelope/?sentry_key=${project.client_key.replace(/-/g, '')}`)
      .type('text/plain')
      .send(body)
      .expect(200, { id: eventId });
    await t.app.get(OutcomeFolder).fold();

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/projects/${project.id}/settings/inbound-filters`);
    const form = page.locator('#inbound-filters');
    const count = form.locator('.filter-count[data-reason="web_crawlers"]');
    await count.filter({ hasText: '1 filtered in 24 h · 1 in 30 d' }).waitFor();
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, 'project-settings-inbound-filters');
    await form.screenshot({ path: join(SCREENSHOTS, 'project-settings-inbound-filters-form.png') });

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/settings/inbound-filters`);
      const phoneForm = mobile.locator('#inbound-filters');
      await phoneForm.getByLabel('Client IP addresses').waitFor();
      await phoneForm.scrollIntoViewIfNeeded();
      await phoneForm.screenshot({ path: join(SCREENSHOTS, 'project-settings-inbound-filters-phone.png') });
      const overflow = await mobile.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });
});
