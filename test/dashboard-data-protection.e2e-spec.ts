/**
 * The data protection settings and the scrubbed paths of an event, in a real headless Chromium
 * against the real server (dashboard served, digest running): saving the settings (checked through
 * the API), the server's refusal shown as it words it, an event whose secrets were scrubbed showing
 * where and why but never the values; screenshots at laptop and phone widths.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import { sendStoredEvent } from './helpers/envelopes';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  settled,
} from './helpers/browser';

const EMAIL = 'privacy-admin@example.com';
const PASSWORD = 'privacy-secret-pw';

interface Project {
  id: number;
  name: string;
  client_key: string;
}

describe('dashboard data protection (browser)', () => {
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
        .send({ name: `Private Shop ${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('saves the settings, and shows the server refusing a list that is too long', async () => {
    await page.goto(`/projects/${project.id}/settings/data-protection`);
    const form = page.locator('#data-protection');
    await form.getByLabel('Scrub secrets before events are stored').waitFor();
    await settled(
      () => form.getByLabel('Scrub secrets before events are stored').isChecked(),
      (value) => expect(value).toBe(true),
    );

    await form.getByLabel('Additional sensitive fields').fill('national_id\n\n  date_of_birth  ');
    await form.getByLabel('Safe fields').fill('auth_provider');
    await form.getByLabel('Also remove IP addresses').check();
    await form.getByRole('button', { name: 'Save data protection' }).click();
    await form
      .getByRole('status')
      .filter({ hasText: 'Events received from now on follow these settings.' })
      .waitFor();
    const saved = await t.api().get(`/api/projects/${project.id}/data-protection`).expect(200);
    expect(saved.body).toMatchObject({
      scrub_data: true,
      scrub_ip_addresses: true,
      sensitive_fields: ['national_id', 'date_of_birth'],
      safe_fields: ['auth_provider'],
    });
    await form.scrollIntoViewIfNeeded();
    await screenshot(page, 'project-settings-data-protection');

    await form
      .getByLabel('Additional sensitive fields')
      .fill(Array.from({ length: 101 }, (_, i) => `field_${i}`).join('\n'));
    await form.getByRole('button', { name: 'Save data protection' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: 'Sensitive fields may hold at most 100 names' })
      .waitFor();
    expect(
      (await t.api().get(`/api/projects/${project.id}/data-protection`).expect(200)).body.sensitive_fields,
    ).toEqual(['national_id', 'date_of_birth']);
  });

  it('shows where an event was scrubbed and why, never the values', async () => {
    const event = await sendStoredEvent(t, project, {
      message: 'signup failed',
      level: 'error',
      user: { id: 'u-7', ip_address: '198.51.100.23' },
      extra: { national_id: 'NI-778899', auth_provider: 'github', password: 'hunter2' },
      request: {
        url: 'https://shop.example/signup',
        method: 'POST',
        headers: { Authorization: 'Bearer sk_live_abc', 'User-Agent': 'Mozilla/5.0' },
      },
    });
    await page.goto(`/issues/${event.issue_id}`);
    const section = page.locator('section[aria-labelledby="ev-scrubbed"]');
    await section.getByRole('heading', { name: 'Scrubbed before storage' }).waitFor();
    const text = await section.innerText();
    expect(text).toContain('extra.national_id');
    expect(text).toContain("its key is one of the project's sensitive fields");
    expect(text).toContain('request.headers.Authorization');
    expect(text).toContain('user.ip_address');
    const body = await page.locator('main').innerText();
    for (const secret of ['NI-778899', 'hunter2', 'sk_live_abc', '198.51.100.23'])
      expect(body).not.toContain(secret);
    expect(body).toContain('github');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'event-scrubbed-paths');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/projects/${project.id}/settings/data-protection`);
      await mobile.locator('#data-protection').getByLabel('Safe fields').waitFor();
      await mobile.locator('#data-protection').scrollIntoViewIfNeeded();
      await screenshot(mobile, 'project-settings-data-protection-phone');
      const overflow = await mobile.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await mobile.goto(`/issues/${event.issue_id}`);
      await mobile.locator('section[aria-labelledby="ev-scrubbed"]').waitFor();
      await screenshot(mobile, 'event-scrubbed-paths-phone');
    } finally {
      await phone.close();
    }
  });
});
