/**
 * Members, teams, invitations, accounts and the audit log in the dashboard, in a real headless
 * Chromium against the real server: an owner invites a member and a viewer, who accept through the
 * invitation page in browsers of their own; teams give them a project; what the viewer's role cannot
 * do is not offered; roles change and accounts are deactivated from the members list; passwords,
 * sessions and scoped tokens from the account pages; and the audit log filters and pages.
 */
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
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
  settled,
  settledCount,
} from './helpers/browser';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

const OWNER_EMAIL = 'members-owner@example.com';
const OWNER_PASSWORD = 'members-owner-secret';
const MEMBER = { email: 'mina.member@example.com', name: 'Mina Member', password: 'mina-secret-1' };
const VIEWER = { email: 'vic.viewer@example.com', name: 'Vic Viewer', password: 'vic-secret-12' };
/** Other e2e files share the database: a team name (and so slug) of this file's own. */
const TEAM = `Payments ${randomUUID().slice(0, 6)}`;
const TEMP_TEAM = `Temp ${randomUUID().slice(0, 6)}`;
const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

interface MemberView {
  id: number;
  email: string;
  name: string;
  role: string;
  is_active: boolean;
  team_ids: number[];
}

interface TeamView {
  id: number;
  slug: string;
  name: string;
  member_ids: number[];
  project_ids: number[];
}

interface TokenView {
  id: number;
  description: string;
  user_id: number | null;
  read_only: boolean;
  project_ids: number[] | null;
}

interface AuditEntry {
  action: string;
  actor: string;
  actor_user_id: number | null;
}

describe('members, teams and accounts in the dashboard (browser)', () => {
  let t: TestApp;
  let digest: Queue;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The invitees' own browsers, signed in by accepting their invitations. */
  let memberContext: BrowserContext;
  let memberPage: Page;
  let viewerPage: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let project: { id: number; name: string };
  let issueId: number;
  /** Invitation links as the dashboard showed them, by e-mail. */
  const links = new Map<string, string>();

  const members = async () => (await t.api().get('/api/members').expect(200)).body.data as MemberView[];
  const member = async (email: string) => (await members()).find((m) => m.email === email)!;
  const teams = async () => (await t.api().get('/api/teams').expect(200)).body.data as TeamView[];
  const row = (target: Page, text: string) => target.getByRole('row').filter({ hasText: text });
  /** The path of an invitation link (its host is PUBLIC_URL's, not this test server's). */
  const pathOf = (link: string) => new URL(link).pathname;

  async function newBrowserPage(): Promise<{ context: BrowserContext; page: Page }> {
    const fresh = await watchedContext(browser, { baseURL: t.url }, problems);
    const opened = await fresh.newPage();
    opened.setDefaultTimeout(BROWSER_WAIT_MS);
    return { context: fresh, page: opened };
  }

  async function invite(email: string, role: string, team?: string): Promise<string> {
    await page.goto('/members');
    const form = page.getByRole('form', { name: 'Invite someone' });
    await form.getByLabel('E-mail').fill(email);
    await form.getByLabel('Role').selectOption(role);
    if (team) await form.getByRole('checkbox', { name: team }).check();
    await form.getByRole('button', { name: 'Create invitation' }).click();
    const reveal = page.getByRole('region', { name: `Invitation for ${email}` });
    await reveal.waitFor();
    const link = await reveal.getByLabel('Invitation link').inputValue();
    expect(link).toMatch(/\/invitations\/[0-9a-f]{64}$/);
    links.set(email, link);
    return link;
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${OWNER_EMAIL}:${OWNER_PASSWORD}`, SERVE_DASHBOARD: 'true' });
    digest = openQueue(t, QueueName.Digest);
    project = (await t.api().post('/api/projects').send({ name: 'Members Shop' }).expect(201)).body;
    await t.api().post('/api/projects').send({ name: 'Back Office' }).expect(201);
    await enqueueEvent(digest, project.id, {
      exception: { values: [{ type: 'CartError', value: 'cart total is NaN', stacktrace: { frames: [] } }] },
      timestamp: new Date().toISOString(),
      level: 'error',
      platform: 'node',
    });
    issueId = await eventually(async () => {
      const list = await t.api().get(`/api/projects/${project.id}/issues`).expect(200);
      return (list.body.data as { id: number }[])[0]?.id;
    }, 30_000);
    ({ browser, context, page } = await openSignedIn(
      t.url,
      { email: OWNER_EMAIL, password: OWNER_PASSWORD },
      problems,
      { permissions: ['clipboard-read', 'clipboard-write'] },
    ));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await digest?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('creates a team with a project from the teams page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Members sections' })
      .getByRole('link', { name: 'Teams' })
      .click();
    await page.waitForURL(/\/members\/teams$/);
    await page.getByLabel('New team name').fill(TEAM);
    await page.getByRole('button', { name: 'Create team' }).click();
    const card = page.locator('.team-card').filter({ hasText: TEAM });
    await card.getByText(`#${slugOf(TEAM)}`).waitFor();
    await card.getByLabel(`Add a project to ${TEAM}`).selectOption({ label: 'Members Shop' });
    await card.getByRole('button', { name: 'Add project' }).click();
    await card.getByRole('link', { name: 'Members Shop' }).waitFor();
    expect((await teams()).find((team) => team.name === TEAM)).toMatchObject({
      slug: slugOf(TEAM),
      project_ids: [project.id],
    });
  });

  it('invites a member and a viewer, showing a link to copy that was not e-mailed', async () => {
    const link = await invite(MEMBER.email, 'member', TEAM);
    const reveal = page.getByRole('region', { name: `Invitation for ${MEMBER.email}` });
    await reveal.getByText('The link was not e-mailed').waitFor();
    await reveal.getByRole('button', { name: 'Copy link' }).click();
    await reveal.getByRole('button', { name: 'Copied!' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await screenshot(page, 'members-invited');

    await invite(VIEWER.email, 'viewer', TEAM);
    await invite('changed.mind@example.com', 'member');
    const openList = page.getByRole('region', { name: 'Open invitations' });
    for (const email of [MEMBER.email, VIEWER.email, 'changed.mind@example.com'])
      await row(page, email).waitFor();
    await row(page, VIEWER.email).getByText(TEAM).waitFor();
    await openList.getByRole('button', { name: 'Revoke the invitation of changed.mind@example.com' }).click();
    await row(page, 'changed.mind@example.com').waitFor({ state: 'detached' });
    const pending = (await t.api().get('/api/invitations').expect(200)).body.data as { email: string }[];
    const open = pending.map((invitation) => invitation.email);
    expect(open).toEqual(expect.arrayContaining([VIEWER.email, MEMBER.email]));
    expect(open).not.toContain('changed.mind@example.com');
  });

  it('lets the invitees accept in their own browsers, signed out, and says why used links fail', async () => {
    ({ context: memberContext, page: memberPage } = await newBrowserPage());
    await memberPage.goto(pathOf(links.get(MEMBER.email)!));
    await memberPage.getByRole('heading', { name: 'Join Error Tracker' }).waitFor();
    await memberPage.getByText(MEMBER.email).waitFor();
    await memberPage.getByText('Member', { exact: true }).waitFor();
    // The address is asked again, and must be the invited one.
    await memberPage.getByLabel('E-mail').fill('someone.else@example.com');
    await memberPage.getByLabel('Your name (optional)').fill(MEMBER.name);
    await memberPage.getByLabel('Password', { exact: true }).fill(MEMBER.password);
    await memberPage.getByLabel('Repeat the password').fill(MEMBER.password);
    await memberPage.getByRole('button', { name: 'Accept and create account' }).click();
    await memberPage
      .getByRole('alert')
      .filter({ hasText: 'Type the address the invitation was sent to' })
      .waitFor();
    await memberPage.getByLabel('E-mail').fill(MEMBER.email.toUpperCase());
    await screenshot(memberPage, 'invitation-accept');
    await memberPage.getByRole('button', { name: 'Accept and create account' }).click();
    await memberPage.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    // Through the team: its project, not the other one.
    await memberPage.getByRole('link', { name: 'Members Shop' }).waitFor();
    await settledCount(memberPage.getByRole('link', { name: 'Back Office' }), 0);
    expect(await member(MEMBER.email)).toMatchObject({ name: MEMBER.name, role: 'member', is_active: true });

    ({ page: viewerPage } = await newBrowserPage());
    await viewerPage.goto(pathOf(links.get(VIEWER.email)!));
    await viewerPage.getByText('Viewer', { exact: true }).waitFor();
    await viewerPage.getByLabel('E-mail').fill(VIEWER.email);
    await viewerPage.getByLabel('Your name (optional)').fill(VIEWER.name);
    await viewerPage.getByLabel('Password', { exact: true }).fill(VIEWER.password);
    await viewerPage.getByLabel('Repeat the password').fill(VIEWER.password);
    await viewerPage.getByRole('button', { name: 'Accept and create account' }).click();
    await viewerPage.getByRole('link', { name: 'Members Shop' }).waitFor();

    // Used, revoked and made-up links, opened signed out.
    const { context: stranger, page: strangerPage } = await newBrowserPage();
    await strangerPage.goto(pathOf(links.get(MEMBER.email)!));
    await strangerPage.getByRole('heading', { name: 'This invitation has been used already' }).waitFor();
    await screenshot(strangerPage, 'invitation-used');
    await strangerPage.goto(pathOf(links.get('changed.mind@example.com')!));
    await strangerPage.getByRole('heading', { name: 'This invitation can no longer be used' }).waitFor();
    await strangerPage
      .getByText('It has been revoked. Ask an admin of the tracker to invite you again.')
      .waitFor();
    await strangerPage.goto(`/invitations/${'0'.repeat(64)}`);
    await strangerPage.getByRole('heading', { name: 'This invitation link is not valid' }).waitFor();
    expect(new URL(strangerPage.url()).pathname).toBe(`/invitations/${'0'.repeat(64)}`);
    await stranger.close();
  });

  it('adds and removes team members from the teams page', async () => {
    await page.goto('/members/teams');
    const card = page.locator('.team-card').filter({ hasText: TEAM });
    // Both joined the team with their invitations.
    const chip = (name: string) => card.locator('.item-chip').filter({ hasText: name });
    await chip(MEMBER.name).waitFor();
    await chip(VIEWER.name).waitFor();
    await card.getByRole('button', { name: `Remove ${VIEWER.name} from ${TEAM}` }).click();
    await chip(VIEWER.name).waitFor({ state: 'detached' });
    await card.getByLabel(`Add a member to ${TEAM}`).selectOption({ label: `${VIEWER.name} (viewer)` });
    await card.getByRole('button', { name: 'Add member' }).click();
    await chip(VIEWER.name).waitFor();

    // A second team, renamed, then deleted.
    await page.getByLabel('New team name').fill(TEMP_TEAM);
    await page.getByRole('button', { name: 'Create team' }).click();
    const temp = page.locator('.team-card').filter({ hasText: `#${slugOf(TEMP_TEAM)}` });
    await temp.getByRole('button', { name: `Rename team ${TEMP_TEAM}` }).click();
    await temp.getByLabel('Team name').fill('Back office crew');
    await temp.getByRole('button', { name: 'Save' }).click();
    await temp.getByRole('heading', { name: /Back office crew/ }).waitFor();
    await temp.getByLabel('Add a project to Back office crew').selectOption({ label: 'Back Office' });
    await temp.getByRole('button', { name: 'Add project' }).click();
    await temp.getByRole('link', { name: 'Back Office' }).waitFor();
    await screenshot(page, 'members-teams');
    await temp.getByRole('button', { name: 'Delete team Back office crew' }).click();
    await temp.getByRole('alertdialog').getByRole('button', { name: 'Delete team' }).click();
    await temp.waitFor({ state: 'detached' });

    const payments = (await teams()).find((team) => team.name === TEAM)!;
    expect(payments.member_ids.sort()).toEqual(
      [(await member(MEMBER.email)).id, (await member(VIEWER.email)).id].sort(),
    );
    expect((await teams()).map((team) => team.name)).not.toContain('Back office crew');
  });

  it('shows the viewer no triage, settings, project creation, alert channels or audit log', async () => {
    await viewerPage.goto('/');
    await viewerPage.getByRole('link', { name: 'Members Shop' }).waitFor();
    await settledCount(viewerPage.getByLabel('New project name'), 0);
    await settledCount(viewerPage.getByRole('link', { name: 'Settings', exact: true }), 1); // the main nav
    const card = viewerPage.locator('.project-card').filter({ hasText: 'Members Shop' });
    await settledCount(card.getByRole('link', { name: 'Settings' }), 0);

    await viewerPage.goto(`/issues/${issueId}`);
    await viewerPage.getByRole('heading', { name: /CartError/ }).waitFor();
    await viewerPage.locator('.assignee-control').getByText('Unassigned').waitFor();
    for (const name of ['Resolve', 'Mute', 'Reopen', 'Assign to me', 'Comment']) {
      await settledCount(viewerPage.getByRole('button', { name, exact: true }), 0);
    }
    await settledCount(viewerPage.getByRole('combobox', { name: 'Assignee' }), 0);
    await viewerPage.getByText('A viewer can read comments but not write them.').waitFor();
    await screenshot(viewerPage, 'viewer-issue');

    await viewerPage.goto(`/projects/${project.id}/issues`);
    await viewerPage.getByRole('link', { name: /CartError/ }).waitFor();
    await settledCount(viewerPage.getByRole('checkbox', { name: /^Select/ }), 0);
    const sections = viewerPage.getByRole('navigation', { name: 'Project sections' });
    await settled(
      () => sections.getByRole('link').allTextContents(),
      (value) =>
        expect(value).toEqual([
          'Issues',
          'Releases',
          'Monitors',
          'Feedback',
          'Alert rules & history',
          'Source maps',
          'Usage',
        ]),
    );
    await viewerPage.goto(`/projects/${project.id}/alerts`);
    await viewerPage.getByText('No alert rules yet.').waitFor();
    await settledCount(viewerPage.getByRole('button', { name: 'New rule' }), 0);

    await viewerPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    const tabs = viewerPage.getByRole('navigation', { name: 'Settings sections' });
    await settled(
      () => tabs.getByRole('link').allTextContents(),
      (value) => expect(value).toEqual(['Account', 'API tokens']),
    );
    await viewerPage.goto('/settings/channels');
    await viewerPage.getByRole('heading', { name: 'Not available to your role' }).waitFor();
    await viewerPage.getByText('A viewer cannot see the alert channels.').waitFor();

    // The members list is there to read, without the controls.
    await viewerPage.goto('/members');
    await row(viewerPage, MEMBER.email).waitFor();
    await settledCount(viewerPage.getByRole('form', { name: 'Invite someone' }), 0);
    await settledCount(viewerPage.getByRole('combobox', { name: /^Role of/ }), 0);
    await settledCount(viewerPage.getByRole('button', { name: /^Deactivate/ }), 0);
  });

  it('changes roles and deactivates and reactivates an account from the members list', async () => {
    await page.goto('/members');
    const mina = row(page, MEMBER.email);
    await mina.locator('.badge-resolved').getByText('active').waitFor();
    await mina.getByText(TEAM).waitFor();
    // The owner's own row offers nothing to change.
    const own = row(page, OWNER_EMAIL);
    await own.getByText('(you)').waitFor();
    await settledCount(own.getByRole('combobox'), 0);

    await mina.getByRole('combobox', { name: `Role of ${MEMBER.name}` }).selectOption('admin');
    await page
      .getByRole('status')
      .filter({ hasText: `${MEMBER.name} is now an admin.` })
      .waitFor();
    expect((await member(MEMBER.email)).role).toBe('admin');
    await mina.getByRole('combobox', { name: `Role of ${MEMBER.name}` }).selectOption('member');
    await page
      .getByRole('status')
      .filter({ hasText: `${MEMBER.name} is now a member.` })
      .waitFor();
    expect((await member(MEMBER.email)).role).toBe('member');

    const vic = row(page, VIEWER.email);
    await vic.getByRole('button', { name: `Deactivate ${VIEWER.name}` }).click();
    const confirm = vic.getByRole('alertdialog', { name: `Confirm deactivating ${VIEWER.name}` });
    await confirm.getByText(`Sign ${VIEWER.name} out and stop their tokens?`).waitFor();
    // Focus moves to the confirmation.
    await eventually(
      async () => (await page.evaluate(() => document.activeElement?.textContent)) === 'Deactivate',
    );
    await screenshot(page, 'members-deactivate-confirm');
    await confirm.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await vic.getByText('deactivated').waitFor();
    expect((await member(VIEWER.email)).is_active).toBe(false);
    await screenshot(page, 'members-list');

    // The viewer's browser is signed out at its next request.
    await viewerPage.goto('/');
    await viewerPage.waitForURL(/\/login$/);
    await vic.getByRole('button', { name: `Reactivate ${VIEWER.name}` }).click();
    await vic.locator('.badge-resolved').getByText('active').waitFor();
    expect((await member(VIEWER.email)).is_active).toBe(true);
    await signIn(viewerPage, VIEWER.email, VIEWER.password);
  });

  it('keeps the role badges at a contrast of 4.5:1 or more', async () => {
    const colours = await page.evaluate(() =>
      ['owner', 'admin', 'member', 'viewer'].map((role) => {
        const badge = document.createElement('span');
        badge.className = `badge badge-role-${role}`;
        badge.textContent = role;
        document.body.appendChild(badge);
        const style = getComputedStyle(badge);
        const result = { role, color: style.color, background: style.backgroundColor };
        badge.remove();
        return result;
      }),
    );
    const low = colours
      .map(({ role, color, background }) => ({ role, ratio: contrastRatio(color, background) }))
      .filter(({ ratio }) => ratio < 4.5);
    expect(low).toEqual([]);
  });

  it('lets the member rename themselves, choose e-mails, change the password and sign out other sessions', async () => {
    // A second session of the member's, in another browser.
    const { context: second, page: secondPage } = await newBrowserPage();
    await signIn(secondPage, MEMBER.email, MEMBER.password);

    await memberPage.goto('/');
    await memberPage.locator('.topbar').getByRole('link', { name: MEMBER.name, exact: true }).click();
    await memberPage.waitForURL(/\/settings\/account$/);
    await memberPage.getByText('Member', { exact: true }).waitFor();
    await memberPage.getByLabel('Name', { exact: true }).fill('Mina M.');
    await memberPage.getByLabel('Personal e-mail notifications').check();
    await memberPage.getByRole('button', { name: 'Save profile' }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Profile saved.' }).waitFor();
    // The top bar follows.
    await memberPage.locator('.topbar').getByText('Mina M.').waitFor();
    const me = (
      await t
        .http()
        .get('/auth/me')
        .set('Cookie', await cookieOf(memberContext))
        .expect(200)
    ).body;
    expect(me).toMatchObject({ name: 'Mina M.', email_notifications: true, role: 'member' });

    const sessions = memberPage.getByRole('region', { name: 'Sessions' });
    await settledCount(sessions.getByRole('row'), 3); // a header and two sessions
    await sessions.getByText('this browser').waitFor();
    await sessions.getByRole('row').filter({ hasText: 'Chrome on Linux' }).first().waitFor();

    await memberPage.getByLabel('Current password').fill('not the password');
    await memberPage.getByLabel('New password', { exact: true }).fill('mina-new-secret');
    await memberPage.getByLabel('Repeat the new password').fill('mina-new-secret');
    await memberPage.getByRole('button', { name: 'Change password' }).click();
    await memberPage.getByRole('alert').filter({ hasText: 'Current password' }).waitFor();
    await memberPage.getByLabel('Current password').fill(MEMBER.password);
    await memberPage.getByRole('button', { name: 'Change password' }).click();
    await memberPage
      .getByRole('status')
      .filter({ hasText: 'Password changed. Your other sessions were signed out.' })
      .waitFor();
    MEMBER.password = 'mina-new-secret';
    // The other session ended with the change: one row left, this browser's.
    await settledCount(sessions.getByRole('row'), 2);
    await secondPage.goto('/');
    await secondPage.waitForURL(/\/login$/);

    // Signing a session out from the list.
    await signIn(secondPage, MEMBER.email, MEMBER.password);
    await sessions.page().reload();
    await settledCount(sessions.getByRole('row'), 3);
    await screenshot(memberPage, 'account-page');
    await sessions.getByRole('button', { name: /^Sign out Chrome on Linux/ }).click();
    await settledCount(sessions.getByRole('row'), 2);
    await secondPage.goto('/');
    await secondPage.waitForURL(/\/login$/);
    await second.close();
  });

  it('creates a read-only token limited to a project from the tokens page', async () => {
    await memberPage.goto('/settings/tokens');
    await memberPage.getByLabel('Description').fill('Dashboard TV');
    await memberPage.getByLabel(/^Read-only/).check();
    await memberPage.getByLabel('Only some projects').check();
    // Only the projects the member sees are offered.
    const choices = memberPage.getByRole('group', { name: 'Projects the token may use' });
    await settledCount(choices.getByRole('checkbox'), 1);
    await choices.getByRole('checkbox', { name: 'Members Shop' }).check();
    await screenshot(memberPage, 'tokens-scoped-form');
    await memberPage.getByRole('button', { name: 'Create token' }).click();
    const secret = await memberPage.getByLabel('New API token').inputValue();
    const tokenRow = row(memberPage, 'Dashboard TV');
    await tokenRow.getByText('read-only').waitFor();
    await tokenRow.getByText('Members Shop').waitFor();

    const mina = await member(MEMBER.email);
    const listed = (await t.api().get('/api/tokens').expect(200)).body.data as TokenView[];
    expect(listed.find((token) => token.description === 'Dashboard TV')).toMatchObject({
      user_id: mina.id,
      read_only: true,
      project_ids: [project.id],
    });
    await t
      .http()
      .get(`/api/projects/${project.id}/issues`)
      .set('Authorization', `Bearer ${secret}`)
      .expect(200);
    await t
      .http()
      .patch(`/api/issues/${issueId}`)
      .set('Authorization', `Bearer ${secret}`)
      .send({ state: 'resolved' })
      .expect(403);

    // The owner, an admin, sees whose it is.
    await page.goto('/settings/tokens');
    await row(page, 'Dashboard TV').getByText('Mina M.').waitFor();
  });

  it('filters the audit log by action, member and date, and pages through it', async () => {
    // More token entries than a page holds.
    const owner = await cookieOf(context);
    for (let n = 0; n < 30; n++) {
      const created = await t
        .http()
        .post('/api/tokens')
        .set('Cookie', owner)
        .set('Origin', t.url)
        .send({ description: `bulk ${n}` })
        .expect(201);
      await t
        .http()
        .delete(`/api/tokens/${created.body.id}`)
        .set('Cookie', owner)
        .set('Origin', t.url)
        .expect(204);
    }

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page
      .getByRole('navigation', { name: 'Settings sections' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page.waitForURL(/\/settings\/audit-log$/);
    const table = page.locator('.audit-table');
    await table.locator('tbody tr').first().waitFor();

    // Other test files share the database: this owner's entries only.
    await page.getByLabel('Member').selectOption({ label: OWNER_EMAIL });
    await page.waitForURL(/actor_id=/);
    await page.getByLabel('Action').selectOption('member');
    await page.waitForURL(/action=member/);
    // A header, two role changes, a deactivation and a reactivation.
    await settledCount(table.getByRole('row'), 5);
    expect((await table.locator('.audit-action').allTextContents()).sort()).toEqual([
      'Changed a role',
      'Changed a role',
      'Deactivated an account',
      'Reactivated an account',
    ]);
    await table
      .getByRole('row')
      .filter({ hasText: 'Deactivated an account' })
      .getByText(VIEWER.name)
      .waitFor();
    await screenshot(page, 'audit-log-members');

    await page.getByLabel('Action').selectOption('token');
    await page.getByLabel('Member').selectOption({ label: 'Mina M.' });
    await settledCount(table.getByRole('row'), 2);
    await table.getByText('Created an API token').waitFor();
    await table.getByText('Dashboard TV').waitFor();

    // The owner's 60 token entries: two pages.
    await page.getByLabel('Member').selectOption({ label: OWNER_EMAIL });
    await settledCount(table.getByRole('row'), 51);
    const pager = page.getByRole('navigation', { name: 'Audit log pages' });
    await settled(
      () => pager.getByRole('button', { name: '← Newer' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    const firstPage = await table.locator('tbody tr').first().textContent();
    await pager.getByRole('button', { name: 'Older →' }).click();
    await pager.getByText('Page 2').waitFor();
    await settledCount(table.locator('tbody tr'), 10);
    await settled(
      () => pager.getByRole('button', { name: 'Older →' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await pager.getByRole('button', { name: '← Newer' }).click();
    await pager.getByText('Page 1').waitFor();
    await eventually(async () => (await table.locator('tbody tr').first().textContent()) === firstPage);

    // Since tomorrow: nothing.
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
    await page.getByLabel('Since').fill(day);
    await page.getByText('Nothing matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL(/\/settings\/audit-log$/);
    await table.locator('tbody tr').first().waitFor();

    const ownerId = (await member(OWNER_EMAIL)).id;
    const invitations = (
      await t.api().get(`/api/audit-log?action=invitation&actor_id=${ownerId}`).expect(200)
    ).body.data as AuditEntry[];
    expect(invitations.map((entry) => entry.action).sort()).toEqual([
      'invitation.create',
      'invitation.create',
      'invitation.create',
      'invitation.revoke',
    ]);
    const minaId = (await member(MEMBER.email)).id;
    const accepted = (await t.api().get(`/api/audit-log?action=invitation&actor_id=${minaId}`).expect(200))
      .body.data as AuditEntry[];
    expect(accepted).toEqual([
      expect.objectContaining({ action: 'invitation.accept', actor_user_id: minaId }),
    ]);
  });

  it('offers single sign-on on the sign-in and invitation pages when the server has it', async () => {
    const { context: signedOut, page: login } = await newBrowserPage();
    // Without it (this server has none configured), the password form alone.
    await login.goto('/login');
    await login.getByLabel('Password').waitFor();
    await settledCount(login.getByRole('link', { name: /^Sign in with/ }), 0);

    // What a server with an identity provider answers (test/sso.e2e-spec.ts signs in through a real
    // one); the rest of the pages are the real ones.
    let settings = { enabled: true, name: 'Acme Login', password_login: true };
    await signedOut.route('**/auth/sso', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(settings) }),
    );
    await login.goto(`/login?next=${encodeURIComponent(`/projects/${project.id}/issues`)}`);
    const button = login.getByRole('link', { name: 'Sign in with Acme Login' });
    // Back where the deep link was going, once signed in.
    await settled(
      () => button.getAttribute('href'),
      (value) =>
        expect(value).toBe(`/auth/sso/start?next=${encodeURIComponent(`/projects/${project.id}/issues`)}`),
    );
    await login.getByLabel('Password').waitFor();
    await screenshot(login, 'login-sso');
    // A refused sign-in comes back with the reason's code, shown in the product's words.
    await login.goto('/login?sso_error=domain_not_allowed');
    await login
      .getByRole('alert')
      .filter({ hasText: 'Single sign-on failed. Accounts of your e-mail domain may not sign in here.' })
      .waitFor();
    // Text a crafted link puts there is never shown: only the generic sentence.
    await login.goto(`/login?sso_error=${encodeURIComponent('Call +1 555 0100 to unlock your account')}`);
    await login
      .getByRole('alert')
      .filter({ hasText: 'Single sign-on failed. The sign-in could not be completed. Try again.' })
      .waitFor();
    await settled(
      () => login.locator('body').innerText(),
      (value) => expect(value).not.toContain('555'),
    );

    settings = { ...settings, password_login: false };
    await login.goto('/login');
    await button.waitFor();
    await settledCount(login.getByLabel('Password'), 0);
    await login.getByText('Accounts of this tracker sign in through Acme Login only.').waitFor();

    // Without passwords, an invitation is taken up by signing in through the provider.
    const link = await invite('sso.person@example.com', 'viewer');
    await login.goto(pathOf(link));
    await login.getByText('sso.person@example.com').first().waitFor();
    await settled(
      () => button.getAttribute('href'),
      (value) => expect(value).toBe('/auth/sso/start?next=%2F'),
    );
    await settledCount(login.getByLabel('Password', { exact: true }), 0);
    await screenshot(login, 'invitation-sso');
    await signedOut.close();
  });

  it('stays usable on a 390 px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    const check = async (name: string) => {
      const overflow = await mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element) => !element.closest('.table-wrap, .tabs, pre'))
          .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
      );
      expect(overflow).toEqual([]);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(mobile, name);
    };

    await mobile.goto('/members');
    await row(mobile, MEMBER.email).waitFor();
    await row(mobile, VIEWER.email)
      .getByRole('button', { name: `Deactivate ${VIEWER.name}` })
      .click();
    await check('mobile-members');
    await mobile.goto('/members/teams');
    await mobile.locator('.team-card').first().waitFor();
    await check('mobile-teams');
    await mobile.goto('/settings/account');
    await mobile.getByRole('region', { name: 'Sessions' }).getByRole('row').nth(1).waitFor();
    await check('mobile-account');
    await mobile.goto(`/settings/audit-log?action=member&actor_id=${(await member(OWNER_EMAIL)).id}`);
    await mobile.locator('.audit-table').getByText('Deactivated an account').waitFor();
    await check('mobile-audit-log');
    await mobile.goto('/settings/tokens');
    await mobile.getByLabel('Only some projects').check();
    await check('mobile-tokens');

    const { context: signedOut, page: invitation } = await newBrowserPage();
    await invitation.setViewportSize({ width: 390, height: 844 });
    const link = await invite('phone.person@example.com', 'viewer');
    await invitation.goto(pathOf(link));
    await invitation.getByLabel('Repeat the password').waitFor();
    expect(await invitation.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(invitation, 'mobile-invitation');
    await signedOut.close();
    await phone.close();
  });
});

/** `et_session=…` of a browser context, for requests made beside it. */
async function cookieOf(context: BrowserContext): Promise<string> {
  const session = (await context.cookies()).find((cookie) => cookie.name === 'et_session');
  if (!session) throw new Error('the context is not signed in');
  return `et_session=${session.value}`;
}
