/**
 * Working on issues together in the dashboard, in a real headless Chromium against the real server:
 * a member assigns issues (to themselves, to a team, several at once from the list) and finds them
 * again with `assigned:`; comments in Markdown, where HTML and script stay inert text; edits and
 * deletes their own comments but not others' (which an admin may delete); the activity log says who
 * did what; a viewer reads all of it without the controls.
 */
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import type { Response } from 'supertest';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import {
  contrastRatio,
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  signIn,
  watchedContext,
  BROWSER_WAIT_MS,
  settledCount,
  settledTexts,
  settledValue,
  settled,
} from './helpers/browser';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

const OWNER = { email: 'collab-owner@example.com', password: 'collab-owner-secret' };
const MEMBER = { email: 'mia.member@example.com', name: 'Mia Member', password: `pw-${randomUUID()}` };
const VIEWER = { email: 'val.viewer@example.com', name: 'Val Viewer', password: `pw-${randomUUID()}` };
/** Other e2e files share the database: a team name (and so slug) of this file's own. */
const TEAM = `Checkout ${randomUUID().slice(0, 6)}`;
const OUTSIDER = { email: 'oz.outsider@example.com', name: 'Oz Outsider', password: `pw-${randomUUID()}` };

interface IssueView {
  id: number;
  short_id: string;
  type: string;
  state: string;
  assignee: null | { type: 'user' | 'team'; id: number };
}

interface CommentView {
  id: number;
  body: string;
  html: string;
  author: { id: number; email: string; name: string } | null;
}

interface ActivityEntry {
  kind: string;
  actor: { id: number | null; email: string | null; name: string } | null;
}

/** Markdown with what must not run: a script, an image that runs code, an image of another site. */
const MARKDOWN = [
  'Seen after the **payment form** change: `total` is `NaN`.',
  '',
  '- reproduced on Firefox',
  '- [the deploy](https://deploys.example.com/1234)',
  '',
  '<script>window.__scripted = 1</script><img src=x onerror="window.__scripted = 2">',
  '',
  '![tracking pixel](https://pixels.example.com/p.png)',
].join('\n');

describe('assignment, comments and activity in the dashboard (browser)', () => {
  let t: TestApp;
  let digest: Queue;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let project: { id: number; slug: string };
  let team: { id: number; slug: string; name: string };
  let memberId: number;
  let ownerCookie: string;
  /** Issue ids by exception type. */
  const ids = new Map<string, number>();

  const issue = async (type: string) =>
    (
      await t
        .api()
        .get(`/api/issues/${ids.get(type)}`)
        .expect(200)
    ).body as IssueView;
  const comments = async (type: string) =>
    (
      await t
        .api()
        .get(`/api/issues/${ids.get(type)}/comments`)
        .expect(200)
    ).body.data as CommentView[];
  const activityRegion = () => page.getByRole('region', { name: 'Activity' });
  const commentsRegion = () => page.getByRole('region', { name: /^Comments/ });
  const assignee = () => page.getByRole('combobox', { name: 'Assignee' });

  /** Requests made with the owner's dashboard session (which changes need to show their Origin for). */
  const asOwner = (method: 'post' | 'put' | 'patch', path: string) =>
    t.http()[method](path).set('Cookie', ownerCookie).set('Origin', t.url);

  function sessionOf(response: Response): string {
    const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
    const cookie = cookies.find((value) => value.startsWith('et_session='));
    if (!cookie) throw new Error('no session cookie');
    return cookie.split(';')[0];
  }

  async function join(
    person: { email: string; name: string; password: string },
    role: string,
    teamIds: number[],
  ) {
    const invitation = await asOwner('post', '/api/invitations')
      .send({ email: person.email, role, team_ids: teamIds })
      .expect(201);
    const secret = new URL(invitation.body.link).pathname.split('/').pop();
    const accepted = await t
      .http()
      .post(`/auth/invitations/${secret}/accept`)
      .send({ email: person.email, password: person.password, name: person.name })
      .expect(201);
    return accepted.body.id as number;
  }

  function send(type: string, message: string): Promise<string> {
    return enqueueEvent(digest, project.id, {
      exception: { values: [{ type, value: message, stacktrace: { frames: [] } }] },
      timestamp: new Date().toISOString(),
      level: 'error',
      platform: 'javascript',
    });
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${OWNER.email}:${OWNER.password}`, SERVE_DASHBOARD: 'true' });
    digest = openQueue(t, QueueName.Digest);
    ownerCookie = sessionOf(
      await t.http().post('/auth/login').send({ email: OWNER.email, password: OWNER.password }).expect(200),
    );
    project = (await t.api().post('/api/projects').send({ name: 'Collab Shop' }).expect(201)).body;
    team = (await asOwner('post', '/api/teams').send({ name: TEAM }).expect(201)).body;
    await asOwner('put', `/api/teams/${team.id}/projects/${project.id}`).expect(204);
    memberId = await join(MEMBER, 'member', [team.id]);
    await join(VIEWER, 'viewer', [team.id]);
    await join(OUTSIDER, 'member', []);

    await send('PaymentError', 'card declined twice');
    await send('StockWarning', 'stock below zero');
    await send('SearchError', 'index missing');
    await eventually(async () => {
      const list = await t.api().get(`/api/projects/${project.id}/issues`).expect(200);
      for (const found of list.body.data as IssueView[]) ids.set(found.type, found.id);
      return ids.size === 3;
    }, 30_000);
    // Someone else's comment, which the member may read but not change.
    await asOwner('post', `/api/issues/${ids.get('PaymentError')}/comments`)
      .send({ body: 'Owner here: **looking** at the gateway logs.' })
      .expect(201);

    ({ browser, context, page } = await openSignedIn(
      t.url,
      { email: MEMBER.email, password: MEMBER.password },
      problems,
    ));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await digest?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('assigns an issue to the member, to a team and to nobody from its page', async () => {
    await page.goto(`/issues/${ids.get('PaymentError')}`);
    await page.getByRole('heading', { name: /PaymentError/ }).waitFor();
    await settledValue(assignee(), '');
    // Those who see the project are offered: owners (every project), the team's member and viewer;
    // not a member of no team. (Owners of other test files' may be there too: the database is shared.)
    // The picker shows "Unassigned" alone until the members have loaded.
    const options = await settledTexts(assignee().locator('option'), (texts) =>
      expect(texts).toEqual(expect.arrayContaining([OWNER.email, VIEWER.name, `${TEAM} (team)`])),
    );
    expect(options.slice(0, 2)).toEqual(['Unassigned', `${MEMBER.name} (you)`]);
    expect(options).not.toContain(OUTSIDER.name);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await settledValue(assignee(), `user:${memberId}`);
    await settledCount(page.getByRole('button', { name: 'Assign to me' }), 0);
    expect((await issue('PaymentError')).assignee).toMatchObject({ type: 'user', id: memberId });
    await screenshot(page, 'collab-assigned-to-me');

    await assignee().selectOption({ label: `${TEAM} (team)` });
    await eventually(async () => (await issue('PaymentError')).assignee?.type === 'team');
    expect((await issue('PaymentError')).assignee).toMatchObject({ type: 'team', id: team.id });
    await page.getByRole('button', { name: 'Unassign' }).click();
    await settledValue(assignee(), '');
    expect((await issue('PaymentError')).assignee).toBeNull();
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await eventually(async () => (await issue('PaymentError')).assignee?.id === memberId);
  });

  it('shows assignees in the list, finds "assigned to me", and assigns several issues at once', async () => {
    await page.goto(`/projects/${project.id}/issues`);
    const row = (type: string) => page.getByRole('row').filter({ hasText: type });
    await row('PaymentError').getByText(`Assigned to ${MEMBER.name}`).waitFor();
    await settledCount(row('StockWarning').locator('.assignee-tag'), 0);

    await page.getByLabel('Assigned to').selectOption('me');
    await page.waitForURL(/assigned%3Ame/);
    await eventually(async () => (await page.locator('tbody tr').count()) === 1);
    await row('PaymentError').waitFor();
    await page.getByLabel('Assigned to').selectOption('');
    await eventually(async () => (await page.locator('tbody tr').count()) === 3);

    const stock = await issue('StockWarning');
    const search = await issue('SearchError');
    await page.getByRole('checkbox', { name: `Select ${stock.short_id}` }).check();
    await page.getByRole('checkbox', { name: `Select ${search.short_id}` }).check();
    const bulk = page.getByRole('region', { name: 'Bulk actions' });
    await bulk.getByRole('button', { name: 'Assign' }).click();
    await page.getByRole('menuitem', { name: `Assign to ${TEAM} (team)` }).click();
    await page.getByText(`2 issues assigned to ${TEAM}.`).waitFor();
    await row('StockWarning').getByText(`Assigned to the team ${TEAM}`).waitFor();
    await row('SearchError').getByText(`Assigned to the team ${TEAM}`).waitFor();
    expect((await issue('SearchError')).assignee).toMatchObject({ type: 'team', id: team.id });

    // The search box knows the key, and a team by its slug.
    const box = page.getByRole('combobox', { name: 'Search issues' });
    await box.fill(`is:unresolved assigned:#${team.slug}`);
    await box.press('Enter');
    await eventually(async () => (await page.locator('tbody tr').count()) === 2);
    await screenshot(page, 'collab-list-assignees');
  });

  it('comments in Markdown, where HTML and script stay inert text', async () => {
    await page.goto(`/issues/${ids.get('PaymentError')}`);
    const region = commentsRegion();
    await region.getByText('looking at the gateway logs').waitFor();
    await region.getByLabel('Add a comment').fill(MARKDOWN);
    await region.getByRole('button', { name: 'Comment', exact: true }).click();
    const mine = region.getByRole('listitem').filter({ hasText: 'payment form' });
    await mine.waitFor();
    await settledValue(region.getByLabel('Add a comment'), '');

    const body = mine.locator('.comment-body');
    await settled(
      () => body.locator('strong').textContent(),
      (value) => expect(value).toBe('payment form'),
    );
    await settledTexts(body.locator('code'), (texts) => expect(texts).toEqual(['total', 'NaN']));
    await settledCount(body.locator('li'), 2);
    const deploy = body.getByRole('link', { name: 'the deploy' });
    await settled(
      () => deploy.getAttribute('href'),
      (value) => expect(value).toBe('https://deploys.example.com/1234'),
    );
    await settled(
      () => deploy.getAttribute('rel'),
      (value) => expect(value).toContain('noopener'),
    );
    // The markup arrived as text: shown, not run.
    await body.getByText('<script>window.__scripted = 1</script>', { exact: false }).waitFor();
    await settledCount(body.locator('script, img, [onerror]'), 0);
    expect(
      await page.evaluate(() => (window as unknown as { __scripted?: number }).__scripted),
    ).toBeUndefined();
    // Nor is an image of another site loaded (the page's policy would refuse it anyway).
    expect(
      await page.evaluate(() =>
        performance.getEntriesByType('resource').some((entry) => entry.name.includes('pixels.example.com')),
      ),
    ).toBe(false);
    await screenshot(page, 'collab-comment');

    const stored = await comments('PaymentError');
    expect(stored.map((comment) => comment.author?.email)).toEqual([OWNER.email, MEMBER.email]);
    expect(stored[1].body).toBe(MARKDOWN);
  });

  it("edits and deletes the member's own comments, and offers nothing on the owner's", async () => {
    const region = commentsRegion();
    const owners = region.getByRole('listitem').filter({ hasText: 'gateway logs' });
    await owners.waitFor();
    await settledCount(owners.getByRole('button'), 0);

    // By position: while it is edited, its text is in the editor only.
    const mine = region.getByRole('listitem').nth(1);
    await mine.getByText('payment form').waitFor();
    await mine.getByRole('button', { name: `Edit comment of ${MEMBER.name}` }).click();
    const editor = mine.getByLabel('Edit the comment');
    await settledValue(editor, MARKDOWN);
    // Focus goes to the text, ready to type.
    await eventually(async () => (await page.evaluate(() => document.activeElement?.tagName)) === 'TEXTAREA');
    await editor.fill('Seen after the **payment form** change: fixed by _retrying_ once.');
    await mine.getByRole('button', { name: 'Save' }).click();
    await mine.locator('.comment-body em').getByText('retrying').waitFor();
    await mine.getByText('· edited').waitFor();
    expect((await comments('PaymentError'))[1].body).toBe(
      'Seen after the **payment form** change: fixed by _retrying_ once.',
    );

    // Ctrl+Enter sends.
    await region.getByLabel('Add a comment').fill('A note to delete');
    await region.getByLabel('Add a comment').press('Control+Enter');
    const note = region.getByRole('listitem').filter({ hasText: 'A note to delete' });
    await note.waitFor();
    await note.getByRole('button', { name: `Delete comment of ${MEMBER.name}` }).click();
    await note.getByRole('alertdialog', { name: 'Confirm deleting the comment' }).waitFor();
    await note.getByRole('button', { name: 'Delete comment', exact: true }).click();
    await note.waitFor({ state: 'detached' });
    expect((await comments('PaymentError')).map((comment) => comment.body)).toEqual([
      'Owner here: **looking** at the gateway logs.',
      'Seen after the **payment form** change: fixed by _retrying_ once.',
    ]);
  });

  it('shows who did what in the activity log', async () => {
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await page.getByRole('button', { name: 'Reopen', exact: true }).waitFor();
    const activity = activityRegion();
    const entry = (text: string) => activity.getByRole('listitem').filter({ hasText: text });
    await entry(`Resolved by ${MEMBER.name}`).waitFor();
    await entry('First seen').waitFor();
    await settledCount(entry('First seen').locator('.activity-who'), 0);
    await settledCount(entry(`Assigned to ${MEMBER.name} by ${MEMBER.name}`), 2);
    await entry(`Assigned to ${TEAM} (team) by ${MEMBER.name}`).waitFor();
    await entry(`Unassigned by ${MEMBER.name}`).waitFor();
    await entry(`Commented by ${OWNER.email}: “Owner here: **looking** at the gateway logs.”`).waitFor();
    // The deleted comment's words left the log; the edited one's are its new ones.
    await entry(`Commented by ${MEMBER.name} (comment deleted)`).waitFor();
    await settledCount(activity.getByText('A note to delete'), 0);
    await entry(
      `Commented by ${MEMBER.name}: “Seen after the **payment form** change: fixed by _retrying_ once.” (edited)`,
    ).waitFor();
    await screenshot(page, 'collab-activity');

    const logged = (
      await t
        .api()
        .get(`/api/issues/${ids.get('PaymentError')}/activity`)
        .expect(200)
    ).body.data as ActivityEntry[];
    expect(logged.find((row) => row.kind === 'resolved')?.actor).toMatchObject({
      id: memberId,
      email: MEMBER.email,
    });
    await page.getByRole('button', { name: 'Reopen', exact: true }).click();
    await entry(`Reopened by ${MEMBER.name}`).waitFor();
  });

  it("creates an alert rule that also e-mails the issue's assignee", async () => {
    await page.goto(`/projects/${project.id}/alerts`);
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New alert rule' });
    await form.getByLabel('Name', { exact: true }).fill('Tell the assignee');
    await form.getByLabel("Also e-mail the issue's assignee").check();
    await form.getByRole('button', { name: 'Create rule' }).click();
    const card = page.locator('.rule-card').filter({ hasText: 'Tell the assignee' });
    await card.getByText('e-mails the assignee').waitFor();
    const rules = (await t.api().get(`/api/projects/${project.id}/alert-rules`).expect(200)).body as {
      name: string;
      notify_assignee: boolean;
    }[];
    expect(rules).toEqual([expect.objectContaining({ name: 'Tell the assignee', notify_assignee: true })]);
  });

  it('lets an admin delete anyone’s comment', async () => {
    const owner = await watchedContext(browser, { baseURL: t.url }, problems);
    const ownerPage = await owner.newPage();
    ownerPage.setDefaultTimeout(BROWSER_WAIT_MS);
    await signIn(ownerPage, OWNER.email, OWNER.password);
    await ownerPage.goto(`/issues/${ids.get('PaymentError')}`);
    const theirs = ownerPage
      .getByRole('region', { name: /^Comments/ })
      .getByRole('listitem')
      .filter({ hasText: 'payment form' });
    // Not the owner's to edit, but theirs to remove.
    await theirs.getByRole('button', { name: `Delete comment of ${MEMBER.name}` }).waitFor();
    await settledCount(theirs.getByRole('button', { name: /^Edit/ }), 0);
    await theirs.getByRole('button', { name: `Delete comment of ${MEMBER.name}` }).click();
    await theirs.getByRole('button', { name: 'Delete comment', exact: true }).click();
    await theirs.waitFor({ state: 'detached' });
    expect((await comments('PaymentError')).map((comment) => comment.author?.email)).toEqual([OWNER.email]);
    await owner.close();
  });

  it('shows a viewer the assignee and the comments without the controls', async () => {
    const viewer = await watchedContext(browser, { baseURL: t.url }, problems);
    const viewerPage = await viewer.newPage();
    viewerPage.setDefaultTimeout(BROWSER_WAIT_MS);
    await signIn(viewerPage, VIEWER.email, VIEWER.password);
    await viewerPage.goto(`/issues/${ids.get('PaymentError')}`);
    await viewerPage.locator('.assignee-control').getByText(`Assigned to ${MEMBER.name}`).waitFor();
    await viewerPage.getByText('looking at the gateway logs').waitFor();
    await settledCount(viewerPage.getByRole('combobox', { name: 'Assignee' }), 0);
    await settledCount(viewerPage.getByLabel('Add a comment'), 0);
    for (const name of ['Resolve', 'Mute', 'Assign to me', 'Unassign']) {
      await settledCount(viewerPage.getByRole('button', { name, exact: true }), 0);
    }
    await settledTexts(viewerPage.getByRole('navigation', { name: 'Main' }).getByRole('link'), (links) =>
      expect(links).toEqual(['Projects', 'Members', 'Settings']),
    );
    await viewerPage.goto('/settings/account');
    await viewerPage.getByRole('heading', { name: 'Profile' }).waitFor();
    await settledTexts(
      viewerPage.getByRole('navigation', { name: 'Settings sections' }).getByRole('link'),
      (links) => expect(links).toEqual(['Account', 'API tokens']),
    );
    await viewer.close();
  });

  it('keeps the assignee marker and comment text readable (contrast 4.5:1 or more)', async () => {
    await page.goto(`/projects/${project.id}/issues`);
    await page.locator('.assignee-tag').first().waitFor();
    await page.locator('.assignee-tag.team').first().waitFor();
    const pairs = await page.evaluate(() => {
      const colours = (selector: string) => {
        const element = document.querySelector(selector)!;
        const style = getComputedStyle(element);
        return { selector, color: style.color, background: style.backgroundColor };
      };
      return [colours('.assignee-tag .avatar'), colours('.assignee-tag.team .avatar')];
    });
    const low = pairs
      .map(({ selector, color, background }) => ({ selector, ratio: contrastRatio(color, background) }))
      .filter(({ ratio }) => ratio < 4.5);
    expect(low).toEqual([]);
  });

  it('stays usable on a 390 px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    const check = async (name: string) => {
      const overflow = await mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element) => !element.closest('.table-wrap, .tabs, pre, .context, .code-block'))
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      );
      expect(overflow).toEqual([]);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(mobile, name);
    };
    await mobile.goto(`/issues/${ids.get('PaymentError')}`);
    await mobile.getByText('looking at the gateway logs').waitFor();
    await mobile.getByRole('region', { name: 'Activity' }).getByText('Reopened').waitFor();
    await check('mobile-collab-issue');
    await mobile.goto(`/projects/${project.id}/issues`);
    await mobile.locator('.assignee-tag').first().waitFor();
    await check('mobile-collab-list');
    await phone.close();
  });
});
