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

  it('counts the values replaced, not the rules that matched them, and lists each path once', async () => {
    // Five values; three of them matched by two rules each (eight path and rule pairs in `scrubbed`).
    const event = await sendStoredEvent(t, project, {
      message: 'payment failed',
      level: 'error',
      extra: {
        database: 'postgres://shop:db-pw-4411@db.example/shop?password=second-pw-77',
        callback: 'https://hook:cb-pw-9182@hooks.example/paid?token=cb-token-5521',
        payment: 'card 4111 1111 1111 1111 iban DE89370400440532013000',
        password: 'hunter2',
      },
      request: {
        url: 'https://shop.example/pay',
        method: 'POST',
        headers: { Authorization: 'Basic c2hvcDpwdw==' },
      },
    });
    const pairs = event.scrubbed as { path: string; rule: string }[];
    expect(pairs).toHaveLength(8);
    expect(new Set(pairs.map((pair) => pair.path)).size).toBe(5);

    await page.goto(`/issues/${event.issue_id}`);
    const section = page.locator('section[aria-labelledby="ev-scrubbed"]');
    await section.getByRole('heading', { name: 'Scrubbed before storage' }).waitFor();
    await settled(
      () => section.innerText(),
      (text) => expect(text).toContain('5 values were replaced by'),
    );
    const rows = section.locator('table.scrubbed-paths tbody tr');
    expect(await rows.count()).toBe(5);
    const database = rows.filter({ has: page.locator('th', { hasText: /^extra\.database$/ }) });
    expect(await database.count()).toBe(1);
    expect(await database.locator('td').innerText()).toBe('password in a URL, its key names a secret');
    const payment = rows.filter({ has: page.locator('th', { hasText: /^extra\.payment$/ }) });
    expect(await payment.locator('td').innerText()).toBe('credit card number, IBAN');
    const body = await page.locator('main').innerText();
    for (const secret of [
      'db-pw-4411',
      'second-pw-77',
      'cb-pw-9182',
      'cb-token-5521',
      '4111 1111',
      'hunter2',
    ])
      expect(body).not.toContain(secret);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'event-scrubbed-values');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/issues/${event.issue_id}`);
      const phoneSection = mobile.locator('section[aria-labelledby="ev-scrubbed"]');
      await phoneSection.getByText('5 values were replaced by').waitFor();
      await phoneSection.scrollIntoViewIfNeeded();
      await screenshot(mobile, 'event-scrubbed-values-phone');
      const overflow = await mobile.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
    } finally {
      await phone.close();
    }
  });
});
