/**
 * User feedback from the real @sentry/browser 10 in headless Chromium, on a page served from
 * another origin than the server: the feedback widget (feedbackIntegration) with a screenshot, and
 * Sentry.showReportDialog, which loads our dialog script cross-origin and posts its form. Then the
 * dashboard's Feedback inbox and an issue page showing its feedback, at laptop and phone widths.
 */
import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  PageProblems,
  screenshot,
  signIn,
  watchedContext,
  BROWSER_WAIT_MS,
  settledCount,
  settled,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { serveDirectory, StaticServer } from './helpers/sourcemap-app';

const ROOT = join(__dirname, '..');
const EMAIL = 'feedback-admin@example.com';
const PASSWORD = 'secret-feedback';
const hex = (uuid: string) => uuid.replace(/-/g, '');

const APP_TS = [
  "import * as Sentry from '@sentry/browser';",
  'Sentry.init({',
  '  dsn: __DSN__,',
  "  release: 'shop@3.1.0',",
  "  environment: 'browser-e2e',",
  '  integrations: [Sentry.feedbackIntegration({ autoInject: true, enableScreenshot: true, showName: true, showEmail: true })],',
  '});',
  '(window as unknown as { Sentry: typeof Sentry }).Sentry = Sentry;',
  '',
];

const INDEX_HTML = [
  '<!doctype html>',
  '<html><head><meta charset="utf-8"><title>Shop</title></head>',
  '<body><h1>Shop</h1><p>Checkout is broken today.</p><script src="/main.js"></script></body></html>',
];

interface StoredFeedback {
  id: number;
  event_id: string;
  associated_event_id: string | null;
  issue_id: number | null;
  name: string | null;
  contact_email: string | null;
  message: string;
  url: string | null;
  source: string;
  release: string | null;
}

describe('user feedback from the browser SDK (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let shop: StaticServer;
  let dir: string;
  let project: { id: number; client_key: string };
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = (await t.api().post('/api/projects').send({ name: 'Feedback Shop' }).expect(201))
      .body as typeof project;
    dir = await mkdtemp(join(tmpdir(), 'feedback-shop-'));
    await writeFile(join(dir, 'main.ts'), APP_TS.join('\n'));
    await writeFile(join(dir, 'index.html'), INDEX_HTML.join('\n'));
    await build({
      absWorkingDir: dir,
      entryPoints: [join(dir, 'main.ts')],
      nodePaths: [join(ROOT, 'node_modules')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      define: {
        __DSN__: JSON.stringify(`http://${hex(project.client_key)}@127.0.0.1:${t.port}/${project.id}`),
      },
      outfile: join(dir, 'main.js'),
      logLevel: 'silent',
    });
    shop = await serveDirectory(dir);
    // The screenshot button asks for the tab (getDisplayMedia with preferCurrentTab): the flag grants it.
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--auto-accept-this-tab-capture',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(() => expectNoPageProblems(problems));

  async function shopPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await watchedContext(browser, { baseURL: shop.url }, problems);
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    await page.goto('/');
    await page.waitForFunction(() => 'Sentry' in window);
    return { context, page };
  }

  async function feedbackOf(eventId: string): Promise<StoredFeedback> {
    return eventually(async () => {
      const page = await t
        .api()
        .get(`/api/projects/${project.id}/feedback?limit=100&status=unresolved`)
        .expect(200);
      return (page.body.data as StoredFeedback[]).find((row) => row.event_id === eventId);
    }, 20_000);
  }

  it('stores what the feedback widget sends, with its screenshot in the same envelope', async () => {
    const { context, page } = await shopPage();
    try {
      const envelopes: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes(`/api/${project.id}/envelope/`)) envelopes.push(request.postData() ?? '');
      });
      await page.getByRole('button', { name: 'Report a Bug' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill('Widget User');
      await dialog.getByLabel('Email').fill('widget@example.com');
      await dialog.getByLabel('Description').fill('The pay button spins forever');
      await dialog.getByRole('button', { name: 'Add a screenshot' }).click();
      // The editor shows the captured tab once the capture was granted. Capturing the tab and
      // drawing it is the slowest step of the widget: next to other work it takes many seconds.
      await dialog
        .getByRole('button', { name: 'Remove screenshot' })
        .waitFor({ timeout: 2 * BROWSER_WAIT_MS });
      await screenshot(page, 'feedback-widget-1280');
      await dialog.getByRole('button', { name: 'Send Bug Report' }).click();
      await page.getByText('Thank you for your report!').waitFor();
      const sent = await eventually(async () => envelopes.find((body) => body.includes('"type":"feedback"')));
      const header = JSON.parse(sent.slice(0, sent.indexOf('\n'))) as { event_id: string };
      expect(sent).toContain('"type":"attachment"');
      expect(sent).toContain('screenshot.png');
      const stored = await feedbackOf(header.event_id);
      expect(stored).toMatchObject({
        name: 'Widget User',
        contact_email: 'widget@example.com',
        message: 'The pay button spins forever',
        source: 'widget',
        url: `${shop.url}/`,
        release: 'shop@3.1.0',
      });
    } finally {
      await context.close();
    }
  });

  it('shows the crash-report dialog from our script, cross-origin, and stores its form', async () => {
    const { context, page } = await shopPage();
    try {
      const eventId = await page.evaluate(() => {
        const sentry = (window as unknown as { Sentry: typeof import('@sentry/browser') }).Sentry;
        const id = sentry.captureException(new Error('Payment form exploded'));
        sentry.showReportDialog({
          eventId: id,
          user: { name: 'Dialog Person', email: 'dialog@example.com' },
          title: 'Sorry <b>about</b> that',
        });
        return id;
      });
      const dialog = page.getByRole('dialog', { name: 'Sorry <b>about</b> that' });
      await dialog.waitFor();
      await settledValue(dialog.getByLabel('Name'), 'Dialog Person');
      await settledValue(dialog.getByLabel('Email'), 'dialog@example.com');
      await dialog.getByLabel('What happened?').fill('I pressed pay and it broke');
      await screenshot(page, 'feedback-report-dialog-1280');
      const closed = page.evaluate(
        () =>
          new Promise<boolean>((resolve) =>
            window.addEventListener(
              'message',
              (event) => event.data === '__sentry_reportdialog_closed__' && resolve(true),
            ),
          ),
      );
      await dialog.getByRole('button', { name: 'Submit Crash Report' }).click();
      await dialog.getByText('Your feedback has been sent. Thank you!').waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();
      expect(await closed).toBe(true);
      const stored = await eventually(async () => {
        const list = await t
          .api()
          .get(`/api/projects/${project.id}/feedback?query=pressed%20pay`)
          .expect(200);
        const found = (list.body.data as StoredFeedback[])[0];
        return found && found.issue_id !== null ? found : undefined;
      }, 20_000);
      expect(stored).toMatchObject({
        associated_event_id: eventId,
        name: 'Dialog Person',
        contact_email: 'dialog@example.com',
        source: 'crash_report_dialog',
      });
    } finally {
      await context.close();
    }
  });

  it('shows the Feedback inbox and the feedback of an issue, on a laptop and a phone', async () => {
    const context = await watchedContext(
      browser,
      { baseURL: t.url, viewport: { width: 1366, height: 900 } },
      problems,
    );
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    try {
      await signIn(page, EMAIL, PASSWORD);
      await page.goto(`/projects/${project.id}/issues`);
      await page
        .getByRole('navigation', { name: 'Project sections' })
        .getByRole('link', { name: 'Feedback', exact: true })
        .click();
      const items = page.locator('.feedback-item');
      await eventually(async () => (await items.count()) >= 2);
      await settledCount(page.getByText('The pay button spins forever'), 1);
      await screenshot(page, 'feedback-inbox-1366');

      await page.getByLabel('Search feedback').fill('pressed pay');
      await page.getByRole('button', { name: 'Search' }).click();
      await eventually(async () => (await items.count()) === 1);
      const dialogFeedback = items.first();
      await dialogFeedback.getByRole('button', { name: 'Mark resolved' }).click();
      await eventually(async () => (await items.count()) === 0);
      await page.getByRole('button', { name: 'Resolved', exact: true }).click();
      await items.first().getByRole('button', { name: 'Mark unresolved' }).waitFor();
      await items.first().getByRole('link', { name: 'Open its issue' }).click();
      await page.getByRole('heading', { name: /User feedback/ }).waitFor();
      const onIssue = page.locator('.issue-feedback .feedback-item');
      await settledCount(onIssue, 1);
      await onIssue.getByRole('button', { name: 'Mark unresolved' }).click();
      await onIssue.getByRole('button', { name: 'Mark resolved' }).waitFor();
      await screenshot(page, 'feedback-issue-1366');

      await page.goto(`/projects/${project.id}/issues`);
      await page.locator('.feedback-count').first().waitFor();
      await settled(
        () => page.locator('.feedback-count').first().innerText(),
        (value) => expect(value).toMatch(/1 feedback/i),
      );
      await screenshot(page, 'feedback-issue-list-1366');

      const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
      try {
        await mobile.goto(`/projects/${project.id}/feedback?status=all`);
        await mobile.locator('.feedback-item').nth(1).waitFor();
        const overflow = await mobile.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        expect(overflow).toBeLessThanOrEqual(0);
        await screenshot(mobile, 'feedback-inbox-390');
        await mobile.getByRole('link', { name: 'Open its issue' }).first().click();
        await mobile.getByRole('heading', { name: /User feedback/ }).waitFor();
        const issueOverflow = await mobile.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        expect(issueOverflow).toBeLessThanOrEqual(0);
        await screenshot(mobile, 'feedback-issue-390');
      } finally {
        await phone.close();
      }
    } finally {
      await context.close();
    }
  });
});
