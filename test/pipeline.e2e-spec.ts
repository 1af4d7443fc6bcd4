/**
 * The whole pipeline, end to end: the real @sentry/node 10 SDK (and @sentry/browser 10 through its
 * fetch transport) → the HTTP ingest endpoint → Redis → the digest worker → PostgreSQL, asserted
 * through the management API only. test/ingest.e2e-spec.ts and test/digest.e2e-spec.ts cover each
 * half on its own; this file checks that they fit together.
 */
import * as Sentry from '@sentry/node';
import {
  BrowserClient,
  defaultStackParser as browserStackParser,
  makeFetchTransport,
  Scope,
} from '@sentry/browser';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { MAX_EVENTS_PER_JOB } from '../src/digest/digest-job';
import { startTestApp, TestApp } from './helpers/app';
import { backlogDrained, eventually, ServedEvent, storedEvent } from './helpers/queues';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';
import { freePort } from './helpers/ports';

const ROOT = join(__dirname, '..');

interface Project {
  id: number;
  slug: string;
  client_key: string;
}

interface Issue {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  culprit: string;
  state: string;
  event_count: number;
  first_seen: string;
  last_seen: string;
  regression_count: number;
}

const hexOf = (uuid: string) => uuid.replace(/-/g, '');
const dashed = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function createProject(t: TestApp, name: string): Promise<Project> {
  return (await t.api().post('/api/projects').send({ name }).expect(201)).body as Project;
}

function dsnOf(t: Pick<TestApp, 'port'>, project: Project): string {
  return `http://${hexOf(project.client_key)}@127.0.0.1:${t.port}/${project.id}`;
}

// --- throwers: named functions whose names must reach the issue's culprit ------------------------

function chargeCustomer(orderId: number, Kind: ErrorConstructor = TypeError): never {
  throw new Kind(`order ${orderId} has no customer`);
}

function refundCustomer(orderId: number): never {
  throw new TypeError(`order ${orderId} has no customer`);
}

function reopenTicket(): never {
  throw new Error('ticket store unavailable');
}

function syncTenant(): never {
  throw new Error('tenant sync failed');
}

/**
 * `require` without any cache: Jest's module registry and file cache would hand back the first
 * version of a rewritten file (and jest.resetModules() would break the app's own lazy requires).
 * The wrapper stays on the first line, as in Node's CommonJS loader, so line numbers are the file's.
 */
function loadFresh(file: string): unknown {
  const module = { exports: {} as unknown };
  const wrapper = runInThisContext(`(function (module, exports) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
  }) as (module: { exports: unknown }, exports: unknown) => void;
  wrapper(module, module.exports);
  return module.exports;
}

/** Every capture goes through the same in-app frames, so only the thrower decides the group. */
function captureFrom(thrower: () => void, scope?: (scope: Sentry.Scope) => void): string {
  try {
    thrower();
  } catch (error) {
    if (!scope) return Sentry.captureException(error);
    let id = '';
    Sentry.withScope((s) => {
      scope(s);
      id = Sentry.captureException(error);
    });
    return id;
  }
  throw new Error('thrower did not throw');
}

describe('pipeline: @sentry/node → HTTP ingest → digest → API', () => {
  let t: TestApp;
  let project: Project;
  /** HTTP status of every envelope the SDK sent, in order. */
  const statuses: (number | undefined)[] = [];
  const tempDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-'));

  beforeAll(async () => {
    t = await startTestApp();
    project = await createProject(t, `Pipeline ${randomUUID().slice(0, 6)}`);
    Sentry.init({
      dsn: dsnOf(t, project),
      release: 'checkout@4.5.6',
      environment: 'pipeline-e2e',
      tracesSampleRate: 0,
      // No auto-instrumentation (http, console …) and no Dedupe (it would drop the repeats below).
      defaultIntegrations: false,
      integrations: [
        Sentry.contextLinesIntegration(),
        Sentry.nodeContextIntegration(),
        Sentry.linkedErrorsIntegration(),
      ],
    });
    Sentry.getClient()!.on('afterSendEvent', (_event, response) => statuses.push(response?.statusCode));
  });

  afterAll(async () => {
    await Sentry.close(2_000);
    await t.close();
    rmSync(tempDir, { recursive: true, force: true });
  });

  /** Flushes the SDK, checks that ingest accepted everything, and waits for the digest to store the event. */
  async function stored(eventId: string): Promise<ServedEvent> {
    expect(await Sentry.flush(5_000)).toBe(true);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    return storedEvent(t, dashed(eventId));
  }

  async function issue(id: number): Promise<Issue> {
    return (await t.api().get(`/api/issues/${id}`).expect(200)).body as Issue;
  }

  async function eventsOf(issueId: number): Promise<Record<string, unknown>[]> {
    return (await t.api().get(`/api/issues/${issueId}/events`).expect(200)).body.data;
  }

  describe('exceptions', () => {
    let firstIssue: Issue;
    let firstEventId: string;

    it('turns a captured TypeError into an issue and a full event with frames, context lines, breadcrumbs, tags, contexts and user', async () => {
      Sentry.setUser({ id: 'user-42', email: 'jane@example.com' });
      Sentry.setTag('checkout.step', 'payment');
      Sentry.setContext('order', { id: 123, total_cents: 4_599 });
      Sentry.addBreadcrumb({ category: 'cart', message: 'added 3 items', level: 'info', data: { items: 3 } });
      const before = Date.now();
      firstEventId = captureFrom(() => chargeCustomer(123));
      expect(firstEventId).toMatch(/^[0-9a-f]{32}$/);
      const event = await stored(firstEventId);
      expect(statuses).toEqual([200]);

      firstIssue = await issue(event.issue_id);
      const frames = (event.exception as { values: { stacktrace: { frames: Record<string, unknown>[] } }[] })
        .values[0].stacktrace.frames;
      const top = frames[frames.length - 1];
      expect(firstIssue).toMatchObject({
        id: event.issue_id,
        project_id: project.id,
        short_id: `${project.slug.toUpperCase()}-1`,
        type: 'TypeError',
        message: 'order 123 has no customer',
        culprit: `${top.module as string} in chargeCustomer`,
        state: 'open',
        event_count: 1,
        regression_count: 0,
      });
      expect(firstIssue.culprit).toBe('pipeline.e2e-spec.ts in chargeCustomer');
      expect(firstIssue.first_seen).toMatch(ISO);
      expect(firstIssue.last_seen).toBe(firstIssue.first_seen);
      expect(Date.parse(firstIssue.first_seen)).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(firstIssue.first_seen)).toBeLessThanOrEqual(Date.now());

      const list = await eventsOf(firstIssue.id);
      expect(list).toEqual([
        expect.objectContaining({
          id: dashed(firstEventId),
          issue_id: firstIssue.id,
          timestamp: firstIssue.first_seen,
          environment: 'pipeline-e2e',
          release: 'checkout@4.5.6',
          user: { id: 'user-42', email: 'jane@example.com' },
        }),
      ]);

      // The full event: the innermost frame is the thrower, with the source lines ContextLines read from this file.
      expect(top).toMatchObject({
        filename: __filename,
        function: 'chargeCustomer',
        in_app: true,
        context_line: '  throw new Kind(`order ${orderId} has no customer`);',
        pre_context: expect.arrayContaining([
          'function chargeCustomer(orderId: number, Kind: ErrorConstructor = TypeError): never {',
        ]),
        post_context: expect.arrayContaining(['function refundCustomer(orderId: number): never {']),
      });
      const source = readFileSync(__filename, 'utf8').split('\n');
      expect(source[(top.lineno as number) - 1]).toBe(top.context_line);
      // thrower ← the arrow handed to captureFrom ← captureFrom ← the test.
      expect(frames[frames.length - 2]).toMatchObject({ function: '?', in_app: true, filename: __filename });
      expect(frames[frames.length - 3]).toMatchObject({
        function: 'captureFrom',
        in_app: true,
        filename: __filename,
      });
      expect(
        frames.filter((frame) => frame.in_app === true).every((frame) => frame.filename === __filename),
      ).toBe(true);
      expect(
        frames.some((frame) => frame.in_app === false && /node_modules/.test(String(frame.filename))),
      ).toBe(true);

      expect(event).toMatchObject({
        id: dashed(firstEventId),
        project_id: project.id,
        issue_id: firstIssue.id,
        level: 'error',
        platform: 'node',
        environment: 'pipeline-e2e',
        release: 'checkout@4.5.6',
        user: { id: 'user-42', email: 'jane@example.com' },
        tags: { 'checkout.step': 'payment' },
        title: 'TypeError: order 123 has no customer',
        sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
        breadcrumbs: {
          values: [
            expect.objectContaining({
              category: 'cart',
              message: 'added 3 items',
              level: 'info',
              data: { items: 3 },
            }),
          ],
        },
      });
      expect((event.exception as { values: unknown[] }).values).toEqual([
        expect.objectContaining({ type: 'TypeError', value: 'order 123 has no customer' }),
      ]);
      expect(event.contexts).toMatchObject({
        order: { id: 123, total_cents: 4599 },
        runtime: { name: 'node', version: process.version },
        os: expect.objectContaining({ name: expect.any(String) }),
      });
    });

    it('counts the same error from the same code into the same issue', async () => {
      const eventId = captureFrom(() => chargeCustomer(123));
      const event = await stored(eventId);
      expect(event.issue_id).toBe(firstIssue.id);
      const again = await issue(firstIssue.id);
      expect(again).toMatchObject({ event_count: 2, first_seen: firstIssue.first_seen, state: 'open' });
      expect(Date.parse(again.last_seen)).toBeGreaterThan(Date.parse(firstIssue.last_seen));
      expect((await eventsOf(firstIssue.id)).map((item) => item.id).sort()).toEqual(
        [dashed(firstEventId), dashed(eventId)].sort(),
      );
    });

    it('keeps one issue when the thrower moves down its file (line numbers are not part of the group)', async () => {
      const file = join(tempDir, 'ledger.js');
      const source =
        "module.exports = function reconcileLedger() {\n  throw new RangeError('ledger out of balance');\n};\n";
      const throwFrom = (blankLines: number): { eventId: string; lineno: number } => {
        writeFileSync(file, '\n'.repeat(blankLines) + source);
        const reconcileLedger = loadFresh(file) as () => void;
        const eventId = captureFrom(() => reconcileLedger());
        return { eventId, lineno: blankLines + 2 };
      };

      const first = throwFrom(0);
      const firstEvent = await stored(first.eventId);
      const second = throwFrom(7);
      const secondEvent = await stored(second.eventId);

      const topFrame = (event: Record<string, unknown>) => {
        const frames = (
          event.exception as { values: { stacktrace: { frames: Record<string, unknown>[] } }[] }
        ).values[0].stacktrace.frames;
        return frames[frames.length - 1];
      };
      // Really different lines (so the test would notice if line numbers were hashed) …
      expect(topFrame(firstEvent)).toMatchObject({
        filename: file,
        function: 'reconcileLedger',
        lineno: 2,
        in_app: true,
      });
      expect(topFrame(secondEvent)).toMatchObject({
        filename: file,
        function: 'reconcileLedger',
        lineno: 9,
        in_app: true,
      });
      expect(topFrame(secondEvent).context_line).toBe("  throw new RangeError('ledger out of balance');");
      // … yet one issue.
      expect(secondEvent.issue_id).toBe(firstEvent.issue_id);
      expect(firstEvent.issue_id).not.toBe(firstIssue.id);
      expect(await issue(firstEvent.issue_id)).toMatchObject({
        type: 'RangeError',
        message: 'ledger out of balance',
        event_count: 2,
      });
    });

    it('opens a new issue for another error type from the same function, or the same type from another function', async () => {
      const rangeEvent = await stored(captureFrom(() => chargeCustomer(123, RangeError)));
      const refundEvent = await stored(captureFrom(() => refundCustomer(123)));
      const ids = new Set([firstIssue.id, rangeEvent.issue_id, refundEvent.issue_id]);
      expect(ids.size).toBe(3);
      expect(await issue(rangeEvent.issue_id)).toMatchObject({ type: 'RangeError', event_count: 1 });
      const refund = await issue(refundEvent.issue_id);
      expect(refund).toMatchObject({
        type: 'TypeError',
        message: 'order 123 has no customer',
        event_count: 1,
      });
      expect(refund.culprit).toMatch(/ in refundCustomer$/);
      expect((await issue(firstIssue.id)).event_count).toBe(2);
    });
  });

  describe('messages and fingerprints', () => {
    it('groups captureMessage events whose texts differ only in numbers into one Message issue', async () => {
      const first = await stored(Sentry.captureMessage('order 123 failed'));
      const second = await stored(Sentry.captureMessage('order 456 failed'));
      expect(second.issue_id).toBe(first.issue_id);
      expect(await issue(first.issue_id)).toMatchObject({
        type: 'Message',
        message: 'order 123 failed',
        event_count: 2,
        state: 'open',
      });
      expect(second).toMatchObject({ message: 'order 456 failed', level: 'info' });
      expect(await eventsOf(first.issue_id)).toHaveLength(2);
    });

    it('puts two different errors with the same custom fingerprint into one issue', async () => {
      const a = await stored(
        captureFrom(
          () => refundCustomer(1),
          (scope) => scope.setFingerprint(['my-group']),
        ),
      );
      const b = await stored(
        captureFrom(
          () => reopenTicket(),
          (scope) => scope.setFingerprint(['my-group']),
        ),
      );
      expect(b.issue_id).toBe(a.issue_id);
      expect(a.fingerprint).toEqual(['my-group']);
      expect(await issue(a.issue_id)).toMatchObject({
        type: 'TypeError',
        message: 'order 1 has no customer',
        event_count: 2,
      });
      // Without the fingerprint, each would have grouped by its own stack.
      const refunds = await issue((await stored(captureFrom(() => refundCustomer(1)))).issue_id);
      expect(refunds.id).not.toBe(a.issue_id);
      expect(refunds.event_count).toBe(2);
    });

    it('splits one error into an issue per value next to {{ default }}', async () => {
      const tenantA = await stored(
        captureFrom(
          () => syncTenant(),
          (scope) => scope.setFingerprint(['{{ default }}', 'tenant-a']),
        ),
      );
      const tenantB = await stored(
        captureFrom(
          () => syncTenant(),
          (scope) => scope.setFingerprint(['{{ default }}', 'tenant-b']),
        ),
      );
      const tenantA2 = await stored(
        captureFrom(
          () => syncTenant(),
          (scope) => scope.setFingerprint(['{{ default }}', 'tenant-a']),
        ),
      );
      const plain = await stored(captureFrom(() => syncTenant()));
      expect(tenantA2.issue_id).toBe(tenantA.issue_id);
      expect(new Set([tenantA.issue_id, tenantB.issue_id, plain.issue_id]).size).toBe(3);
      expect(await issue(tenantA.issue_id)).toMatchObject({
        type: 'Error',
        message: 'tenant sync failed',
        event_count: 2,
      });
      expect((await issue(tenantB.issue_id)).event_count).toBe(1);
      expect((await issue(plain.issue_id)).event_count).toBe(1);
    });
  });

  describe('lifecycle', () => {
    it('reopens a resolved issue as a regression and keeps a muted one muted while counting', async () => {
      const thrower = () => {
        throw new SyntaxError('unexpected token in lifecycle config');
      };
      const first = await stored(captureFrom(thrower));
      const issueId = first.issue_id;
      expect(await issue(issueId)).toMatchObject({ state: 'open', event_count: 1, regression_count: 0 });

      const resolved = await t.api().patch(`/api/issues/${issueId}`).send({ state: 'resolved' }).expect(200);
      expect(resolved.body).toMatchObject({ state: 'resolved', event_count: 1 });
      const second = await stored(captureFrom(thrower));
      expect(second.issue_id).toBe(issueId);
      const reopened = await issue(issueId);
      expect(reopened).toMatchObject({ state: 'open', event_count: 2, regression_count: 1 });

      const muted = await t.api().patch(`/api/issues/${issueId}`).send({ state: 'muted' }).expect(200);
      expect(muted.body).toMatchObject({ state: 'muted', event_count: 2 });
      const third = await stored(captureFrom(thrower));
      expect(third.issue_id).toBe(issueId);
      const stillMuted = await issue(issueId);
      expect(stillMuted).toMatchObject({ state: 'muted', event_count: 3, regression_count: 1 });
      expect(Date.parse(stillMuted.last_seen)).toBeGreaterThan(Date.parse(reopened.last_seen));
      expect(stillMuted.last_seen).toBe(third.timestamp);
      expect(stillMuted.first_seen).toBe(reopened.first_seen);
      const muteds = (await t.api().get(`/api/projects/${project.id}/issues?state=muted`).expect(200)).body
        .data as Issue[];
      expect(muteds.map((candidate) => candidate.id)).toEqual([issueId]);
    });
  });

  describe('duplicates', () => {
    it('stores an envelope posted twice with the same event id once', async () => {
      const text = readFileSync(join(__dirname, 'fixtures/exception-event.envelope'), 'utf8');
      const originalId = JSON.parse(text.split('\n')[0]).event_id as string;
      const eventId = hexOf(randomUUID());
      const body = text.split(originalId).join(eventId);
      expect(body).not.toContain(originalId);
      const post = () =>
        t
          .http()
          .post(`/api/${project.id}/envelope/?sentry_key=${hexOf(project.client_key)}`)
          .set('Content-Type', 'application/x-sentry-envelope')
          .send(body);
      expect((await post().expect(200)).body).toEqual({ id: eventId });
      expect((await post().expect(200)).body).toEqual({ id: eventId });
      const event = await storedEvent(t, eventId);
      // Once more after it was digested (its job is gone by now, so this one really reaches the digest).
      expect((await post().expect(200)).body).toEqual({ id: eventId });
      await backlogDrained(t);
      const fixtureIssue = await issue(event.issue_id);
      expect(fixtureIssue).toMatchObject({ type: 'TypeError', event_count: 1 });
      expect(await eventsOf(event.issue_id)).toEqual([expect.objectContaining({ id: dashed(eventId) })]);
    });
  });

  describe('@sentry/browser 10 (fetch transport, no DOM)', () => {
    it('delivers an exception from the browser SDK', async () => {
      const browserStatuses: (number | undefined)[] = [];
      const client = new BrowserClient({
        dsn: dsnOf(t, project),
        transport: makeFetchTransport,
        stackParser: browserStackParser,
        integrations: [],
        release: 'web@1.0.0',
        environment: 'browser-e2e',
        sendClientReports: false,
      });
      client.on('afterSendEvent', (_event, response) => browserStatuses.push(response?.statusCode));
      client.init();
      const scope = new Scope();
      scope.setClient(client);
      scope.setUser({ id: 'visitor-7', email: 'visitor@example.com' });
      const eventId = client.captureException(new URIError('malformed checkout link'), undefined, scope);
      expect(await client.flush(5_000)).toBe(true);
      expect(browserStatuses).toEqual([200]);
      const event = await storedEvent(t, eventId);
      expect(event).toMatchObject({
        environment: 'browser-e2e',
        release: 'web@1.0.0',
        user: { id: 'visitor-7', email: 'visitor@example.com' },
        sdk: { name: 'sentry.javascript.browser', version: '10.78.0' },
      });
      expect(await issue(event.issue_id)).toMatchObject({
        type: 'URIError',
        message: 'malformed checkout link',
        event_count: 1,
      });
      await client.close(1_000);
    });
  });
});

// ------------------------------------------------------------------------------------------------

/** An envelope as @sentry/node sends it, with an exception of the given type thrown by `function`. */
function exceptionEnvelope(eventId: string, type: string, fn: string): string {
  const payload = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    exception: {
      values: [
        {
          type,
          value: `${type} raised in ${fn}`,
          stacktrace: {
            frames: [
              {
                filename: '/srv/app/node_modules/express/lib/router.js',
                function: 'handle',
                lineno: 10,
                in_app: false,
              },
              { filename: '/srv/app/jobs.js', module: 'jobs', function: fn, lineno: 42, in_app: true },
            ],
          },
        },
      ],
    },
  };
  return [
    JSON.stringify({
      event_id: eventId,
      sent_at: new Date().toISOString(),
      sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
    }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify(payload),
  ].join('\n');
}

describe('rate limiting (the server as a separate process, reading its log)', () => {
  let t: TestApp;
  let server: ChildProcess;
  let output = '';
  let port: number;

  beforeAll(async () => {
    // The API of an in-process app on the same database creates the project and reads the results.
    t = await startTestApp({ APP_ROLE: 'api' });
    port = await freePort();
    server = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: testDatabaseUrl(),
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: `test-rl-${randomUUID().slice(0, 8)}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_ROLE: 'all',
        MAX_EVENTS_PER_MINUTE: '5',
        MAX_EVENTS_PER_HOUR: '0',
        // The test waits for the backlog readiness reports, one of the details.
        HEALTH_DETAILS: 'public',
        LOG_LEVEL: 'info',
        RUST_LOG: '',
        SERVE_DASHBOARD: 'false',
        CREATE_SUPERUSER: '',
      },
    });
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // supertest rather than fetch: fetch's pooled keep-alive sockets would outlive the test.
    // ts-node compiles the server as it boots: about 10 s on an idle machine, a minute or more on a busy one.
    await eventually(async () => (await request(`http://127.0.0.1:${port}`).get('/health')).ok, 180_000);
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      let timer: NodeJS.Timeout | undefined;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
    await t.close();
  });

  it('answers the 6th event of a minute with 429 and Retry-After / X-Sentry-Rate-Limits, stores 5, logs once', async () => {
    const project = await createProject(t, `Rate ${randomUUID().slice(0, 6)}`);
    const send = (eventId: string) =>
      request(`http://127.0.0.1:${port}`)
        .post(`/api/${project.id}/envelope/`)
        .set('Content-Type', 'application/x-sentry-envelope')
        .set(
          'X-Sentry-Auth',
          `Sentry sentry_version=7, sentry_key=${hexOf(project.client_key)}, sentry_client=e2e/1.0`,
        )
        .send(exceptionEnvelope(eventId, 'QuotaError', 'spendQuota'));
    // All sends must land in one fixed minute window.
    const second = new Date().getUTCSeconds();
    if (second >= 50) await sleep((61 - second) * 1000);

    const accepted = Array.from({ length: 5 }, () => hexOf(randomUUID()));
    for (const id of accepted) {
      const response = await send(id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id });
    }
    const droppedId = hexOf(randomUUID());
    const rejected = await send(droppedId);
    expect(rejected.status).toBe(429);
    const retryAfter = Number(rejected.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rejected.headers['x-sentry-rate-limits']).toMatch(
      new RegExp(`^${retryAfter}:default;error;[a-z_;]+:project$`),
    );
    expect(rejected.body).toEqual({ error: expect.stringMatching(/^rate limit exceeded/) });

    const moreDropped = Array.from({ length: 10 }, () => hexOf(randomUUID()));
    for (const id of moreDropped) expect((await send(id)).status).toBe(429);

    // Exactly the first five are digested.
    const issueId = await eventually(async () => {
      const list = (await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data as Issue[];
      return list.length === 1 && list[0].event_count === 5 && list[0].id;
    }, 20_000);
    await eventually(
      async () => (await request(`http://127.0.0.1:${port}`).get('/health/ready')).body.digest_backlog === 0,
    );
    await sleep(300);
    expect((await t.api().get(`/api/issues/${issueId}`).expect(200)).body.event_count).toBe(5);
    const events = (await t.api().get(`/api/issues/${issueId}/events`).expect(200)).body.data as {
      id: string;
    }[];
    expect(events.map((event) => event.id).sort()).toEqual(accepted.map(dashed).sort());
    for (const id of [droppedId, moreDropped[9]]) await t.api().get(`/api/events/${id}`).expect(404);

    // One log line for the whole burst, not one per rejected event.
    await eventually(async () => output.includes('rate limit exceeded'), 5_000);
    await sleep(500);
    const lines = output.split('\n').filter((line) => line.includes('rate limit exceeded'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 40,
      msg: expect.stringContaining(`project ${project.id}`),
    });
  });
});

describe('backlog: an api-only node queues, a worker started later digests everything', () => {
  const prefix = `test-backlog-${randomUUID().slice(0, 8)}`;
  let api: TestApp;
  let worker: TestApp | undefined;

  beforeAll(async () => {
    api = await startTestApp({ APP_ROLE: 'api', REDIS_PREFIX: prefix });
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
  });

  it('accepts 2,000 envelopes with no worker, reports the backlog, then a worker stores all 2,000', async () => {
    const project = await createProject(api, `Backlog ${randomUUID().slice(0, 6)}`);
    const url = `${api.url}/api/${project.id}/envelope/?sentry_key=${hexOf(project.client_key)}`;
    const total = 2_000;
    const statusCounts: Record<number, number> = {};
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < total) {
          const index = next++;
          const eventId = hexOf(randomUUID());
          const response = await fetch(url, {
            method: 'POST',
            body: exceptionEnvelope(eventId, `BacklogError${index % 10}`, `step${index % 10}`),
          });
          await response.arrayBuffer();
          statusCounts[response.status] = (statusCounts[response.status] ?? 0) + 1;
        }
      }),
    );
    expect(statusCounts).toEqual({ 200: total });

    await sleep(200);
    expect((await api.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data).toEqual([]);
    const ready = await api.http().get('/health/ready').expect(200);
    // The backlog counts jobs: concurrent requests share them, up to 10 events each.
    const metrics = (await api.http().get('/metrics').expect(200)).text;
    const jobs = Number(/^error_tracker_digest_jobs_enqueued_total (\d+)$/m.exec(metrics)?.[1]);
    expect(jobs).toBeGreaterThanOrEqual(total / MAX_EVENTS_PER_JOB);
    expect(jobs).toBeLessThanOrEqual(total);
    expect(ready.body).toMatchObject({
      status: 'ok',
      database: 'connected',
      redis: 'connected',
      digest_backlog: jobs,
    });

    worker = await startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix });
    const issues = await eventually(async () => {
      const list = (await api.api().get(`/api/projects/${project.id}/issues`).expect(200)).body
        .data as Issue[];
      const sum = list.reduce((count, candidate) => count + candidate.event_count, 0);
      return sum === total && list;
    }, 40_000);
    expect(issues).toHaveLength(10);
    expect(issues.map((candidate) => candidate.event_count)).toEqual(Array(10).fill(200));
    expect(issues.map((candidate) => candidate.type).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `BacklogError${i}`).sort(),
    );
    const [{ count }] = (await api.app
      .get(DataSource)
      .query('SELECT count(*)::int AS count FROM events WHERE project_id = $1', [project.id])) as {
      count: number;
    }[];
    expect(count).toBe(total);
    await backlogDrained(api);
  });
});
