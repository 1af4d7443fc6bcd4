/**
 * The sign-in page in a real headless Chromium against the real server: a browser that is not
 * signed in is shown the form without an error in its console (the dashboard asks whether it is
 * signed in, not for an account it does not have), at laptop and phone widths; once signed in, a
 * reload keeps it signed in.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  BROWSER_WAIT_MS,
  ensureDashboardBuilt,
  expectNoPageProblems,
  launchBrowser,
  PageProblems,
  screenshot,
  watchedContext,
} from './helpers/browser';

const EMAIL = 'sign-in-page@example.com';
const PASSWORD = 'sign-in-page-pw';

/** What a page said in its console as errors, and the answers it got with an error status. */
interface Complaints {
  console: string[];
  failedResponses: string[];
}

/** The page's complaints, and the status of each path it asked the server for. */
function watch(page: Page): { complaints: Complaints; answers: Map<string, number> } {
  const complaints: Complaints = { console: [], failedResponses: [] };
  const answers = new Map<string, number>();
  page.on('console', (message) => {
    if (message.type() === 'error') complaints.console.push(message.text());
  });
  page.on('response', (response) => {
    answers.set(new URL(response.url()).pathname, response.status());
    if (response.status() >= 400) complaints.failedResponses.push(`${response.status()} ${response.url()}`);
  });
  return { complaints, answers };
}

describe('dashboard sign-in page (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  const problems: PageProblems = { errors: [], cspViolations: [] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  async function signInPage(viewport: { width: number; height: number }) {
    const context: BrowserContext = await watchedContext(browser, { baseURL: t.url, viewport }, problems);
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const { complaints, answers } = watch(page);
    await page.goto('/');
    await page.getByLabel('E-mail').waitFor();
    return { context, page, complaints, answers };
  }

  it('shows the form to a browser that is not signed in, with nothing in the console', async () => {
    const { context, page, complaints, answers } = await signInPage({ width: 1280, height: 860 });
    try {
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(complaints).toEqual({ console: [], failedResponses: [] });
      expect(answers.get('/auth/session')).toBe(200);
      await screenshot(page, 'sign-in-1280');

      await page.getByLabel('E-mail').fill(EMAIL);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await page.reload();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      expect(complaints).toEqual({ console: [], failedResponses: [] });
    } finally {
      await context.close();
    }
  });

  it('does the same on a 390 px phone', async () => {
    const { context, page, complaints } = await signInPage({ width: 390, height: 844 });
    try {
      expect(complaints).toEqual({ console: [], failedResponses: [] });
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'sign-in-390');
    } finally {
      await context.close();
    }
  });
});
