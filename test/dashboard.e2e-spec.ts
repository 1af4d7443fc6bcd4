/**
 * The web dashboard in a real headless Chromium against the real server (same factory as production,
 * SERVE_DASHBOARD on). Needs /usr/bin/chromium (.ci/run installs it) and the built dashboard, which
 * is rebuilt here when dist/dashboard is missing or older than dashboard/ (about a second).
 */
import { randomUUID } from 'node:crypto';
import { NodeClient, defaultStackParser, makeNodeTransport } from '@sentry/node';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ErrorEvent } from '../src/events/event.entity';
import { EventPartitions } from '../src/events/event-partitions';
import { Issue, IssueState } from '../src/issues/issue.entity';
import { Project } from '../src/projects/project.entity';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  launchBrowser,
  PageProblems,
  screenshot,
  watchedContext,
  openPhonePage,
  BROWSER_WAIT_MS,
  settled,
  settledCount,
  settledValue,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

const EMAIL = 'admin@example.com';
const PASSWORD = 'secret';

const APP_FILE = '/srv/checkout/src/orders/service.js';

/** A full Node SDK-style event: chained frames with context lines, breadcrumbs, tags, contexts, request. */
function realisticPayload(eventId: string, timestamp: Date): Record<string, unknown> {
  const library = (filename: string, fn: string, lineno: number) => ({
    filename,
    abs_path: `/srv/checkout/${filename}`,
    function: fn,
    module: filename.replace(/\//g, '.'),
    lineno,
    colno: 5,
    in_app: false,
    pre_context: ['  try {', '    const result = fn(req, res, next);'],
    context_line: '    return result;',
    post_context: ['  } catch (err) {', '    next(err);'],
  });
  return {
    event_id: eventId.replace(/-/g, ''),
    timestamp: timestamp.toISOString(),
    level: 'error',
    platform: 'node',
    environment: 'production',
    release: 'checkout@2.4.1',
    server_name: 'web-3',
    transaction: 'POST /api/orders',
    culprit: 'loadCustomer(src/orders/service)',
    title: "TypeError: Cannot read properties of undefined (reading 'id')",
    user: { id: '42', email: 'jane@example.com', username: 'jane', ip_address: '203.0.113.9' },
    exception: {
      values: [
        {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'id')",
          mechanism: { type: 'onuncaughtexception', handled: false },
          stacktrace: {
            frames: [
              {
                filename: 'node:internal/process/task_queues',
                function: 'process.processTicksAndRejections',
                lineno: 95,
                colno: 5,
                in_app: false,
              },
              library('node_modules/express/lib/router/layer.js', 'Layer.handle [as handle_request]', 95),
              library('node_modules/express/lib/router/route.js', 'next', 149),
              {
                filename: 'src/orders/routes.js',
                abs_path: '/srv/checkout/src/orders/routes.js',
                function: 'createOrder',
                lineno: 27,
                colno: 22,
                in_app: true,
                pre_context: [
                  "router.post('/orders', async (req, res) => {",
                  '  const cart = await carts.find(req.session.cartId);',
                ],
                context_line: '  const order = await orders.create(cart, req.user);',
                post_context: ['  res.status(201).json(order);', '});'],
              },
              {
                filename: 'src/orders/service.js',
                abs_path: APP_FILE,
                function: 'loadCustomer',
                lineno: 58,
                colno: 31,
                in_app: true,
                pre_context: [
                  'async function loadCustomer(order) {',
                  '  // the guest checkout has no customer record',
                  '  const account = order.account;',
                ],
                context_line: '  const customerId = account.customer.id;',
                post_context: ['  return customers.get(customerId);', '}', ''],
                vars: { order: { id: 'ord_981', total: 129.5 }, account: {} },
              },
            ],
          },
        },
      ],
    },
    breadcrumbs: {
      values: [
        {
          timestamp: timestamp.getTime() / 1000 - 4.2,
          type: 'http',
          category: 'http',
          level: 'info',
          data: { method: 'GET', url: 'https://api.example.com/carts/77', status_code: 200 },
        },
        {
          timestamp: timestamp.getTime() / 1000 - 2.1,
          category: 'console',
          level: 'warning',
          message: 'Slow query: carts.find took 812 ms',
        },
        {
          timestamp: timestamp.getTime() / 1000 - 0.4,
          category: 'payment',
          level: 'error',
          message: 'Card authorisation declined, retrying once',
        },
      ],
    },
    tags: { region: 'eu-west-1', browser: 'Chrome 131', 'customer.tier': 'gold' },
    contexts: {
      os: { name: 'Linux', version: '6.8.0', kernel_version: '6.8.0-49-generic' },
      runtime: { name: 'node', version: 'v20.18.1' },
      device: { arch: 'x64', memory_size: 8_589_934_592, cpu_description: 'AMD EPYC 7B13' },
      trace: { trace_id: '4f8e6a2c9d1b4e7f8a3c5d2e1f0a9b8c', span_id: 'a1b2c3d4e5f60718' },
    },
    request: {
      method: 'POST',
      url: 'https://shop.example.com/api/orders',
      query_string: 'coupon=SPRING&ref=newsletter',
      headers: {
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0',
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      data: { cartId: 77, shipping: 'express' },
    },
    sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
    extra: { attempt: 2 },
    fingerprint: ['{{ default }}'],
  };
}

describe('dashboard (browser)', () => {
  let t: TestApp;
  let db: DataSource;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  let projectId: number;
  let mainIssueId: number;

  /** Inserts an issue (and `events` events, newest at `lastSeen`) as the digest would. */
  async function insertIssue(
    pid: number,
    fields: {
      type: string;
      message: string;
      culprit?: string;
      state?: IssueState;
      lastSeen?: Date;
      events?: number;
      spreadHours?: number;
    },
  ): Promise<Issue> {
    const issueId = await db.transaction(async (manager) => {
      await manager.increment(Project, { id: pid }, 'nextIssueNumber', 1);
      const { nextIssueNumber } = await manager.findOneByOrFail(Project, { id: pid });
      const lastSeen = fields.lastSeen ?? new Date();
      const count = fields.events ?? 1;
      const spreadMs = (fields.spreadHours ?? 0) * 3_600_000;
      const saved = await manager.save(
        manager.create(Issue, {
          projectId: pid,
          groupingKey: randomUUID(),
          number: nextIssueNumber,
          type: fields.type,
          message: fields.message,
          culprit: fields.culprit ?? '',
          level: 'error',
          state: fields.state ?? 'open',
          eventCount: count,
          firstSeen: new Date(lastSeen.getTime() - spreadMs),
          lastSeen,
        }),
      );
      const events = Array.from({ length: count }, (_, index) => {
        const id = randomUUID();
        const timestamp = new Date(lastSeen.getTime() - (count === 1 ? 0 : (spreadMs * index) / (count - 1)));
        return manager.create(ErrorEvent, {
          projectId: pid,
          id,
          issueId: saved.id,
          timestamp,
          receivedAt: timestamp,
          environment: 'production',
          release: index % 3 === 0 ? 'checkout@2.4.1' : 'checkout@2.4.0',
          level: 'error',
          user: { id: '42', email: 'jane@example.com' },
          payload: {
            ...realisticPayload(id, timestamp),
            culprit: fields.culprit,
            title: `${fields.type}: ${fields.message}`,
          },
        });
      });
      if (events.length) await manager.save(events, { chunk: 100 });
      return saved.id;
    });
    return db.getRepository(Issue).findOneByOrFail({ id: issueId });
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    t = await startTestApp({ CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}`, SERVE_DASHBOARD: 'true' });
    db = t.app.get(DataSource);
    // The projects page's empty state is part of what this file checks, and the e2e files share one
    // database (run one after another): start from no projects whatever ran before.
    await db.query('DELETE FROM projects');
    // insertIssue writes events straight into the day-partitioned table: their days must exist.
    await t.app
      .get(EventPartitions)
      .ensureDays(new Date(Date.now() - 30 * 86_400_000), new Date(Date.now() + 86_400_000));
    browser = await launchBrowser();
    context = await watchedContext(browser, { baseURL: t.url }, problems);
    page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    expect(problems.errors).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
  });

  it('serves the built dashboard with SPA fallback, leaving API paths alone', async () => {
    const index = await t.http().get('/').expect(200);
    expect(index.headers['content-type']).toMatch(/text\/html/);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toMatch(/script-src 'self';.*frame-ancestors 'none'/);
    expect(index.headers['x-frame-options']).toBe('DENY');
    expect(index.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN, everything local
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index.text)?.[1];
    expect(asset).toBeDefined();
    const script = await t.http().get(asset!).expect(200);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    await t
      .http()
      .get('/projects/1/issues')
      .expect(200)
      .expect('content-type', /text\/html/);
    await t
      .http()
      .get('/settings/tokens')
      .expect(200)
      .expect('content-type', /text\/html/);
    await t.http().get('/api/nope').expect(404).expect('content-type', /json/);
    await t.http().get('/api/projects').expect(401, { error: 'missing bearer token' });
    await t.http().get('/auth/me').expect(401);
    await t.http().get('/health').expect(200).expect('content-type', /json/);
    await t.http().get('/assets/missing-123.js').expect(404);
  });

  it('sends visitors to the sign-in page and rejects a wrong password with the API message', async () => {
    await page.goto('/settings/tokens');
    await page.waitForURL(/\/login\?next=%2Fsettings%2Ftokens$/);
    await page.getByRole('heading', { name: 'Sign in to Error Tracker' }).waitFor();
    await screenshot(page, 'sign-in');

    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid e-mail or password' }).waitFor();
  });

  it('signs in and returns to the page first asked for', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/settings\/tokens$/);
    await page.getByText(EMAIL).waitFor();
  });

  it('runs under its Content-Security-Policy, which stops injected inline script', async () => {
    const injected = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true';
      document.body.append(script);
      return (window as unknown as { __injected?: boolean }).__injected ?? false;
    });
    expect(injected).toBe(false);
    await eventually(async () => problems.cspViolations.length > 0, 5_000);
    expect(problems.cspViolations.splice(0)).toEqual(['CSP violation: script-src-elem blocked inline']);
  });

  it('creates a project through the UI and shows its DSN with SDK setup', async () => {
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.waitForURL(/\/$/);
    await page.getByText('No projects yet').waitFor();
    await page.getByLabel('New project name').fill('Checkout Service');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(/\/projects\/\d+\/issues$/);
    projectId = Number(/\/projects\/(\d+)\//.exec(page.url())![1]);

    const project = (await t.api().get(`/api/projects/${projectId}`).expect(200)).body as {
      dsn: string;
      slug: string;
    };
    await page.getByText('No issues yet — send your first error with the DSN above.').waitFor();
    await settledValue(page.getByLabel('DSN'), project.dsn);
    await page.getByRole('tab', { name: /@sentry\/node/ }).waitFor();
    const snippet = await page.locator('.code-block code').textContent();
    expect(snippet).toContain(`dsn: "${project.dsn}",`);
    // As the README's quick start: the release and the environment, for releases and their health.
    expect(snippet).toContain(`release: "${project.slug}@1.0.0",`);
    expect(snippet).toContain('environment: "production",');
    await page.getByRole('tab', { name: /@sentry\/browser/ }).click();
    await settled(
      () => page.locator('.code-block code').textContent(),
      (value) => expect(value).toContain('import * as Sentry from "@sentry/browser"'),
    );
    await page.getByRole('button', { name: 'Copy DSN' }).click();
    await page.getByRole('button', { name: 'Copied!' }).waitFor();
  });

  it('lists issues with state, counts and relative times', async () => {
    const now = Date.now();
    const main = await insertIssue(projectId, {
      type: 'TypeError',
      message: "Cannot read properties of undefined (reading 'id')",
      culprit: 'loadCustomer(src/orders/service)',
      lastSeen: new Date(now - 3 * 60_000),
      events: 24,
      spreadHours: 24 * 9,
    });
    mainIssueId = main.id;
    await insertIssue(projectId, {
      type: 'RangeError',
      message: 'Invalid time value',
      culprit: 'formatDate(src/util/dates)',
      lastSeen: new Date(now - 2 * 3_600_000),
      events: 3,
      spreadHours: 5,
    });
    await insertIssue(projectId, {
      type: 'PaymentDeclined',
      message: 'card_declined: insufficient funds',
      culprit: 'charge(src/payments/stripe)',
      lastSeen: new Date(now - 26 * 3_600_000),
      events: 7,
      spreadHours: 60,
      state: 'muted',
    });
    await insertIssue(projectId, {
      type: 'Error',
      message: 'ECONNRESET while calling inventory',
      culprit: 'reserve(src/inventory/client)',
      lastSeen: new Date(now - 4 * 86_400_000),
      events: 2,
      spreadHours: 3,
      state: 'resolved',
    });

    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = page.getByRole('row').filter({ hasText: main.type });
    await row.waitFor();
    const slug = (await t.api().get(`/api/projects/${projectId}`)).body.slug as string;
    await row.getByText(`${slug.toUpperCase()}-${main.number}`).waitFor();
    await row.getByText('3 minutes ago').waitFor();
    await settled(
      () => row.locator('time').last().getAttribute('title'),
      (value) => expect(value).toContain(main.lastSeen.toISOString()),
    );
    await row.getByText('9 days ago').waitFor();
    await settled(
      () => row.locator('.col-num').textContent(),
      (value) => expect(value).toBe('24'),
    );
    // The default view is the unresolved issues: the muted and the resolved one are left out.
    await settledCount(page.locator('tbody tr'), 2);
    await page.getByText('2 issues', { exact: true }).waitFor();
    await screenshot(page, 'issues-list');

    await page.getByRole('button', { name: 'Muted', exact: true }).click();
    await page.waitForURL(/query=is%3Amuted/);
    await eventually(async () => (await page.locator('tbody tr').count()) === 1, 20_000);
    await page.getByRole('row').filter({ hasText: 'PaymentDeclined' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'PaymentDeclined' }).locator('.badge-muted').waitFor();
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await eventually(async () => (await page.locator('tbody tr').count()) === 4, 20_000);
  });

  it('mutes and reopens several issues at once', async () => {
    const rows = page.locator('tbody tr');
    await page.getByRole('checkbox', { name: /^Select .*-2$/ }).check();
    await page.getByRole('checkbox', { name: /^Select .*-4$/ }).check();
    await page.getByRole('region', { name: 'Bulk actions' }).getByRole('button', { name: 'Mute' }).click();
    await page.getByRole('menuitem', { name: 'Mute forever' }).click();
    await page.getByText('2 issues marked muted.').waitFor();
    const states = async () => {
      const list = (await t.api().get(`/api/projects/${projectId}/issues`).expect(200)).body.data as {
        short_id: string;
        state: string;
      }[];
      return Object.fromEntries(list.map((issue) => [issue.short_id.split('-').pop(), issue.state]));
    };
    expect(await states()).toEqual({ '1': 'open', '2': 'muted', '3': 'muted', '4': 'muted' });
    await page.getByRole('checkbox', { name: 'Select all issues on this page' }).check();
    await settledCount(rows.locator('input[type=checkbox]:checked'), 4);
    await page.getByRole('checkbox', { name: /^Select .*-1$/ }).uncheck();
    await page
      .getByRole('region', { name: 'Bulk actions' })
      .getByRole('button', { name: 'Reopen', exact: true })
      .click();
    await page.getByText('3 issues marked open.').waitFor();
    expect(await states()).toEqual({ '1': 'open', '2': 'open', '3': 'open', '4': 'open' });
  });

  it('pages through more issues than fit on a page', async () => {
    const other = (await t.api().post('/api/projects').send({ name: 'Batch Jobs' }).expect(201)).body as {
      id: number;
    };
    const base = Date.now() - 86_400_000;
    for (let i = 0; i < 57; i++) {
      await insertIssue(other.id, {
        type: 'JobError',
        message: `job ${i + 1} failed`,
        lastSeen: new Date(base + i * 60_000),
      });
    }
    await page.goto(`/projects/${other.id}/issues`);
    await page.getByText('JobError: job 57 failed').waitFor();
    await settledCount(page.locator('tbody tr'), 50);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.getByText('JobError: job 7 failed').waitFor();
    await settledCount(page.locator('tbody tr'), 7);
    await settled(
      () => page.getByRole('button', { name: 'Next →' }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.getByText('JobError: job 57 failed').waitFor();
    await settledCount(page.locator('tbody tr'), 50);
  });

  it('sends a real event with @sentry/node to the DSN', async () => {
    const project = (await t.api().get(`/api/projects/${projectId}`).expect(200)).body as { dsn: string };
    const dsn = project.dsn.replace(/\/\/([^@]+)@[^/]+/, `//$1@127.0.0.1:${t.port}`);
    const client = new NodeClient({
      dsn,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
      environment: 'e2e',
      release: 'checkout@9.9.9',
    });
    const statuses: (number | undefined)[] = [];
    client.on('afterSendEvent', (_event, response) => statuses.push(response?.statusCode));
    client.init();
    client.captureException(new SyntaxError('Unexpected token in checkout config (from the real SDK)'));
    expect(await client.flush(10_000)).toBe(true);
    expect(statuses).toEqual([200]); // accepted by ingest; the digest then groups it into an issue
    const issue = await eventually(async () => {
      const list = (await t.api().get(`/api/projects/${projectId}/issues`).expect(200)).body.data as {
        id: number;
        type: string;
      }[];
      return list.find((candidate) => candidate.type === 'SyntaxError');
    }, 20_000);
    await page.goto(`/projects/${projectId}/issues`);
    await page.getByText('Unexpected token in checkout config (from the real SDK)').click();
    await page.waitForURL(new RegExp(`/issues/${issue.id}`));
    await page.getByRole('heading', { name: 'Exception' }).waitFor();
    await page.getByText('e2e', { exact: true }).first().waitFor();
    await page.getByText('dashboard.e2e-spec.ts').first().waitFor();
  });

  it('shows an issue with its stack trace, breadcrumbs, tags, request and contexts', async () => {
    await page.goto(`/projects/${projectId}/issues`);
    await page.getByRole('link', { name: /TypeError/ }).click();
    await page.waitForURL(new RegExp(`/issues/${mainIssueId}$`));
    await page.getByRole('heading', { name: /TypeError/ }).waitFor();
    await page.getByText('loadCustomer(src/orders/service)').first().waitFor();

    // The crashing in-app frame is open with its numbered context lines; library frames are folded.
    const current = page.locator('.context tr.current');
    await current.first().waitFor();
    await settled(
      () => current.first().textContent(),
      (value) => expect(value).toBe('58  const customerId = account.customer.id;'),
    );
    await settled(
      () => page.locator('.context tr').first().textContent(),
      (value) => expect(value).toBe('55async function loadCustomer(order) {'),
    );
    await page.getByText('Most recent call first').first().waitFor();
    const toggle = page.getByRole('button', { name: 'Show 3 library frames' });
    await toggle.waitFor();
    await settledCount(page.getByText('node_modules/express/lib/router/route.js'), 0);
    await toggle.click();
    await page.getByText('node_modules/express/lib/router/route.js').waitFor();
    await page.getByRole('button', { name: /src\/orders\/routes\.js:27:22 in createOrder/ }).click();
    await page.getByText('const order = await orders.create(cart, req.user);').waitFor();

    await page.getByText('Card authorisation declined, retrying once').waitFor();
    await page.getByText('Slow query: carts.find took 812 ms').waitFor();
    await page.getByRole('row', { name: 'customer.tier gold' }).waitFor();
    await page.getByText('https://shop.example.com/api/orders').waitFor();
    await page.getByRole('row', { name: 'coupon SPRING' }).waitFor();
    await page.getByRole('row', { name: 'kernel_version 6.8.0-49-generic' }).waitFor();
    await page.getByRole('row', { name: 'email jane@example.com' }).first().waitFor();
    await page.getByText('sentry.javascript.node 10.78.0').waitFor();
    await page.locator('.event-item').nth(23).waitFor();
    // The chart reads the rollups, which events inserted straight into the table do not update (the
    // browser tests of the chart send theirs through ingest: test/dashboard-stats.e2e-spec.ts).
    await page.getByRole('img', { name: /events? in the last 14 days, per UTC day/ }).waitFor();
    await screenshot(page, 'issue-detail');

    // Another event of the list becomes the shown one.
    await page.locator('.event-item').nth(5).click();
    await page.waitForURL(/\?event=/);
    await page.locator('.context tr.current').first().waitFor();
  });

  it('resolves the issue from its page', async () => {
    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await page.getByRole('button', { name: 'Reopen', exact: true }).waitFor();
    await page.locator('.issue-header .badge-resolved').waitFor();
    expect((await t.api().get(`/api/issues/${mainIssueId}`).expect(200)).body.state).toBe('resolved');
  });

  it('creates an API token, shows it once, then only masked', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/settings\/tokens$/);
    await page.getByLabel('Description').fill('CI deploy script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const field = page.getByLabel('New API token');
    await field.waitFor();
    const token = await field.inputValue();
    expect(token).toMatch(/^[0-9a-f]{40}$/);
    await page.getByText('It is shown only once').waitFor();
    await t.http().get('/api/projects').set('Authorization', `Bearer ${token}`).expect(200);
    await screenshot(page, 'settings-token-created');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'CI deploy script' });
    await row.waitFor();
    await settled(
      () => row.locator('.token-masked').textContent(),
      (value) => expect(value).toBe(`${token.slice(0, 8)}...****`),
    );
    expect(await page.content()).not.toContain(token);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete token CI deploy script' }).click();
    await row.waitFor({ state: 'detached' });
    await t.http().get('/api/projects').set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('creates a webhook channel, sends a test, toggles it and uses it in an alert rule', async () => {
    await page.getByRole('link', { name: 'Notification channels' }).click();
    await page.waitForURL(/\/settings\/channels$/);
    await page.getByRole('button', { name: 'New channel' }).click();
    await page.getByLabel('Name').fill('Ops webhook');
    await page.getByLabel('Type').selectOption('webhook');
    await page.getByLabel('URL').fill('https://hooks.example.com/errors');
    await page.getByLabel('Signing secret (optional)').fill('s3cret');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const card = page.locator('.channel-card').filter({ hasText: 'Ops webhook' });
    await card.waitFor();
    await card.getByText('https://hooks.example.com/errors').waitFor();
    const channels = (await t.api().get('/api/alert-channels').expect(200)).body as {
      id: number;
      name: string;
      config: { url: string };
    }[];
    expect(channels.find((channel) => channel.name === 'Ops webhook')?.config.url).toBe(
      'https://hooks.example.com/errors',
    );

    await card.getByRole('button', { name: 'Send test' }).click();
    await card
      .getByRole('status')
      .filter({ hasText: /^Test (sent|failed): .+/ })
      .waitFor();

    await card.getByRole('checkbox', { name: 'Enable Ops webhook' }).uncheck();
    await card.getByText('disabled', { exact: true }).waitFor();
    await screenshot(page, 'settings-channels');

    await page.goto(`/projects/${projectId}/alerts`);
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Name').fill('Page on-call for new issues');
    await page.getByLabel('When').selectOption('new_issue');
    await page.getByRole('checkbox', { name: /Ops webhook/ }).check();
    await page.getByLabel('Cooldown (minutes)').fill('15');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const rule = page.locator('.rule-card').filter({ hasText: 'Page on-call for new issues' });
    await rule.getByText('Ops webhook').waitFor();
    await rule.getByText('cooldown 15 min').waitFor();
    const saved = (await t.api().get(`/api/projects/${projectId}/alert-rules`).expect(200)).body as {
      name: string;
      cooldown_minutes: number;
      channel_ids: number[];
    }[];
    expect(saved).toEqual([
      expect.objectContaining({
        name: 'Page on-call for new issues',
        cooldown_minutes: 15,
        channel_ids: [expect.any(Number)],
      }),
    ]);
    await page.getByRole('heading', { name: 'Alert history' }).waitFor();
    await screenshot(page, 'project-alerts');
  });

  it("shows each project's open issues and events of the last 24 hours on its card", async () => {
    await settleRollups(t.app);
    const listed = (await t.api().get('/api/projects').expect(200)).body.data as {
      id: number;
      open_issues: number;
      events_24h: number;
    }[];
    const counts = listed.find((project) => project.id === projectId)!;
    const wide = await context.newPage();
    await wide.setViewportSize({ width: 1366, height: 860 });
    await wide.goto('/');
    const card = wide.locator('.project-card').filter({ hasText: 'Checkout Service' });
    const count = (label: string) =>
      card.locator('.project-counts div').filter({ hasText: label }).locator('dd');
    await count('Open issues')
      .getByRole('link', { name: counts.open_issues.toLocaleString('en-US') })
      .waitFor();
    await settled(
      () => count('Events, last 24 hours').textContent(),
      (value) => expect(value).toBe(counts.events_24h.toLocaleString('en-US')),
    );
    await count('Open issues').getByRole('link').click();
    await wide.waitForURL(new RegExp(`/projects/${projectId}/issues$`));
    await wide.goBack();
    await card.waitFor();
    await screenshot(wide, 'projects');
    await wide.close();
  });

  it('stays usable on a 390px wide phone screen', async () => {
    const { phone, mobile } = await openPhonePage(browser, context, t.url, problems);
    // Elements sticking out to the right of the viewport (empty when nothing scrolls sideways).
    const overflow = () =>
      mobile.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element) => !element.closest('.table-wrap, .code-block, .context, .tabs, pre'))
          .map(
            (element) =>
              `${element.tagName.toLowerCase()}.${element.className} ${Math.round(element.getBoundingClientRect().right)}`,
          ),
      );
    for (const [path, name, ready] of [
      ['/', 'mobile-projects', 'Checkout Service'],
      [`/projects/${projectId}/issues`, 'mobile-issues-list', 'RangeError'],
      [`/issues/${mainIssueId}`, 'mobile-issue-detail', 'Card authorisation declined, retrying once'],
      ['/settings/tokens', 'mobile-settings', 'API tokens authenticate'],
    ] as const) {
      await mobile.goto(path);
      await mobile.getByText(ready).first().waitFor();
      expect(await overflow()).toEqual([]);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(mobile, name);
    }
    await phone.close();
  });

  it('signs out, after which the API answers 401 and pages lead to sign-in', async () => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`/issues/${mainIssueId}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByRole('heading', { name: 'Sign in to Error Tracker' }).waitFor();
  });
});
