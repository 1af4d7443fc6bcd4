/**
 * Triage in the dashboard, in a real headless Chromium against the real server, with issues the
 * real digest made from events (so that suggestions, counts and trends come from its rollups):
 * search and its suggestions, the pickers and sorts, bulk actions in one request, snoozes, merges,
 * page jumps, the event view, the first-event wait, and the accessibility fixes.
 */
import { Queue } from 'bullmq';
import { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import {
  contrastRatio,
  ensureDashboardBuilt,
  PageProblems,
  screenshot,
  expectNoPageProblems,
  openSignedIn,
  openPhonePage,
  settled,
  settledCount,
  settledValue,
  settledTexts,
} from './helpers/browser';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const EMAIL = 'triage@example.com';
const PASSWORD = 'triage-secret';
const DAY = 86_400_000;

interface ApiIssue {
  id: number;
  short_id: string;
  state: string;
  event_count: number;
  resolved_in: string | null;
  mute_until_count: number | null;
}

describe('issue triage in the dashboard (browser)', () => {
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
    fields: Record<string, unknown> = {},
    at = Date.now(),
  ): Promise<string> {
    return enqueueEvent(digest, projectId, {
      exception: { values: [{ type, value: `${type} in the shop`, stacktrace: { frames: [] } }] },
      timestamp: new Date(at).toISOString(),
      level: 'error',
      platform: 'node',
      ...fields,
    });
  }

  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await digest.getJobCounts('waiting', 'active', 'delayed');
      return counts.waiting + counts.active + counts.delayed === 0;
    }, 30_000);
    await settleRollups(t.app);
  }

  const issue = async (name: string): Promise<ApiIssue> =>
    (
      await t
        .api()
        .get(`/api/issues/${ids.get(name)}`)
        .expect(200)
    ).body as ApiIssue;

  const listUrl = (projectId: number, query = '') => `/projects/${projectId}/issues${query}`;
  const rows = () => page.locator('tbody tr');
  const row = (text: string) => page.getByRole('row').filter({ hasText: text });
  const suggestions = () => page.getByRole('listbox', { name: 'Suggestions' });
  const bulkBar = () => page.getByRole('region', { name: 'Bulk actions' });

  /** The PATCH requests the page sends while `action` runs. */
  async function patchesDuring(action: () => Promise<void>): Promise<Request[]> {
    const sent: Request[] = [];
    const listener = (request: Request) => {
      if (request.method() === 'PATCH') sent.push(request);
    };
    page.on('request', listener);
    try {
      await action();
    } finally {
      page.off('request', listener);
    }
    return sent;
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    project = (await t.api().post('/api/projects').send({ name: 'Triage Shop' }).expect(201)).body;
    const now = Date.now();
    for (let n = 0; n < 5; n++)
      await send(project.id, 'CheckoutError', {
        environment: 'production',
        release: 'shop@2.0.0',
        user: { id: `u${n}`, email: `buyer${n}@example.com` },
        tags: { region: 'eu west' },
      });
    await send(project.id, 'CartWarning', {
      level: 'warning',
      environment: 'staging',
      release: 'shop@1.0.0',
      user: { id: 'u9' },
      tags: { region: 'us' },
    });
    await send(
      project.id,
      'LoginFatal',
      { level: 'fatal', environment: 'production', release: 'shop@1.0.0' },
      now - 3 * DAY,
    );
    await send(
      project.id,
      'LoginFatal',
      { level: 'fatal', environment: 'production', release: 'shop@1.0.0' },
      now - 2 * DAY,
    );
    await send(project.id, 'SearchInfo', { level: 'info', environment: 'staging' });
    await send(project.id, 'DupeA', { environment: 'production', release: 'shop@2.0.0' });
    for (let n = 0; n < 2; n++)
      await send(project.id, 'DupeB', { environment: 'production', release: 'shop@2.0.0' });
    await settle();
    const stored: { id: number; type: string }[] = await db.query(
      'SELECT id, type FROM issues WHERE project_id = $1',
      [project.id],
    );
    for (const { id, type } of stored) ids.set(type, id);
    expect(ids.size).toBe(6);
    await t
      .api()
      .patch(`/api/issues/${ids.get('SearchInfo')}`)
      .send({ state: 'resolved' })
      .expect(200);

    ({ browser, context, page } = await openSignedIn(t.url, { email: EMAIL, password: PASSWORD }, problems, {
      permissions: ['clipboard-read', 'clipboard-write'],
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await digest?.close();
    await t?.close();
  });

  afterEach(() => expectNoPageProblems(problems));

  it('shows the unresolved issues by default, with the total, level, users and a 24-hour trend', async () => {
    await page.goto(listUrl(project.id));
    await row('CheckoutError').waitFor();
    await settledValue(page.getByRole('combobox', { name: 'Search issues' }), 'is:unresolved');
    await page.getByText('5 issues', { exact: true }).waitFor();
    await settledCount(rows(), 5);
    await settledCount(row('SearchInfo'), 0);
    await row('LoginFatal').locator('.level-marker.level-fatal').waitFor();
    await row('CartWarning').locator('.level-marker.level-warning').waitFor();
    await settled(
      () => row('CheckoutError').locator('.col-users').textContent(),
      (value) => expect(value).toBe('5'),
    );
    await row('CheckoutError').getByRole('img', { name: '5 events in the last 24 hours' }).waitFor();
    // LoginFatal's events are days old: a flat line.
    await row('LoginFatal').getByRole('img', { name: '0 events in the last 24 hours' }).waitFor();
    await screenshot(page, 'triage-list');
  });

  it('searches with suggestions of keys and of the values the events have', async () => {
    await page.goto(listUrl(project.id));
    await row('CheckoutError').waitFor();
    const box = page.getByRole('combobox', { name: 'Search issues' });
    await box.fill('');
    await box.pressSequentially('reg');
    await suggestions()
      .getByRole('option', { name: /^region:/ })
      .waitFor();
    await box.press('ArrowDown');
    await box.press('Enter');
    await settledValue(box, 'region:');
    // After the key, its values from the rollups, the most frequent first.
    const values = suggestions().getByRole('option');
    await settledTexts(values, (texts) =>
      expect(texts.map((text) => text.trim())).toEqual(['region:eu west', 'region:us']),
    );
    await screenshot(page, 'triage-search-suggestions');
    await suggestions().getByRole('option', { name: 'region:eu west' }).click();
    await settledValue(box, 'region:"eu west" ');
    await box.press('Enter');
    await page.waitForURL(/query=region%3A%22eu\+west%22/);
    await eventually(async () => (await rows().count()) === 1);
    await row('CheckoutError').waitFor();
    await page.getByText('1 issue', { exact: true }).waitFor();

    // Built-in keys suggest their own values.
    await box.fill('level:f');
    await suggestions().getByRole('option', { name: 'level:fatal' }).click();
    await box.press('Enter');
    await row('LoginFatal').waitFor();
    await settledCount(rows(), 1);

    // A malformed term is refused with the server's message, naming it.
    await box.fill('times_seen:>lots');
    await box.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'times_seen:>lots' }).waitFor();
  });

  it('filters with the environment and release pickers and sorts by events', async () => {
    await page.goto(listUrl(project.id));
    await row('CheckoutError').waitFor();
    await page.getByLabel('Environment').selectOption('staging');
    await page.waitForURL(/environment=staging/);
    await eventually(async () => (await rows().count()) === 1);
    await row('CartWarning').waitFor();
    await page.getByText('1 issue in staging').waitFor();

    await page.getByLabel('Environment').selectOption('');
    await row('CheckoutError').waitFor();
    await page.getByLabel('Release').selectOption('shop@1.0.0');
    await page.waitForURL(/release%3Ashop%401\.0\.0/);
    // The search box renders the new query after the address changes: waited for, not raced.
    const searchBox = page.getByRole('combobox', { name: 'Search issues' });
    await eventually(async () => (await searchBox.inputValue()) === 'is:unresolved release:shop@1.0.0');
    await settledValue(searchBox, 'is:unresolved release:shop@1.0.0');
    await eventually(async () => (await rows().count()) === 2);
    await row('LoginFatal').waitFor();
    await row('CartWarning').waitFor();

    await page.getByLabel('Release').selectOption('');
    await page.getByLabel('Sort by').selectOption('events');
    await page.waitForURL(/sort=events/);
    // Most events first: CheckoutError (5), then the two with 2, then those with 1.
    await eventually(async () => (await rows().first().textContent())?.includes('CheckoutError'));
    await settledCount(rows(), 5);
    await settled(
      () => rows().last().textContent(),
      (value) => expect(value).toMatch(/CartWarning|DupeA/),
    );
  });

  it('resolves in the next release in one request, then offers only the actions that change something', async () => {
    await page.goto(listUrl(project.id));
    await row('CheckoutError').waitFor();
    const checkout = await issue('CheckoutError');
    const login = await issue('LoginFatal');
    await page.getByRole('checkbox', { name: `Select ${checkout.short_id}` }).check();
    await page.getByRole('checkbox', { name: `Select ${login.short_id}` }).check();
    const patches = await patchesDuring(async () => {
      await bulkBar().getByRole('button', { name: 'More ways to resolve' }).click();
      await page.getByRole('menuitem', { name: 'Resolve in next release' }).click();
      await page.getByText('2 issues marked resolved.').waitFor();
    });
    expect(patches.map((request) => new URL(request.url()).pathname)).toEqual([
      `/api/projects/${project.id}/issues`,
    ]);
    expect(patches[0].postDataJSON()).toEqual({
      ids: [checkout.id, login.id],
      state: 'resolved',
      resolved_in: 'next_release',
    });
    expect(await issue('CheckoutError')).toMatchObject({ state: 'resolved', resolved_in: 'next_release' });
    expect(await issue('LoginFatal')).toMatchObject({ state: 'resolved', resolved_in: 'next_release' });

    await page.getByRole('button', { name: 'Resolved', exact: true }).click();
    // The unresolved list has three rows too: wait for the resolved one's own row.
    await row('SearchInfo').waitFor();
    await eventually(async () => (await rows().count()) === 3);
    await page.getByRole('checkbox', { name: 'Select all issues on this page' }).check();
    // All three are resolved: no Resolve, but Mute and Reopen.
    await bulkBar().getByRole('button', { name: 'Reopen', exact: true }).waitFor();
    await settledCount(bulkBar().getByRole('button', { name: 'Resolve', exact: true }), 0);
    await settledCount(bulkBar().getByRole('button', { name: 'Mute' }), 1);
    const info = await issue('SearchInfo');
    await page.getByRole('checkbox', { name: `Select ${info.short_id}` }).uncheck();
    const reopen = await patchesDuring(async () => {
      await bulkBar().getByRole('button', { name: 'Reopen', exact: true }).click();
      await page.getByText('2 issues marked open.').waitFor();
    });
    expect(reopen).toHaveLength(1);
    expect((await issue('CheckoutError')).state).toBe('open');
    expect((await issue('SearchInfo')).state).toBe('resolved');
  });

  it('snoozes an issue from its page until more events, and shows it in the header and the activity', async () => {
    const login = await issue('LoginFatal');
    await page.goto(`/issues/${login.id}`);
    await page.getByRole('heading', { name: /LoginFatal/ }).waitFor();
    await page.getByRole('button', { name: 'Mute' }).click();
    await page.getByRole('menuitem', { name: 'Until 100 more events' }).click();
    await page.getByText('Muted until 100 more events').first().waitFor();
    expect(await issue('LoginFatal')).toMatchObject({ state: 'muted', mute_until_count: 100 });
    await page.getByRole('region', { name: 'Activity' }).getByText('Muted until 100 more events').waitFor();
    // First and last release and the regressions are in the header.
    await page.locator('.issue-stats').getByText('in shop@1.0.0').first().waitFor();
    await page.locator('.issue-stats').getByText('Regressions').waitFor();
    await screenshot(page, 'triage-issue-snoozed');
    await page.getByRole('button', { name: 'Reopen', exact: true }).click();
    await page.getByRole('button', { name: 'Mute' }).waitFor();
    expect((await issue('LoginFatal')).state).toBe('open');
  });

  it('merges issues chosen in the list into the one with the most events', async () => {
    await page.goto(listUrl(project.id, `?query=${encodeURIComponent('Dupe')}`));
    await eventually(async () => (await rows().count()) === 2);
    const a = await issue('DupeA');
    const b = await issue('DupeB');
    await page.getByRole('checkbox', { name: `Select ${a.short_id}` }).check();
    await page.getByRole('checkbox', { name: `Select ${b.short_id}` }).check();
    await bulkBar().getByRole('button', { name: 'Merge', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Confirm merge' });
    await dialog.getByText(b.short_id).first().waitFor();
    await screenshot(page, 'triage-merge-confirm');
    await dialog.getByRole('button', { name: `Merge into ${b.short_id}` }).click();
    await page.getByText(`1 issue merged into ${b.short_id}.`).waitFor();
    await eventually(async () => (await rows().count()) === 1);
    expect((await issue('DupeB')).event_count).toBe(3);
    // The merged issue's page leads to the survivor.
    await page.goto(`/issues/${a.id}`);
    await page.waitForURL(new RegExp(`/issues/${b.id}\\?merged_from=${a.id}$`));
    await page.getByText(`Issue ${a.id} was merged into this one.`).waitFor();
  });

  it('moves between the events of an issue, shows exact times and raw JSON, and Back returns to the list', async () => {
    const list = listUrl(project.id, `?query=${encodeURIComponent('CheckoutError')}&sort=events`);
    await page.goto(list);
    await row('CheckoutError').getByRole('link').click();
    await page.getByRole('heading', { name: /CheckoutError/ }).waitFor();
    // Focus moved to the new page's heading.
    await eventually(async () => (await page.evaluate(() => document.activeElement?.tagName)) === 'H1');

    const events = (
      await t
        .api()
        .get(`/api/issues/${ids.get('CheckoutError')}/events`)
        .expect(200)
    ).body.data as {
      id: string;
      timestamp: string;
    }[];
    const nav = page.getByRole('navigation', { name: 'Other events of this issue' });
    // The newest is shown first: nothing newer.
    await settled(
      () => nav.getByRole('button', { name: 'Newer ›' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await settled(
      () => nav.getByRole('button', { name: 'Latest »' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await nav.getByRole('button', { name: '« Oldest' }).click();
    const oldest = events[events.length - 1];
    await page.waitForURL(new RegExp(`event=${oldest.id}`));
    await eventually(async () => nav.getByRole('button', { name: '‹ Older' }).isDisabled());
    // The exact time is on the page, not only in a tooltip.
    await page
      .locator('.exact-time')
      .filter({ hasText: new Date(oldest.timestamp).toISOString() })
      .waitFor();
    await nav.getByRole('button', { name: 'Newer ›' }).click();
    await page.waitForURL(new RegExp(`event=${events[events.length - 2].id}`));
    await nav.getByRole('button', { name: 'Latest »' }).click();
    await page.waitForURL(new RegExp(`event=${events[0].id}`));

    await page.getByRole('button', { name: 'Show JSON' }).click();
    await page
      .locator('#ev-raw-json')
      .filter({ hasText: `"id": "${events[0].id}"` })
      .waitFor();
    await page.getByRole('button', { name: 'Copy ID' }).click();
    await page.getByRole('button', { name: 'Copied!' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(events[0].id);
    await screenshot(page, 'triage-event-view');

    // Back (the link and the browser's) returns to the list as it was.
    await page.getByRole('link', { name: '← Back to issues' }).click();
    await page.waitForURL((url) => url.pathname + url.search === list);
    await settledValue(page.getByRole('combobox', { name: 'Search issues' }), 'CheckoutError');
    await row('CheckoutError').getByRole('link').click();
    await page.getByRole('heading', { name: /CheckoutError/ }).waitFor();
    await page
      .getByRole('navigation', { name: 'Other events of this issue' })
      .getByRole('button', { name: '« Oldest' })
      .click();
    await page.waitForURL(/event=/);
    await page.goBack();
    await page.waitForURL((url) => url.pathname + url.search === list);
  });

  it('jumps to a page, and acts on every issue matching a search in one request by query', async () => {
    const many = (await t.api().post('/api/projects').send({ name: 'Many Jobs' }).expect(201)).body as {
      id: number;
    };
    await db.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, event_count,
                           first_seen, last_seen)
       SELECT $1, 'job-' || n, n, 'JobError', 'job ' || n || ' failed', '', 'error', 'open', 1,
              now() - n * interval '1 minute', now() - n * interval '1 minute'
         FROM generate_series(1, 60) n`,
      [many.id],
    );
    await db.query('UPDATE projects SET next_issue_number = 60 WHERE id = $1', [many.id]);
    await page.goto(listUrl(many.id));
    await page.getByText('JobError: job 1 failed').waitFor();
    await page.getByText('60 issues', { exact: true }).waitFor();
    await page.getByRole('spinbutton', { name: /Page number/ }).fill('2');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.waitForURL(/page=2/);
    await page.getByText('JobError: job 60 failed').waitFor();
    await settledCount(rows(), 10);
    await settled(
      () => page.getByRole('button', { name: 'Last »' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await page.getByRole('button', { name: '« First' }).click();
    await page.getByText('JobError: job 1 failed').waitFor();

    await page.getByRole('checkbox', { name: 'Select all issues on this page' }).check();
    await bulkBar().getByRole('button', { name: 'Select all 60 matching this search' }).click();
    await bulkBar().getByText('All 60 matching selected').waitFor();
    const patches = await patchesDuring(async () => {
      await bulkBar().getByRole('button', { name: 'Mute' }).click();
      await page.getByRole('menuitem', { name: 'Mute forever' }).click();
      await page.getByText('60 issues marked muted.').waitFor();
    });
    expect(patches.map((request) => request.postDataJSON())).toEqual([
      { query: 'is:unresolved', state: 'muted' },
    ]);
    const [{ muted }] = await db.query(
      `SELECT count(*)::int AS muted FROM issues WHERE project_id = $1 AND state = 'muted'`,
      [many.id],
    );
    expect(muted).toBe(60);
  });

  it('updates the setup page on its own when the first event arrives', async () => {
    const fresh = (await t.api().post('/api/projects').send({ name: 'Fresh App' }).expect(201)).body as {
      id: number;
    };
    await page.goto(listUrl(fresh.id));
    await page.getByText('Waiting for the first event').waitFor();
    await send(fresh.id, 'FirstBoot', { environment: 'production' });
    // No click: the page asks again every few seconds while it waits.
    await row('FirstBoot').waitFor({ timeout: 20_000 });
    await settledCount(page.getByText('Waiting for the first event'), 0);
  });

  it('offers Retry on the not-found page and moves focus to the heading after a navigation', async () => {
    await page.goto('/no/such/page');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Back to projects' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await eventually(
      async () => (await page.evaluate(() => document.activeElement?.textContent)) === 'Projects',
    );
  });

  it('keeps every badge at a contrast of 4.5:1 or more', async () => {
    const kinds = [
      'open',
      'resolved',
      'muted',
      'regressed',
      'pending',
      'sent',
      'failed',
      'skipped',
      'neutral',
      'app',
    ].concat(['fatal', 'error', 'warning', 'info', 'debug'].map((level) => `level-${level}`));
    const colours = await page.evaluate((list) => {
      return list.map((kind) => {
        const badge = document.createElement('span');
        badge.className = `badge badge-${kind}`;
        badge.textContent = kind;
        document.body.appendChild(badge);
        const style = getComputedStyle(badge);
        const result = { kind, color: style.color, background: style.backgroundColor };
        badge.remove();
        return result;
      });
    }, kinds);
    const low = colours
      .map(({ kind, color, background }) => ({ kind, ratio: contrastRatio(color, background) }))
      .filter(({ ratio }) => ratio < 4.5);
    expect(low).toEqual([]);
  });

  it('lets a 390 px wide phone select all issues on the page', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    await mobile.goto(listUrl(project.id, '?query='));
    await mobile.getByText('CheckoutError').first().waitFor();
    await mobile.getByRole('checkbox', { name: 'Select all on this page' }).click();
    await mobile.getByRole('region', { name: 'Bulk actions' }).getByText('5 selected').waitFor();
    expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(mobile, 'triage-mobile-list');
    await phone.close();
  });
});
