/**
 * An event's attachments in the dashboard, in a real headless Chromium against the real server:
 * found from the issue (its summary, the event list's counts) though the issue opens on a newer
 * event without files, listed with name, type in words and size, images and text previewed (never
 * HTML or SVG), downloaded with the session's cookie, at desktop and phone widths.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import { attachment, envelope, hex, sendEnvelope, solidPng } from './helpers/attachments';
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
  const screenshotPng = solidPng(320, 200, [59, 47, 143]);
  // Files a browser would run if it rendered them on the dashboard's origin.
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  const html = '<h1>hi</h1><script>alert(1)</script>';
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
      fingerprint: ['null-pointer'],
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
        attachment('screenshot.png', screenshotPng, { content_type: 'image/png' }),
        attachment('logo.svg', svg, { content_type: 'image/svg+xml' }),
        attachment('report.html', html, { content_type: 'text/html' }),
      ]),
    ).expect(200);
    issueId = (await storedEvent(t, eventId, 30_000)).issue_id;
    // A newer event of the same issue, without files: the issue opens on this one.
    const newer = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(newer) }, [
        { header: { type: 'event' }, payload: JSON.stringify({ ...event, event_id: hex(newer) }) },
      ]),
    ).expect(200);
    expect((await storedEvent(t, newer, 30_000)).issue_id).toBe(issueId);
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

  it('says on the issue which event has files, though the issue opens on a newer one without', async () => {
    await page.goto(`/issues/${issueId}`);
    const stat = page.locator('.issue-stats div', { has: page.locator('dt', { hasText: 'Attachments' }) });
    await stat.waitFor();
    expect((await stat.locator('dd').innerText()).replace(/\s+/g, ' ')).toMatch(
      /^5 files · 1\.4 MB in 1 event · show$/,
    );
    // The event list marks the event with files, and only that one.
    await page.locator('.event-item').nth(1).waitFor();
    expect(await page.locator('.event-item-files').allInnerTexts()).toEqual(['5 files']);
    expect(await page.locator('.event-item').nth(1).locator('.event-item-files').count()).toBe(1);
    await expect(page.getByRole('region', { name: /^Attachments/ }).count()).resolves.toBe(0);
    await screenshot(page, 'issue-attachments-summary-1366');

    await stat.getByRole('link', { name: 'show' }).click();
    await page.getByRole('region', { name: 'Attachments (5)' }).waitFor();
  });

  it('lists the files with their type in words and size, and downloads them', async () => {
    const section = page.getByRole('region', { name: 'Attachments (5)' });
    await section.waitFor();
    expect(await rows(page)).toEqual([
      [
        'upload_file_minidump-2026-11-26-a-very-long-name-from-the-crash-handler.dmp',
        'Minidump · application/octet-stream · 1.4 MB',
      ],
      ['app.log', 'Attachment · text/plain · 33 B'],
      ['screenshot.png', `Attachment · image/png · ${screenshotPng.length} B`],
      ['logo.svg', `Attachment · image/svg+xml · ${svg.length} B`],
      ['report.html', `Attachment · text/html · ${html.length} B`],
    ]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: /^Download upload_file_minidump/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(
      'upload_file_minidump-2026-11-26-a-very-long-name-from-the-crash-handler.dmp',
    );
    expect(readFileSync(await download.path()).equals(minidump)).toBe(true);
  });

  it('previews text and images in the page, and never HTML, SVG or binaries', async () => {
    const section = page.getByRole('region', { name: 'Attachments (5)' });
    const previews = await section
      .getByRole('button', { name: /^Preview / })
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')));
    expect(previews).toEqual(['Preview app.log', 'Preview screenshot.png']);

    await section.getByRole('button', { name: 'Preview app.log' }).click();
    const text = section.getByLabel('Contents of app.log');
    await text.waitFor();
    expect(await text.textContent()).toBe('started\nloading settings\ncrashed\n');

    await section.getByRole('button', { name: 'Preview screenshot.png' }).click();
    const image = section.getByRole('img', { name: 'screenshot.png' });
    await image.waitFor();
    await page.waitForFunction(
      () => (document.querySelector('img.attachment-image') as HTMLImageElement | null)?.complete === true,
    );
    expect(await image.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([
      320, 200,
    ]);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'event-attachments-1366');

    await section.getByRole('button', { name: 'Hide app.log' }).click();
    await text.waitFor({ state: 'detached' });
  });

  it('fits a 390 px phone without scrolling sideways', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    try {
      await mobile.goto(`/issues/${issueId}`);
      await mobile
        .locator('.issue-stats div', { has: mobile.locator('dt', { hasText: 'Attachments' }) })
        .getByRole('link', { name: 'show' })
        .click();
      const section = mobile.getByRole('region', { name: 'Attachments (5)' });
      await section.waitFor();
      expect((await rows(mobile)).length).toBe(5);
      await section.getByRole('button', { name: 'Preview screenshot.png' }).click();
      await section.getByRole('button', { name: 'Preview app.log' }).click();
      await section.getByLabel('Contents of app.log').waitFor();
      await mobile.waitForFunction(
        () => (document.querySelector('img.attachment-image') as HTMLImageElement | null)?.complete === true,
      );
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await section.scrollIntoViewIfNeeded();
      await screenshot(mobile, 'event-attachments-390');
    } finally {
      await phone.close();
    }
  });
});
