/**
 * An event's attachments in the dashboard, in a real headless Chromium against the real server:
 * listed with name, type and size in the event view, downloaded with the session's cookie, at
 * desktop and phone widths.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import { attachment, envelope, hex, sendEnvelope } from './helpers/attachments';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
} from './helpers/browser';
import { storedEvent } from './helpers/queues';

const EMAIL = 'attachments-admin@example.com';
const PASSWORD = 'secret-attachments';

describe('dashboard: attachments of an event (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let issueId: number;
  const minidump = Buffer.concat([Buffer.from('MDMP'), randomBytes(1_500_000)]);
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    const project = (await t.api().post('/api/projects').send({ name: 'Crashing App' }).expect(201)).body as {
      id: number;
      client_key: string;
    };
    const eventId = randomUUID();
    const event = {
      event_id: hex(eventId),
      level: 'fatal',
      platform: 'native',
      exception: { values: [{ type: 'EXC_BAD_ACCESS', value: 'Attempted to dereference null pointer' }] },
    };
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [
        { header: { type: 'event' }, payload: JSON.stringify(event) },
        attachment('upload_file_minidump-2026-11-26-a-very-long-name-from-the-crash-handler.dmp', minidump, {
          attachment_type: 'event.minidump',
        }),
        attachment('app.log', 'started\nloading settings\ncrashed\n', { content_type: 'text/plain' }),
        attachment('screenshot.png', randomBytes(48_213), { content_type: 'image/png' }),
      ]),
    ).expect(200);
    issueId = (await storedEvent(t, eventId, 30_000)).issue_id;
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1366, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  const rows = (target: Page) =>
    target
      .locator('.attachment')
      .evaluateAll((items) =>
        items.map((item) => [
          (item.querySelector('.attachment-name') as HTMLElement).innerText.trim(),
          (item.querySelector('.attachment-meta') as HTMLElement).innerText.trim(),
        ]),
      );

  it('lists the files with name, type and size, and downloads them', async () => {
    await page.goto(`/issues/${issueId}`);
    const section = page.getByRole('region', { name: 'Attachments (3)' });
    await section.waitFor();
    expect(await rows(page)).toEqual([
      [
        'upload_file_minidump-2026-11-26-a-very-long-name-from-the-crash-handler.dmp',
        'event.minidump · application/octet-stream · 1.4 MB',
      ],
      ['app.log', 'event.attachment · text/plain · 33 B'],
      ['screenshot.png', 'event.attachment · image/png · 47 KB'],
    ]);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'event-attachments-1366');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: /^Download upload_file_minidump/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(
      'upload_file_minidump-2026-11-26-a-very-long-name-from-the-crash-handler.dmp',
    );
    expect(readFileSync(await download.path()).equals(minidump)).toBe(true);
  });

  it('fits a 390 px phone without scrolling sideways', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/issues/${issueId}`);
      const section = mobile.getByRole('region', { name: 'Attachments (3)' });
      await section.waitFor();
      expect((await rows(mobile)).length).toBe(3);
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await section.scrollIntoViewIfNeeded();
      await screenshot(mobile, 'event-attachments-390');
    } finally {
      await phone.close();
    }
  });
});
