/**
 * The dashboard in a real headless Chromium: a build that is never stale, a browser, and pages that
 * record what would otherwise go unnoticed (uncaught errors, Content-Security-Policy violations).
 * Needs /usr/bin/chromium (.ci/run installs it) or CHROMIUM_PATH.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * How long a page may take to show what a test waits for (playwright's default for every action
 * and waitFor, and settled's). Sized for a machine busy with other work, where a page that
 * renders in a tenth of a second when idle can take many seconds; an idle run never waits this long.
 */
export const BROWSER_WAIT_MS = 30_000;

/**
 * Reads `read()` until `check` accepts what it returned (does not throw), and returns that value.
 * Lists, counts and texts a page fills in after an action or a fetch are read this way, never once
 * right after the action. At the deadline, the last failure of `check` (a jest expectation, with
 * its diff) or of `read` is thrown.
 */
export async function settled<T>(
  read: () => Promise<T>,
  check: (value: T) => void,
  timeoutMs = BROWSER_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await read();
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text contents of every element `locator` matches, once `check` accepts them. */
export function settledTexts(locator: Locator, check: (texts: string[]) => void): Promise<string[]> {
  return settled(() => locator.allTextContents(), check);
}

/** Waits until `locator` matches exactly `count` elements (0 included: waits for them to go). */
export async function settledCount(locator: Locator, count: number): Promise<void> {
  await settled(
    () => locator.count(),
    (found) => expect(found).toBe(count),
  );
}

/** Waits until the form control `locator` holds `value`. */
export async function settledValue(locator: Locator, value: string): Promise<void> {
  await settled(
    () => locator.inputValue(),
    (found) => expect(found).toBe(value),
  );
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Rebuilds dist/dashboard when it is missing or older than dashboard/ (about a second). */
export function ensureDashboardBuilt(): void {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const index = join(ROOT, 'dist', 'dashboard', 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(join(ROOT, 'dashboard'))) return;
  execSync('npm run build:dashboard', { cwd: ROOT, stdio: 'pipe' });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** What went wrong in the pages of a context: checked empty after each test. */
export interface PageProblems {
  errors: string[];
  cspViolations: string[];
}

/** A browser context whose pages report uncaught errors and CSP violations into `problems`. */
export async function watchedContext(
  browser: Browser,
  options: { baseURL: string; viewport?: { width: number; height: number }; deviceScaleFactor?: number },
  problems: PageProblems,
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  await context.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`),
    ),
  );
  context.on('console', (message) => {
    if (message.text().startsWith('CSP violation:')) problems.cspViolations.push(message.text());
  });
  context.on('page', (page) => page.on('pageerror', (error) => problems.errors.push(error.message)));
  return context;
}

/** Signs in through the login page and waits for the projects page. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
}

/**
 * Saves a full-page screenshot as `<name>.png` in `dir`, which must exist (ensureDashboardBuilt makes
 * SCREENSHOTS).
 */
export async function screenshot(page: Page, name: string, dir = SCREENSHOTS): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** The WCAG contrast ratio of two CSS colours given as `rgb(r, g, b)` (what getComputedStyle returns). */
export function contrastRatio(foreground: string, background: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}

export interface SignedInBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * A browser with one page signed in to the dashboard at `baseURL`, its problems recorded into
 * `problems` (check them with expectNoPageProblems after each test).
 */
export async function openSignedIn(
  baseURL: string,
  credentials: { email: string; password: string },
  problems: PageProblems,
  options: { viewport?: { width: number; height: number }; permissions?: string[] } = {},
): Promise<SignedInBrowser> {
  const browser = await launchBrowser();
  const context = await watchedContext(
    browser,
    { baseURL, ...(options.viewport ? { viewport: options.viewport } : {}) },
    problems,
  );
  if (options.permissions) await context.grantPermissions(options.permissions, { origin: baseURL });
  const page = await context.newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  await signIn(page, credentials.email, credentials.password);
  return { browser, context, page };
}

/** No page threw and the Content-Security-Policy blocked nothing. */
export function expectNoPageProblems(problems: PageProblems): void {
  expect(problems.errors).toEqual([]);
  expect(problems.cspViolations).toEqual([]);
}

/** A 390 px wide phone page signed in as `signedIn` is, its problems recorded into `problems`. */
export async function openPhonePage(
  browser: Browser,
  signedIn: BrowserContext,
  baseURL: string,
  problems: PageProblems,
): Promise<{ phone: BrowserContext; mobile: Page }> {
  const phone = await watchedContext(
    browser,
    { baseURL, viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 },
    problems,
  );
  await phone.addCookies(await signedIn.cookies());
  const mobile = await phone.newPage();
  mobile.setDefaultTimeout(BROWSER_WAIT_MS);
  return { phone, mobile };
}
