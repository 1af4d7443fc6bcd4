/**
 * The Erasure section of a project's settings in a real headless Chromium against the real server:
 * finding a person by id, e-mail, username or IP address shows, kind by kind, what erasing would
 * remove (the API's preview), nothing is removed until the erasure is confirmed, the erasure then
 * reports the same counts, and the audit log names it in words with the issues counted right.
 * Screenshots at 1280 and 390 px; no console errors.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { randomUUID } from 'node:crypto';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import { createProject, envelope, hex, Project, sendEnvelope } from './helpers/attachments';
import {
  ensureDashboardBuilt,
  expectNoPageProblems,
  openPhonePage,
  openSignedIn,
  PageProblems,
  screenshot,
  settled,
  settledTexts,
} from './helpers/browser';
import { storedEvent } from './helpers/queues';

const EMAIL = 'erasure-admin@example.com';
const PASSWORD = 'erasure-secret-pw';
const RUN = randomUUID().slice(0, 8);
const ANN = { id: `ann-${RUN}`, email: `ann.${RUN}@example.com`, username: `ann_${RUN}` };
const BOB = { id: `bob-${RUN}` };

describe('dashboard erasure (browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let project: Project;
  let annEvents: string[];
  let bobEvent: string;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const consoleErrors: string[] = [];

  async function sendEvent(event: Record<string, unknown>): Promise<string> {
    const eventId = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [
        { header: { type: 'event' }, payload: JSON.stringify({ event_id: hex(eventId), ...event }) },
      ]),
    ).expect(200);
    return eventId;
  }

  /** The rows of the counts table in `scope` as "label count" texts. */
  const countRows = (scope: ReturnType<Page['locator']>) => scope.locator('.erasure-counts tr');

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    project = await createProject(t, 'Erasure');
    annEvents = [
      await sendEvent({ message: 'checkout failed', fingerprint: ['checkout'], user: { id: ANN.id, username: ANN.username } }),
      await sendEvent({ message: 'checkout failed', fingerprint: ['checkout'], user: { email: ANN.email } }),
      await sendEvent({ message: 'only ann sees this', fingerprint: ['ann-only'], user: { username: ANN.username } }),
    ];
    bobEvent = await sendEvent({ message: 'checkout failed', fingerprint: ['checkout'], user: BOB });
    for (const id of [...annEvents, bobEvent]) await storedEvent(t, id, 30_000);
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

  it('shows what erasing a username would remove, and removes nothing until confirmed', async () => {
    await page.goto(`/projects/${project.id}/settings/erasure`);
    const section = page.locator('section').filter({ has: page.getByRole('heading', { name: "Erase a person's data" }) });
    await section.getByLabel('Match').selectOption('username');
    await section.getByLabel('Person', { exact: true }).fill(ANN.username);
    await section.getByRole('button', { name: 'Find' }).click();
    const preview = section.locator('.erasure-preview');
    await preview.getByText(`What erasing username:${ANN.username} would remove`).waitFor();
    const expected = (
      await t
        .api()
        .get(`/api/projects/${project.id}/users/${encodeURIComponent(`username:${ANN.username}`)}/erasure-preview`)
        .expect(200)
    ).body;
    expect(expected).toMatchObject({ issues_updated: 1, issues_deleted: 1, erased: { events: 2 } });
    await settledTexts(countRows(preview), (rows) =>
      expect(rows).toEqual([
        'Events2',
        'Issues deleted, no event left1',
        'Issues kept, their counts corrected1',
        'Files attached to the events0',
        'User feedback0',
        'Files sent with feedback0',
        'Release health records0',
        'Session records in Redis0',
        'Failed digest jobs0',
      ]),
    );
    await screenshot(page, 'project-settings-erasure-preview');

    // Asking for confirmation; cancelling leaves everything as it was.
    await preview.getByRole('button', { name: 'Erase this data…' }).click();
    await preview.getByText('This cannot be undone').waitFor();
    await screenshot(page, 'project-settings-erasure-confirm');
    await preview.getByRole('button', { name: 'Cancel' }).click();
    await preview.getByRole('button', { name: 'Erase this data…' }).waitFor();
    for (const id of annEvents) await t.api().get(`/api/events/${id}`).expect(200);
  });

  it('erases after confirmation and reports the counts the preview showed', async () => {
    const preview = page.locator('.erasure-preview');
    await preview.getByRole('button', { name: 'Erase this data…' }).click();
    await preview.getByRole('button', { name: 'Erase permanently' }).click();
    const done = page.locator('.erasure-done');
    await done.getByRole('status').filter({ hasText: `Erased the data of username:${ANN.username}.` }).waitFor();
    await settledTexts(countRows(done), (rows) =>
      expect(rows).toEqual(expect.arrayContaining(['Events2', 'Issues deleted, no event left1', 'Issues kept, their counts corrected1'])),
    );
    await t.api().get(`/api/events/${annEvents[0]}`).expect(404);
    await t.api().get(`/api/events/${annEvents[2]}`).expect(404);
    await t.api().get(`/api/events/${annEvents[1]}`).expect(200);
    await t.api().get(`/api/events/${bobEvent}`).expect(200);
    await screenshot(page, 'project-settings-erasure-done');

    // Found again, nothing is left of the username.
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('Nothing of this person is stored in this project.').waitFor();
  });

  it('names the erasure in words in the audit log, with the issues counted right', async () => {
    await page.goto('/settings/audit-log');
    const row = page.locator('tr').filter({ hasText: "Erased a person's data" });
    await row.first().waitFor();
    const text = await row.first().innerText();
    expect(text).toContain('issues updated: 1');
    expect(text).toContain('issues deleted: 1');
    expect(text).toContain('events: 2');
    expect(text).not.toContain('Project user erase');
    await screenshot(page, 'settings-audit-log-erasure');
  });

  it('fits a 390 px phone, by e-mail address', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    phone.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await mobile.goto(`/projects/${project.id}/settings/erasure`);
      await mobile.getByLabel('Match').selectOption('email');
      await mobile.getByLabel('Person', { exact: true }).fill(ANN.email.toUpperCase());
      await mobile.getByRole('button', { name: 'Find' }).click();
      await mobile.getByText(`What erasing email:${ANN.email.toUpperCase()} would remove`).waitFor();
      await settledTexts(countRows(mobile.locator('.erasure-preview')), (rows) =>
        expect(rows).toEqual(expect.arrayContaining(['Events1', 'Issues deleted, no event left0'])),
      );
      await mobile.getByRole('button', { name: 'Erase this data…' }).click();
      await mobile.getByText('This cannot be undone').waitFor();
      await settled(
        () => mobile.evaluate(() => document.documentElement.scrollWidth),
        (width) => expect(width).toBeLessThanOrEqual(390),
      );
      await screenshot(mobile, 'mobile-project-settings-erasure');
    } finally {
      await phone.close();
    }
  });
});
