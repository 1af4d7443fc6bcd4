/**
 * What a newcomer meets first in the dashboard, in a real headless Chromium at 1366 and 390 px:
 * long and right-to-left messages, dead ends, wording, narrow screens, menus by keyboard, a role
 * changed while a page is open, and finding one's place again.
 */
import { Queue } from 'bullmq';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { UsersService } from '../src/users/users.service';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  launchBrowser,
  openSignedIn,
  PageProblems,
  signIn,
  watchedContext,
  screenshot,
  SCREENSHOTS,
  BROWSER_WAIT_MS,
  settled,
  settledCount,
} from './helpers/browser';
import { join } from 'node:path';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const EMAIL = 'usability@example.com';
const PASSWORD = 'usability-secret';
const LONG_MESSAGE = `${'The basket could not be priced because '.repeat(40)}END-OF-MESSAGE`.slice(-1600);
const ARABIC_MESSAGE = 'تعذر حفظ سلة التسوق (cart-id 8841)';

describe('the dashboard for a newcomer (browser)', () => {
  let t: TestApp;
  let digest: Queue;
  let db: DataSource;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let project: { id: number; slug: string };
  /** Issue id by the exception type of its events. */
  const ids = new Map<string, number>();

  function send(
    projectId: number,
    type: string,
    value: string,
    fields: Record<string, unknown> = {},
  ): Promise<string> {
    return enqueueEvent(digest, projectId, {
      exception: { values: [{ type, value, stacktrace: { frames: [] } }] },
      timestamp: new Date().toISOString(),
      level: 'error',
      platform: 'node',
      ...fields,
    });
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    project = (await t.api().post('/api/projects').send({ name: 'Usability Shop' }).expect(201)).body;
    await send(project.id, 'PricingError', LONG_MESSAGE);
    await send(project.id, 'CartSaveError', ARABIC_MESSAGE, {
      contexts: { os: { name: 'Android', version: '14' }, browser: { name: 'Chrome', version: '120' } },
    });
    for (let n = 0; n < 30; n++) await send(project.id, `FillerError${n}`, `Filler number ${n} failed`);
    await eventually(async () => {
      const counts = await digest.getJobCounts('waiting', 'active', 'delayed');
      return counts.waiting + counts.active + counts.delayed === 0;
    }, 30_000);
    await settleRollups(t.app);
    const stored: { id: number; type: string }[] = await db.query(
      'SELECT id, type FROM issues WHERE project_id = $1',
      [project.id],
    );
    for (const { id, type } of stored) ids.set(type, id);
    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      viewport: { width: 1366, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await digest?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  /** The full page, and what the window shows (a phone's full page is too tall to read at a glance). */
  async function shoot(p: Page, name: string): Promise<void> {
    await screenshot(p, name);
    await p.screenshot({ path: join(SCREENSHOTS, `${name}-view.png`) });
  }

  const listUrl = (query = '') => `/projects/${project.id}/issues${query}`;
  const row = (p: Page, text: string) => p.getByRole('row').filter({ hasText: text });

  it('clamps a long message to two lines in the list and the header, and shows all of it on request', async () => {
    await page.goto(listUrl());
    const long = row(page, 'PricingError');
    await long.waitFor();
    const lineHeight = await long
      .locator('.issue-link')
      .evaluate((link) => parseFloat(getComputedStyle(link).lineHeight) || 20);
    expect((await long.locator('.issue-link').boundingBox())!.height).toBeLessThanOrEqual(lineHeight * 2 + 2);
    await screenshot(page, 'usability-long-list');

    await page.goto(`/issues/${ids.get('PricingError')}`);
    const message = page.locator('.issue-message');
    await message.waitFor();
    const header = await message.evaluate((el) => ({
      height: el.getBoundingClientRect().height,
      line: parseFloat(getComputedStyle(el).lineHeight) || 20,
      clamp: getComputedStyle(el).webkitLineClamp,
    }));
    expect(header.clamp).toBe('2');
    expect(header.height).toBeLessThanOrEqual(header.line * 2 + 2);
    await page.getByText(/Show full message/).click();
    const whole = page.locator('.full-message-text');
    await whole.waitFor();
    expect((await whole.textContent())!.trim()).toBe(LONG_MESSAGE);
    await screenshot(page, 'usability-long-issue');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(listUrl());
    await row(mobile, 'PricingError').waitFor();
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await row(mobile, 'PricingError').scrollIntoViewIfNeeded();
    await shoot(mobile, 'usability-long-list-phone');
    await mobile.goto(`/issues/${ids.get('PricingError')}`);
    await mobile.locator('.issue-message').waitFor();
    await shoot(mobile, 'usability-long-issue-phone');
    await phone.close();
  });

  it('isolates a right-to-left message, so its own parentheses stay at its end', async () => {
    await page.goto(listUrl());
    const arabic = row(page, 'CartSaveError');
    await arabic.waitFor();
    await settled(
      () => arabic.locator('bdi').textContent(),
      (value) => expect(value).toBe(ARABIC_MESSAGE),
    );
    await page.goto(`/issues/${ids.get('CartSaveError')}`);
    const message = page.locator('.issue-message');
    await message.waitFor();
    expect(await message.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
    const value = page.locator('.exception-value');
    await value.waitFor();
    expect(await value.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
    await screenshot(page, 'usability-rtl-issue');
  });

  it('offers a way back from a missing issue or project, without a Retry that would be refused again', async () => {
    await page.goto(listUrl());
    await row(page, 'PricingError').waitFor();
    await page.goto('/issues/987654321');
    await page.getByRole('heading', { name: 'Issue not found' }).waitFor();
    await settledCount(page.getByRole('button', { name: 'Retry' }), 0);
    await shoot(page, 'usability-missing-issue');
    await page.getByRole('link', { name: 'Back to issues' }).click();
    await row(page, 'PricingError').waitFor();

    await page.goto('/projects/987654321/issues');
    await page.getByRole('heading', { name: 'Project not found' }).waitFor();
    await settledCount(page.getByRole('button', { name: 'Retry' }), 0);
    await shoot(page, 'usability-missing-project');
    await page.getByRole('link', { name: 'Back to projects' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
  });

  it('hides the old list and count when the server refuses a search, and says why in plain words', async () => {
    await page.goto(listUrl());
    await page.getByText('32 issues', { exact: true }).waitFor();
    const search = page.getByRole('combobox', { name: 'Search issues' });
    await search.fill('colour:red');
    await search.press('Enter');
    const refusal = page.getByRole('alert').filter({ hasText: 'This search could not be run.' });
    await refusal.waitFor();
    await settled(
      () => refusal.textContent(),
      (value) => expect(value).toContain('No event of this project has a tag called "colour"'),
    );
    await settledCount(page.getByText('32 issues', { exact: true }), 0);
    await settledCount(page.locator('tbody tr'), 0);
    await settledCount(refusal.getByRole('button', { name: 'Retry' }), 0);
    await shoot(page, 'usability-refused-search');
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(listUrl('?query=colour%3Ared'));
    await mobile.getByText('This search could not be run.').waitFor();
    await shoot(mobile, 'usability-refused-search-phone');
    await phone.close();
    await refusal.getByRole('button', { name: 'Clear the search' }).click();
    await page.getByText('32 issues', { exact: true }).waitFor();
  });

  it('shows names in words: alert types, audit actions, context names, role hints, and errors as sentences', async () => {
    await t
      .api()
      .post(`/api/projects/${project.id}/alert-rules`)
      .send({ name: 'Tell me about new ones', alert_type: 'new_issue', channel_ids: [] })
      .expect(201);
    await page.goto(`/projects/${project.id}/alerts`);
    const rule = page.locator('.rule-card').filter({ hasText: 'Tell me about new ones' });
    await rule.getByText('New issue', { exact: true }).waitFor();
    await settled(
      () => rule.textContent(),
      (value) => expect(value).not.toMatch(/new_issue/i),
    );
    await shoot(page, 'usability-alert-rule');

    await page.goto('/settings/audit-log');
    await page.getByText('Member created').first().waitFor();
    await settled(
      () => page.locator('main').innerText(),
      (value) => expect(value).not.toContain('member.create'),
    );
    await shoot(page, 'usability-audit-log');

    await page.goto(`/issues/${ids.get('CartSaveError')}`);
    await page.locator('.context-box h4').filter({ hasText: 'OS' }).waitFor();
    await settled(
      () => page.locator('.context-box h4').allInnerTexts(),
      (value) => expect(value).toEqual(expect.arrayContaining(['OS', 'Browser'])),
    );

    const invitation = (
      await t
        .api()
        .post('/api/invitations')
        .send({ email: 'new.viewer@example.com', role: 'viewer' })
        .expect(201)
    ).body as { link: string };
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(new URL(invitation.link).pathname);
    await mobile
      .getByText("see the issues and events of their teams' projects, without changing anything")
      .waitFor();
    await shoot(mobile, 'usability-invitation-phone');
    await phone.close();

    // The API's messages start in lower case; shown, they start as sentences do.
    await page.goto(listUrl('?sort=bogus'));
    const refusal = page.getByRole('alert').first();
    await refusal.waitFor();
    const said = (await refusal.innerText()).replace('This search could not be run.', '').trim();
    expect(said[0]).toBe(said[0].toUpperCase());
  });

  it('clears what the last bulk action said when the list changes', async () => {
    await page.goto(listUrl());
    await row(page, 'FillerError3').getByRole('checkbox').check();
    await page
      .getByRole('region', { name: 'Bulk actions' })
      .getByRole('button', { name: 'Resolve', exact: true })
      .click();
    await page.getByText('1 issue marked resolved.').waitFor();
    await page.getByRole('button', { name: 'Resolved', exact: true }).click();
    await row(page, 'FillerError3').waitFor();
    await settledCount(page.getByText('1 issue marked resolved.'), 0);
    await t
      .api()
      .patch(`/api/issues/${ids.get('FillerError3')}`)
      .send({ state: 'open' })
      .expect(200);
  });

  it('keeps tabs, the setup snippet and the bulk Assign menu usable on a 390 px phone', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    const inView = async (name: string, nav: string) => {
      const box = (await mobile
        .getByRole('navigation', { name: nav })
        .getByRole('link', { name, exact: true })
        .boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    };
    await mobile.goto('/settings/account');
    await inView('Audit log', 'Settings sections');
    await shoot(mobile, 'usability-settings-tabs-phone');

    await mobile.goto(listUrl());
    await inView('Settings', 'Project sections');
    await mobile.getByText('DSN and SDK setup').click();
    const copy = mobile.getByRole('button', { name: 'Copy snippet' }).first();
    await copy.waitFor();
    const code = mobile.locator('.code-block').filter({ has: copy }).locator('code');
    const [button, first] = [(await copy.boundingBox())!, (await code.boundingBox())!];
    expect(button.y + button.height).toBeLessThanOrEqual(first.y);
    await copy.scrollIntoViewIfNeeded();
    await shoot(mobile, 'usability-setup-phone');

    await row(mobile, 'FillerError5').getByRole('checkbox').check();
    const bulk = mobile.getByRole('region', { name: 'Bulk actions' });
    await bulk.getByRole('button', { name: 'Assign' }).click();
    const menu = bulk.getByRole('menu');
    await menu.waitFor();
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await menu.scrollIntoViewIfNeeded();
    await mobile.screenshot({ path: join(SCREENSHOTS, 'usability-assign-menu-phone-view.png') });
    await phone.close();
  });

  it('moves through the Resolve and Mute menus with the arrow keys, and Escape returns to the button', async () => {
    await page.goto(`/issues/${ids.get('FillerError7')}`);
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    const mute = page.getByRole('button', { name: 'Mute' });
    await mute.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    await eventually(async () => (await focused()) === 'Mute forever');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('For 1 hour');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe('Until 100 more users');
    await page.keyboard.press('Home');
    expect(await focused()).toBe('Mute forever');
    await shoot(page, 'usability-mute-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-haspopup'))).toBe('menu');
    expect(await focused()).toContain('Mute');

    const more = page.getByRole('button', { name: 'More ways to resolve' });
    await more.focus();
    await page.keyboard.press('ArrowDown');
    await menu.waitFor();
    await eventually(async () => (await focused()) === 'Resolve in next release');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(
      await page.evaluate(() => document.activeElement?.textContent?.includes('More ways to resolve')),
    ).toBe(true);
  });

  it('hides triage and comments, and says why, when a member is made a viewer while the page is open', async () => {
    const email = 'demoted.member@example.com';
    const password = 'demoted-secret';
    const user = await t.app.get(UsersService).createOrUpdate(email, password, 'member');
    const team = (await t.api().post('/api/teams').send({ name: 'Shop team' }).expect(201)).body as {
      id: number;
    };
    await t.api().put(`/api/teams/${team.id}/projects/${project.id}`).expect(204);
    await t.api().put(`/api/teams/${team.id}/members/${user.id}`).expect(204);

    const memberBrowser = await launchBrowser();
    try {
      const memberContext = await watchedContext(
        memberBrowser,
        { baseURL: t.url, viewport: { width: 1366, height: 900 } },
        problems,
      );
      const memberPage = await memberContext.newPage();
      memberPage.setDefaultTimeout(BROWSER_WAIT_MS);
      await signIn(memberPage, email, password);
      await memberPage.goto(`/issues/${ids.get('FillerError9')}`);
      const resolve = memberPage.getByRole('button', { name: 'Resolve', exact: true });
      await resolve.waitFor();
      await memberPage.getByRole('button', { name: 'Comment', exact: true }).waitFor();

      await t.api().patch(`/api/members/${user.id}`).send({ role: 'viewer' }).expect(200);
      await resolve.click();
      await memberPage.getByText('Your role was changed to Viewer while this page was open.').waitFor();
      await memberPage.getByRole('alert').filter({ hasText: 'You are not allowed to do this' }).waitFor();
      await resolve.waitFor({ state: 'detached' });
      await settledCount(memberPage.getByRole('button', { name: 'Comment', exact: true }), 0);
      await shoot(memberPage, 'usability-demoted');
      expect(
        (
          await t
            .api()
            .get(`/api/issues/${ids.get('FillerError9')}`)
            .expect(200)
        ).body.state,
      ).toBe('open');
    } finally {
      await memberBrowser.close();
    }
  });

  it('returns to the row an issue was opened from, with focus on it, and moves through the list by keyboard', async () => {
    await page.goto(listUrl());
    const target = page.getByRole('row').filter({ hasText: 'Filler number 2 failed' });
    await target.waitFor();
    await target.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 200));
    const before = (await target.boundingBox())!.y;
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(300);
    await target.getByRole('link').click();
    await page.getByRole('heading', { name: 'FillerError2 Filler number 2 failed' }).waitFor();
    const focusedIssue = () => page.evaluate(() => document.activeElement?.closest('tr')?.textContent ?? '');

    await page.goBack();
    await target.waitFor();
    await eventually(async () => (await focusedIssue()).includes('Filler number 2 failed'));
    expect(Math.abs((await target.boundingBox())!.y - before)).toBeLessThan(4);
    await shoot(page, 'usability-back-to-row');

    await target.getByRole('link').click();
    await page.getByRole('link', { name: '← Back to issues' }).click();
    await eventually(async () => (await focusedIssue()).includes('Filler number 2 failed'));
    expect(Math.abs((await target.boundingBox())!.y - before)).toBeLessThan(4);

    // j and k from there: the next and previous rows.
    const order = await page
      .locator('.issues-table .issue-link')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    const at = order.indexOf(`/issues/${ids.get('FillerError2')}`);
    const focusedHref = () => page.evaluate(() => document.activeElement?.getAttribute('href'));
    await page.keyboard.press('j');
    expect(await focusedHref()).toBe(order[at + 1]);
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    expect(await focusedHref()).toBe(order[at - 1]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`${order[at - 1]}$`));

    // From the heading a page starts with: the skip link, then the first issue.
    await page.goto(listUrl());
    await row(page, 'PricingError').waitFor();
    // As after a navigation: focus on the page's heading.
    await page.getByRole('heading', { name: 'Usability Shop' }).evaluate((heading: HTMLElement) => {
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the issue list');
    await shoot(page, 'usability-skip-link');
    await page.keyboard.press('Enter');
    expect(await focusedHref()).toBe(order[0]);
    await page.keyboard.press('j');
    expect(await focusedHref()).toBe(order[1]);
  });

  it('shows comments and activity right under the issue header, not under the event detail', async () => {
    const id = ids.get('PricingError');
    await t
      .api()
      .post(`/api/issues/${id}/comments`)
      .send({ body: 'Seen on **checkout** only, I think.' })
      .expect(201);
    await page.goto(`/issues/${id}`);
    const comments = page.getByRole('region', { name: /^Comments/ });
    await comments.getByText('Seen on').waitFor();
    const activity = page.getByRole('region', { name: 'Activity' });
    await activity.getByText('First seen').waitFor();
    const event = page.getByRole('region', { name: 'Event' });
    await event.waitFor();
    const [c, a, e] = [
      (await comments.boundingBox())!,
      (await activity.boundingBox())!,
      (await event.boundingBox())!,
    ];
    expect(c.y).toBeLessThan(e.y);
    expect(a.y).toBeLessThan(e.y);
    expect(c.y).toBeLessThan(900);
    await shoot(page, 'usability-discussion');

    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(`/issues/${id}`);
    const onPhone = mobile.getByRole('region', { name: /^Comments/ });
    await onPhone.getByText('Seen on').waitFor();
    expect((await onPhone.boundingBox())!.y).toBeLessThan(
      (await mobile.getByRole('region', { name: 'Event' }).boundingBox())!.y,
    );
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await onPhone.scrollIntoViewIfNeeded();
    await shoot(mobile, 'usability-discussion-phone');
    await phone.close();
  });
});
