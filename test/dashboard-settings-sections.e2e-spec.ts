/**
 * A project's settings as sections with addresses of their own, in a real headless Chromium against
 * the real server: the menu reaches every section and marks the current one, a section shows only
 * its own cards, the bare settings address opens General, the anchors older links used
 * (`#quotas`, `#data-protection`, …) land on their section, and on a 390 px phone the menu fits the
 * screen. Screenshots of every section at 1280 and 390 px; no console errors.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
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
  settled,
} from './helpers/browser';
import { createProject, Project } from './helpers/projects';

const EMAIL = 'sections-admin@example.com';
const PASSWORD = 'sections-secret-pw';

/** Each section: its address, its menu label, and a heading only it shows. */
const SECTIONS = [
  { slug: 'general', label: 'General', heading: 'Client key' },
  { slug: 'data-protection', label: 'Data protection', heading: 'Data protection' },
  { slug: 'inbound-filters', label: 'Inbound filters', heading: 'Inbound filters' },
  { slug: 'quotas', label: 'Quotas', heading: 'Quotas and spike protection' },
  { slug: 'status-page', label: 'Status page', heading: 'Public status page' },
  { slug: 'erasure', label: 'Erasure', heading: "Erase a person's data" },
] as const;

describe('dashboard project settings sections (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: Project;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const consoleErrors: string[] = [];

  const menu = (on: Page) => on.getByRole('navigation', { name: 'Project settings' });
  const sectionHeadings = (on: Page) =>
    settled(
      () => on.locator('main h2').allTextContents(),
      (texts) => expect(texts.length).toBeGreaterThan(0),
    );

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = await createProject(t, 'Sections');
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems));
    context.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expectNoPageProblems(problems);
    expect(consoleErrors).toEqual([]);
  });

  it('opens General at the bare settings address, with a menu of every section', async () => {
    await page.goto(`/projects/${project.id}/settings`);
    await page.getByRole('heading', { level: 2, name: 'Client key' }).waitFor();
    const links = menu(page).getByRole('link');
    await settled(
      () => links.allTextContents(),
      (texts) => expect(texts).toEqual(SECTIONS.map((section) => section.label)),
    );
    expect(await menu(page).getByRole('link', { name: 'General' }).getAttribute('aria-current')).toBe('page');
    // General alone: none of the other sections' cards.
    const headings = await sectionHeadings(page);
    for (const other of SECTIONS.filter((section) => section.slug !== 'general')) {
      expect(headings).not.toContain(other.heading);
    }
  });

  it('gives every section an address of its own, reached from the menu', async () => {
    await page.goto(`/projects/${project.id}/settings`);
    for (const section of SECTIONS) {
      await menu(page).getByRole('link', { name: section.label, exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/projects/${project.id}/settings/${section.slug}`);
      await page.getByRole('heading', { level: 2, name: section.heading, exact: true }).waitFor();
      await settled(
        () => menu(page).getByRole('link', { name: section.label, exact: true }).getAttribute('aria-current'),
        (value) => expect(value).toBe('page'),
      );
      const headings = await sectionHeadings(page);
      for (const other of SECTIONS.filter((candidate) => candidate.slug !== section.slug)) {
        expect(headings).not.toContain(other.heading);
      }
      // The whole page stays well short of the 3,400 px the one long page took.
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(2_400);
      await screenshot(page, `project-settings-${section.slug}`);
    }
    // Reloading an address opens its section again.
    await page.goto(`/projects/${project.id}/settings/quotas`);
    await page.getByRole('heading', { level: 2, name: 'Quotas and spike protection' }).waitFor();
  });

  it('lands the anchors of older links on their section, and says when a section does not exist', async () => {
    for (const [anchor, slug, heading] of [
      ['quotas', 'quotas', 'Quotas and spike protection'],
      ['data-protection', 'data-protection', 'Data protection'],
      ['inbound-filters', 'inbound-filters', 'Inbound filters'],
      ['client-key', 'general', 'Client key'],
    ] as const) {
      await page.goto(`/projects/${project.id}/settings#${anchor}`);
      await page.waitForURL((url) => url.pathname === `/projects/${project.id}/settings/${slug}`);
      await page.getByRole('heading', { level: 2, name: heading, exact: true }).waitFor();
    }
    await page.goto(`/projects/${project.id}/settings/nowhere`);
    await page.getByText('There is no settings section at this address.').waitFor();
    await page.getByRole('link', { name: 'General settings' }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${project.id}/settings/general`);
    await page.getByRole('heading', { level: 2, name: 'Client key' }).waitFor();
  });

  it('fits the menu and every section on a 390 px phone', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    const beyondScreen = () =>
      mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => {
            const box = element.getBoundingClientRect();
            return box.width > 0 && (box.right > window.innerWidth + 0.5 || box.left < -0.5);
          })
          .filter((element) => !element.closest('.skip-link, .table-wrap, .code-block, .project-header .tabs'))
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      );
    try {
      for (const section of SECTIONS) {
        await mobile.goto(`/projects/${project.id}/settings/${section.slug}`);
        await mobile.getByRole('heading', { level: 2, name: section.heading, exact: true }).waitFor();
        const links = menu(mobile).getByRole('link');
        expect(await links.count()).toBe(SECTIONS.length);
        for (const link of await links.all()) {
          const box = (await link.boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
        expect(await beyondScreen()).toEqual([]);
        expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        await screenshot(mobile, `mobile-project-settings-${section.slug}`);
      }
    } finally {
      await phone.close();
    }
  });
});
