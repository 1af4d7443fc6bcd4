/**
 * Source maps end to end, as a user meets them: a small TypeScript app that uses @sentry/browser,
 * bundled and minified with esbuild, injected and uploaded with the real sentry-cli (3.x and 2.x),
 * served from 127.0.0.1 and run in headless Chromium, where a click throws. The events the SDK sends
 * must come out of the digest with the original file, function, line, column and source lines, the
 * frames as sent kept in `raw_stacktrace`, and two differently minified builds of the same code in
 * one issue; a build uploaded for a release without debug ids resolves by URL; a build whose map was
 * never uploaded keeps its minified frames and says why in `errors`.
 */
import { build } from 'esbuild';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import {
  ensureDashboardBuilt,
  launchBrowser,
  PageProblems,
  screenshot,
  signIn,
  watchedContext,
} from './helpers/browser';
import { eventually } from './helpers/queues';
import {
  clickAndReport,
  CliVersion,
  createProject,
  Frame,
  injectedDebugId,
  innermost,
  positionOf,
  Reported,
  runSentryCli,
  serveDirectory,
  StaticServer,
  CART_TS,
  CHECKOUT_FRAME,
  shopIndexHtml,
  THROWN,
} from './helpers/sourcemap-app';

const ROOT = join(__dirname, '..');
const EMAIL = 'sm@example.com';
const PASSWORD = 'secret';
/** The entry point: the SDK, and a click handler that calls checkout with an empty cart. */
const MAIN_TS = [
  "import * as Sentry from '@sentry/browser';",
  "import { checkout } from './cart';",
  '',
  "Sentry.init({ dsn: __DSN__, release: __RELEASE__ || undefined, environment: 'e2e' });",
  '',
  'function onCheckoutClick(): void {',
  '  const charged = checkout([]);',
  "  document.getElementById('total')!.textContent = String(charged);",
  '}',
  '',
  "document.getElementById('checkout')!.addEventListener('click', onCheckoutClick);",
  '',
];
const CALL_LINE = 7;

/** Build B only: another entry and an extra module in front of main.ts, so the bundle differs throughout. */
const TELEMETRY_TS = [
  'export const marks: string[] = [];',
  'export function startTelemetry(page: string): number {',
  '  marks.push(`${page}:${Math.round(performance.now())}`);',
  '  document.documentElement.dataset.telemetry = String(marks.length);',
  '  return marks.length;',
  '}',
  '',
];
const BOOT_TS = [
  "import { startTelemetry } from './telemetry';",
  "import './main';",
  '',
  'startTelemetry(document.title);',
  '',
];

const INDEX_HTML = shopIndexHtml('<script src="/main.js"></script>');

interface ShopBuild {
  dist: string;
  js: string;
  map: string;
}

/**
 * The shop app bundled into `<dir>/dist` (main.js, main.js.map with sourcesContent, index.html).
 * `plain`: main.ts as the entry. `boot`: boot.ts (telemetry, then main) as the entry, behind a
 * banner, for an older target and with keepNames: the same code paths, minified differently.
 */
async function buildShop(
  dir: string,
  options: { dsn: string; release?: string; variant: 'plain' | 'boot' },
): Promise<ShopBuild> {
  await mkdir(join(dir, 'src'), { recursive: true });
  const write = (name: string, lines: string[]) => writeFile(join(dir, name), lines.join('\n'));
  await write('src/cart.ts', CART_TS);
  await write('src/main.ts', MAIN_TS);
  if (options.variant === 'boot') {
    await write('src/telemetry.ts', TELEMETRY_TS);
    await write('src/boot.ts', BOOT_TS);
  }
  const dist = join(dir, 'dist');
  await build({
    absWorkingDir: dir,
    entryPoints: [join(dir, options.variant === 'boot' ? 'src/boot.ts' : 'src/main.ts')],
    // The temporary directory has no node_modules: @sentry/browser comes from the project's.
    nodePaths: [join(ROOT, 'node_modules')],
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    format: 'iife',
    platform: 'browser',
    define: { __DSN__: JSON.stringify(options.dsn), __RELEASE__: JSON.stringify(options.release ?? '') },
    outfile: join(dist, 'main.js'),
    logLevel: 'silent',
    ...(options.variant === 'boot'
      ? {
          target: 'es2017',
          keepNames: true,
          banner: { js: '/*! shop storefront, build B */' },
        }
      : { target: 'es2022' }),
  });
  await writeFile(join(dist, 'index.html'), INDEX_HTML.join('\n'));
  return { dist, js: join(dist, 'main.js'), map: join(dist, 'main.js.map') };
}

/** The resolved main.ts frame, wherever the bundle put it (its column is checked on its own). */
const HANDLER_FRAME = {
  filename: 'src/main.ts',
  abs_path: 'src/main.ts',
  function: 'onCheckoutClick',
  lineno: CALL_LINE,
  in_app: true,
  pre_context: MAIN_TS.slice(CALL_LINE - 6, CALL_LINE - 1),
  context_line: '  const charged = checkout([]);',
  post_context: MAIN_TS.slice(CALL_LINE, CALL_LINE + 5),
};

describe('source maps in the browser: @sentry/browser events resolved with what sentry-cli uploaded', () => {
  let t: TestApp;
  let cliToken: string;
  let work: string;
  let browser: Browser;
  let context: BrowserContext;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const servers: StaticServer[] = [];
  /** The issue of builds A and B, and that of build D, for the dashboard test. */
  let symbolicatedIssue: number | undefined;
  let unmappedIssue: number | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'sourcemaps-browser-e2e-'));
    t = await startTestApp({ SERVE_DASHBOARD: 'true', CREATE_SUPERUSER: `${EMAIL}:${PASSWORD}` });
    cliToken = (await t.api().post('/api/tokens').send({ description: 'sentry-cli' }).expect(201)).body.token;
    browser = await launchBrowser();
    context = await watchedContext(browser, { baseURL: t.url }, problems);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all(servers.map((server) => server.close()));
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  afterEach(() => {
    // The only error a shop page may throw is the one the test provokes (uncaught, as in production:
    // the SDK reports it from its event-listener wrapper and lets it go on); nothing else, no CSP report.
    expect(problems.errors.filter((message) => message !== THROWN)).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
    problems.errors.length = 0;
  });

  const newProject = (name: string) => createProject(t, name);

  async function cli(version: CliVersion, args: string[], project: string): Promise<void> {
    const result = await runSentryCli(version, args, { url: t.url, token: cliToken, project, home: work });
    expect({ args, ...result }).toMatchObject({ code: 0 });
  }

  /** Serves a build, opens it, clicks "Check out" and returns the event the SDK sent, once stored. */
  async function clickCheckout(shop: ShopBuild, projectId: number): Promise<Reported & { origin: string }> {
    const server = await serveDirectory(shop.dist);
    servers.push(server);
    const reported = await clickAndReport(context, t, {
      pageUrl: `${server.url}/`,
      projectId,
      button: 'Check out',
      thrown: THROWN,
    });
    return { ...reported, origin: server.url };
  }

  /** The resolved frames of the two app modules, the library frames around them, and the frames as sent. */
  async function expectResolved(reported: Reported & { origin: string }, shop: ShopBuild): Promise<Frame> {
    const { exception, event } = reported;
    const frames = exception.stacktrace.frames;
    expect(innermost(frames)).toEqual(expect.objectContaining(CHECKOUT_FRAME));
    expect(innermost(frames, (frame) => frame.in_app === true)).toEqual(
      expect.objectContaining(CHECKOUT_FRAME),
    );
    const handler = innermost(frames, (frame) => frame.filename === 'src/main.ts');
    expect(handler).toEqual(expect.objectContaining(HANDLER_FRAME));
    expect(handler.colno).toBe(MAIN_TS[CALL_LINE - 1].indexOf('checkout(') + 1);
    // Everything else on the stack is the SDK's event-listener wrapper: library code, not the app's.
    const others = frames.filter((frame) => !['src/cart.ts', 'src/main.ts'].includes(frame.filename ?? ''));
    for (const frame of others) {
      expect(frame).toMatchObject({
        in_app: false,
        filename: expect.stringMatching(/node_modules\/@sentry\//),
      });
    }
    // The app's frames are only these two: one issue for every build of the same code.
    expect(frames.filter((frame) => frame.in_app).map((frame) => [frame.filename, frame.function])).toEqual([
      ['src/main.ts', 'onCheckoutClick'],
      ['src/cart.ts', 'checkout'],
    ]);
    expect(event.errors ?? []).toEqual([]);

    // The frames as sent: the served file, at the minified position of `new Error(...)`.
    const raw = exception.raw_stacktrace?.frames ?? [];
    expect(raw).toHaveLength(frames.length);
    const minified = await readFile(shop.js, 'utf8');
    const top = innermost(raw);
    expect(top).toMatchObject({
      filename: `${reported.origin}/main.js`,
      ...positionOf(minified, /new Error\(["']Cart is empty["']\)/),
      in_app: true,
    });
    expect(raw.every((frame) => frame.filename === `${reported.origin}/main.js`)).toBe(true);
    expect(raw.some((frame) => frame.context_line !== undefined && frame.context_line !== null)).toBe(false);
    return top;
  }

  it('resolves two differently minified builds, uploaded by sentry-cli 3.x and 2.x with debug ids, into one issue', async () => {
    const project = await newProject('Shop');
    const a = await buildShop(join(work, 'a'), { dsn: project.dsn, release: 'shop@1.0.0', variant: 'plain' });
    const b = await buildShop(join(work, 'b'), { dsn: project.dsn, release: 'shop@2.0.0', variant: 'boot' });
    const builds: [ShopBuild, CliVersion][] = [
      [a, '3.x'],
      [b, '2.x'],
    ];
    for (const [shop, version] of builds) {
      await cli(version, ['sourcemaps', 'inject', shop.dist], project.slug);
      await cli(version, ['sourcemaps', 'upload', shop.dist], project.slug);
    }
    const [jsA, jsB] = await Promise.all([readFile(a.js, 'utf8'), readFile(b.js, 'utf8')]);
    expect(jsA).not.toEqual(jsB);
    const [idA, idB] = await Promise.all([injectedDebugId(a.map), injectedDebugId(b.map)]);
    expect(idA).not.toEqual(idB);

    const reportedA = await clickCheckout(a, project.id);
    const reportedB = await clickCheckout(b, project.id);
    const tops: Frame[] = [];
    for (const [reported, shop, debugId, release] of [
      [reportedA, a, idA, 'shop@1.0.0'],
      [reportedB, b, idB, 'shop@2.0.0'],
    ] as const) {
      // The SDK found the debug id sentry-cli injected, and the server kept it with the event.
      const image = { type: 'sourcemap', code_file: `${reported.origin}/main.js`, debug_id: debugId };
      expect(reported.sent.debug_meta?.images).toEqual([image]);
      expect(reported.event.debug_meta?.images).toEqual([image]);
      expect(reported.event.release).toBe(release);
      tops.push(await expectResolved(reported, shop));
    }
    // Differently minified: the throw is elsewhere in each bundle, in a function named otherwise
    // (build B keeps names; build A's minifier renamed checkout).
    expect(tops[0].lineno).not.toBe(tops[1].lineno);
    expect(tops[0].colno).not.toBe(tops[1].colno);
    expect(tops[0].function).not.toBe(tops[1].function);

    expect(reportedA.event.issue_id).toBe(reportedB.event.issue_id);
    const issues = (await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data as {
      id: number;
    }[];
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      id: reportedA.event.issue_id,
      type: 'Error',
      message: THROWN,
      culprit: 'src/cart.ts in checkout',
      event_count: 2,
      first_release: 'shop@1.0.0',
      last_release: 'shop@2.0.0',
    });
    const events = await eventually(async () => {
      const listed = (await t.api().get(`/api/issues/${issues[0].id}/events`).expect(200)).body.data as {
        id: string;
      }[];
      return listed.length === 2 && listed;
    });
    expect(events.map((event) => event.id).sort()).toEqual([reportedA.event.id, reportedB.event.id].sort());
    symbolicatedIssue = issues[0].id;
  }, 60_000);

  it('resolves a build without debug ids, uploaded for its release, by release and URL', async () => {
    const project = await newProject('Shop Release');
    const c = await buildShop(join(work, 'c'), { dsn: project.dsn, release: 'shop@3.0.0', variant: 'plain' });
    await cli('3.x', ['sourcemaps', 'upload', '--release', 'shop@3.0.0', c.dist], project.slug);
    expect(await readFile(c.js, 'utf8')).not.toContain('//# debugId=');
    const bundles = async () =>
      (await t.api().get(`/api/projects/${project.id}/artifact-bundles`).expect(200)).body.data as {
        release: string | null;
        last_used_at: string | null;
        files: { url: string; type: string; debug_id: string | null; source_map: string | null }[];
      }[];
    const [bundle] = await bundles();
    expect(bundle).toMatchObject({ release: 'shop@3.0.0', last_used_at: null });
    expect(
      bundle.files
        .map(({ url, type, debug_id }) => ({ url, type, debug_id }))
        .sort((x, y) => x.url.localeCompare(y.url)),
    ).toEqual([
      { url: '~/main.js', type: 'minified_source', debug_id: null },
      { url: '~/main.js.map', type: 'source_map', debug_id: null },
    ]);

    const reported = await clickCheckout(c, project.id);
    expect(reported.sent.debug_meta).toBeUndefined();
    expect(reported.event.release).toBe('shop@3.0.0');
    await expectResolved(reported, c);
    expect((await bundles())[0].last_used_at).not.toBeNull();
  }, 60_000);

  it('keeps the minified frames of a build whose map was never uploaded, and says why', async () => {
    const project = await newProject('Shop Unmapped');
    const d = await buildShop(join(work, 'd'), { dsn: project.dsn, variant: 'plain' });
    await cli('2.x', ['sourcemaps', 'inject', d.dist], project.slug);
    const debugId = await injectedDebugId(d.map);

    const reported = await clickCheckout(d, project.id);
    const url = `${reported.origin}/main.js`;
    expect(reported.sent.debug_meta?.images).toEqual([
      { type: 'sourcemap', code_file: url, debug_id: debugId },
    ]);
    const frames = reported.exception.stacktrace.frames;
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((frame) => frame.filename === url && frame.context_line == null)).toBe(true);
    expect(frames.map((frame) => frame.function)).not.toContain('checkout');
    expect(innermost(frames)).toMatchObject({
      filename: url,
      ...positionOf(await readFile(d.js, 'utf8'), /new Error\(["']Cart is empty["']\)/),
    });
    expect(reported.exception.raw_stacktrace ?? null).toBeNull();
    expect(reported.event.errors).toEqual([
      { type: 'js_no_source_map', url, debug_id: debugId, detail: expect.stringContaining(debugId) },
    ]);
    unmappedIssue = reported.event.issue_id;
  }, 60_000);

  it('shows the resolved issue, and the unresolved one, in the dashboard', async () => {
    expect(symbolicatedIssue).toBeDefined();
    expect(unmappedIssue).toBeDefined();
    ensureDashboardBuilt();
    const dashboardProblems: PageProblems = { errors: [], cspViolations: [] };
    const dashboard = await watchedContext(browser, { baseURL: t.url }, dashboardProblems);
    try {
      const page = await dashboard.newPage();
      await signIn(page, EMAIL, PASSWORD);
      // The innermost app frame is open with the original source around the throw.
      await page.goto(`/issues/${symbolicatedIssue}`);
      await page.getByText(THROWN, { exact: true }).first().waitFor();
      await page.getByText(CHECKOUT_FRAME.context_line.trim()).first().waitFor();
      await page.getByText('onCheckoutClick').first().waitFor();
      await screenshot(page, 'sourcemaps-resolved-issue');

      await page.goto(`/issues/${unmappedIssue}`);
      await page.getByText(THROWN, { exact: true }).first().waitFor();
      await page.getByText('main.js').first().waitFor();
      await screenshot(page, 'sourcemaps-unresolved-issue');
      expect(dashboardProblems).toEqual({ errors: [], cspViolations: [] });
    } finally {
      await dashboard.close();
    }
  }, 60_000);
});
