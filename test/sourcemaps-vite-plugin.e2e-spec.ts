/**
 * Source maps uploaded by the official Vite plugin, `@sentry/vite-plugin` (which runs sentry-cli
 * 2.x), as a Vite user uploads them: a tiny TypeScript app that uses @sentry/browser, built and
 * minified by Vite with the plugin, whose maps are uploaded and then deleted from the build. The
 * server must take the plugin's release and artifact bundle as they come, and an error thrown by a
 * click in the built app, served from 127.0.0.1 and run in headless Chromium, must come out of the
 * digest with its original file, function, line and source lines.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, BrowserContext } from 'playwright-core';
import { startTestApp, TestApp } from './helpers/app';
import { launchBrowser, PageProblems, watchedContext } from './helpers/browser';
import {
  clickAndReport,
  createProject,
  Frame,
  innermost,
  positionOf,
  serveDirectory,
  StaticServer,
  CART_TS,
  CHECKOUT_FRAME,
  shopIndexHtml,
  THROWN,
} from './helpers/sourcemap-app';

const ROOT = join(__dirname, '..');
const RELEASE = 'shop@5.0.0';
/** The entry point: the SDK, and a click handler that calls checkout with an empty cart. */
const MAIN_TS = [
  "import * as Sentry from '@sentry/browser';",
  "import { checkout } from './cart';",
  '',
  'declare const __DSN__: string;',
  `Sentry.init({ dsn: __DSN__, release: '${RELEASE}', environment: 'e2e' });`,
  '',
  'function onCheckoutClick(): void {',
  '  const charged = checkout([]);',
  "  document.getElementById('total')!.textContent = String(charged);",
  '}',
  '',
  "document.getElementById('checkout')!.addEventListener('click', onCheckoutClick);",
  '',
];
const CALL_LINE = 8;

const INDEX_HTML = shopIndexHtml('<script type="module" src="/src/main.ts"></script>');

/**
 * The app's build script, with Vite's JS API and the plugin as its documentation shows them: source
 * maps on but not referenced from the bundle ('hidden'), uploaded for the release, then deleted.
 * `telemetry: false`: the plugin then neither reports to sentry.io nor asks sentry-cli (`info`)
 * whether the server is sentry.io, which is the only case in which it would. `debug: true` puts
 * sentry-cli's requests and the server's answers in the output. A failed upload or release step
 * does not fail a Vite build (the plugin logs it and goes on), so errorHandler collects them and
 * the script fails.
 */
const BUILD_MJS = [
  "import { build } from 'vite';",
  "import { sentryVitePlugin } from '@sentry/vite-plugin';",
  '',
  'const { url, authToken, project, release, dsn } = JSON.parse(process.env.SHOP_BUILD);',
  'const failures = [];',
  'await build({',
  '  root: process.cwd(),',
  '  configFile: false,',
  "  logLevel: 'warn',",
  '  define: { __DSN__: JSON.stringify(dsn) },',
  "  build: { outDir: 'dist', emptyOutDir: true, sourcemap: 'hidden', minify: true },",
  '  plugins: [',
  '    sentryVitePlugin({',
  "      url, authToken, org: 'default', project,",
  '      release: { name: release },',
  "      sourcemaps: { filesToDeleteAfterUpload: ['./dist/**/*.map'] },",
  '      telemetry: false,',
  '      debug: true,',
  '      errorHandler: (error) => failures.push(error),',
  '    }),',
  '  ],',
  '});',
  'if (failures.length > 0) {',
  "  console.error('plugin failures:', failures);",
  '  process.exitCode = 1;',
  '}',
  '',
];

/**
 * Loaded into the build's Node process before the build script: notes every connection the process
 * opens (`host:port`, or a local socket's path) into connections.json when it exits: Vite's, the
 * plugin's, its telemetry client's. sentry-cli runs in processes of its own (see trapProxy).
 */
const CONNECTIONS_CJS = [
  "const net = require('node:net');",
  "const { writeFileSync } = require('node:fs');",
  'const opened = [];',
  'const connect = net.Socket.prototype.connect;',
  'net.Socket.prototype.connect = function (...args) {',
  '  const target = Array.isArray(args[0]) ? args[0][0] : args[0];',
  "  if (typeof target === 'object' && target !== null) opened.push(target.path ?? `${target.host}:${target.port}`);",
  "  else opened.push(`${typeof args[1] === 'string' ? args[1] : 'localhost'}:${target}`);",
  '  return connect.apply(this, args);',
  '};',
  "process.on('exit', () => writeFileSync('connections.json', JSON.stringify(opened)));",
  '',
];

interface Trap {
  url: string;
  /** What it was asked for: `CONNECT host:port` (https) or `METHOD url` (plain http). */
  asked: string[];
  close: () => Promise<void>;
}

/**
 * An HTTP proxy on 127.0.0.1 that forwards nothing and notes what it was asked for. sentry-cli
 * (curl) is told to use it for every host but 127.0.0.1, so anything it sent elsewhere ends here.
 */
async function trapProxy(): Promise<Trap> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(`${request.method} ${request.url}`);
    response.writeHead(502).end();
  });
  server.on('connect', (request, socket) => {
    asked.push(`CONNECT ${request.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ViteBuild {
  /** The output directory, as deployed. */
  dist: string;
  /** The entry chunk: its path in `dist` (`assets/index-<hash>.js`) and its text. */
  chunk: string;
  js: string;
  /** The debug id the plugin put into the chunk. */
  debugId: string;
  /** The build's output: Vite's, the plugin's and sentry-cli's (debug level). */
  output: string;
  /** Connections the build's Node process opened. */
  connections: string[];
}

/**
 * Writes the app into `dir` (node_modules: the project's, linked) and runs its build script in a
 * Node process of its own, as `node build.mjs` (Vite 7 is ESM only, which Jest's CommonJS runtime
 * cannot load), with nothing from the host environment but PATH, and sentry-cli's traffic to
 * anywhere but 127.0.0.1 sent to `trap`.
 */
async function buildWithPlugin(
  dir: string,
  settings: { url: string; authToken: string; project: string; release: string; dsn: string },
  trap: Trap,
): Promise<ViteBuild> {
  await mkdir(join(dir, 'src'), { recursive: true });
  const write = (name: string, lines: string[]) => writeFile(join(dir, name), lines.join('\n'));
  await Promise.all([
    write('index.html', INDEX_HTML),
    write('src/cart.ts', CART_TS),
    write('src/main.ts', MAIN_TS),
    write('build.mjs', BUILD_MJS),
    write('connections.cjs', CONNECTIONS_CJS),
    symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir'),
  ]);
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--require', './connections.cjs', 'build.mjs'],
      {
        cwd: dir,
        timeout: 45_000,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          // No ~/.sentryclirc of the host's.
          HOME: dir,
          NODE_ENV: 'production',
          SHOP_BUILD: JSON.stringify(settings),
          // curl reads http_proxy (lower case only), HTTPS_PROXY and ALL_PROXY, and NO_PROXY.
          http_proxy: trap.url,
          HTTPS_PROXY: trap.url,
          ALL_PROXY: trap.url,
          NO_PROXY: '127.0.0.1',
        },
      },
      (error, stdout, stderr) => {
        const exit = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code: exit, output: `${stdout}\n${stderr}` });
      },
    );
  });
  if (code !== 0) throw new Error(`the build failed (exit code ${code}):\n${output}`);
  const dist = join(dir, 'dist');
  const chunks = (await readdir(join(dist, 'assets'))).filter((name) => name.endsWith('.js'));
  expect(chunks).toHaveLength(1);
  const chunk = `assets/${chunks[0]}`;
  const js = await readFile(join(dist, chunk), 'utf8');
  const debugId = /sentry-dbid-([0-9a-f-]{36})/.exec(js)?.[1];
  if (!debugId) throw new Error(`no debug id in ${chunk}`);
  const connections = JSON.parse(await readFile(join(dir, 'connections.json'), 'utf8')) as string[];
  return { dist, chunk, js, debugId, output, connections };
}

/** The resolved main.ts frame. */
const HANDLER_FRAME = {
  filename: 'src/main.ts',
  abs_path: 'src/main.ts',
  function: 'onCheckoutClick',
  lineno: CALL_LINE,
  colno: MAIN_TS[CALL_LINE - 1].indexOf('checkout(') + 1,
  in_app: true,
  pre_context: MAIN_TS.slice(CALL_LINE - 6, CALL_LINE - 1),
  context_line: '  const charged = checkout([]);',
  post_context: MAIN_TS.slice(CALL_LINE, CALL_LINE + 5),
};

interface ListedBundle {
  release: string | null;
  dist: string | null;
  file_count: number;
  last_used_at: string | null;
  files: { url: string; type: string; debug_id: string | null; source_map: string | null; size: number }[];
}

describe('source maps from @sentry/vite-plugin: what a Vite build uploads resolves a browser error', () => {
  let t: TestApp;
  let work: string;
  let trap: Trap;
  let browser: Browser;
  let context: BrowserContext;
  const problems: PageProblems = { errors: [], cspViolations: [] };
  const servers: StaticServer[] = [];
  let project: { id: number; slug: string; dsn: string };
  let shop: ViteBuild | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'sourcemaps-vite-e2e-'));
    [t, trap] = await Promise.all([startTestApp(), trapProxy()]);
    browser = await launchBrowser();
    context = await watchedContext(browser, { baseURL: t.url }, problems);
    project = await createProject(t, 'Vite Shop');
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all(servers.map((server) => server.close()));
    await trap?.close();
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  afterEach(() => {
    // The only error the page may throw is the one the click provokes; nothing else, no CSP report.
    expect(problems.errors.filter((message) => message !== THROWN)).toEqual([]);
    expect(problems.cspViolations).toEqual([]);
    problems.errors.length = 0;
  });

  const bundles = async (): Promise<ListedBundle[]> =>
    (
      await t
        .api()
        .get(`/api/projects/${project.id}/artifact-bundles`)
        .query({ release: RELEASE })
        .expect(200)
    ).body.data;

  it('builds with the plugin, which uploads the bundle and its map with their debug id, then deletes the map', async () => {
    shop = await buildWithPlugin(
      join(work, 'shop'),
      { url: t.url, authToken: t.token, project: project.slug, release: RELEASE, dsn: project.dsn },
      trap,
    );
    const { dist, chunk, js, debugId, output } = shop;
    expect(output).toContain('Successfully uploaded source maps to Sentry');
    // What is deployed: the page and the chunk, no map (deleted after the upload), no reference to one.
    expect((await readdir(dist, { recursive: true })).sort()).toEqual(['assets', chunk, 'index.html']);
    expect(await readFile(join(dist, 'index.html'), 'utf8')).toContain(`src="/${chunk}"`);
    expect(js).not.toContain('sourceMappingURL');
    // The plugin's snippets: the release for the SDK, and the debug id it registers at run time
    // (the `//# debugId=` comment is only in the copy it uploads).
    expect(js).toContain(`SENTRY_RELEASE={id:"${RELEASE}"}`);
    expect(js).toContain(`_sentryDebugIds[e]="${debugId}"`);
    expect(js).not.toContain('//# debugId=');

    const [bundle, ...others] = await bundles();
    expect(others).toEqual([]);
    expect(bundle).toMatchObject({ release: RELEASE, dist: null, file_count: 2, last_used_at: null });
    // The chunk and its map, uploaded under names of the plugin's making (`<debug id>-<n>`), the
    // chunk as built plus the debug id comment.
    const name = `${debugId}-0.js`;
    expect([...bundle.files].sort((x, y) => x.url.localeCompare(y.url))).toEqual([
      {
        path: `files/_/_/${name}`,
        url: `~/${name}`,
        type: 'minified_source',
        debug_id: debugId,
        source_map: `${name}.map`,
        size: Buffer.byteLength(`${js}\n//# debugId=${debugId}`),
      },
      {
        path: `files/_/_/${name}.map`,
        url: `~/${name}.map`,
        type: 'source_map',
        debug_id: debugId,
        source_map: null,
        size: expect.any(Number),
      },
    ]);

    // Nothing left 127.0.0.1: the build's Node process opened no connection at all (telemetry
    // off), and sentry-cli asked the trap for nothing.
    expect(shop.connections).toEqual([]);
    expect(trap.asked).toEqual([]);
  }, 60_000);

  it('created the release and finalized it; set-commits, which this server does not serve, is skipped', async () => {
    if (!shop) throw new Error('the build failed');
    const release = (await t.api().get(`/api/projects/${project.id}/releases/shop%405.0.0`).expect(200)).body;
    expect(release).toEqual({
      version: RELEASE,
      first_event: null,
      last_event: null,
      event_count: 0,
      new_issues: 0,
      created_at: expect.any(String),
      date_released: expect.any(String),
      deploys: [],
      // No session has named it: health without figures.
      sessions: 0,
      users: 0,
      errored_sessions: 0,
      crashed_sessions: 0,
      crash_free_sessions: null,
      crash_free_users: null,
      adoption: { sessions: null, users: null },
    });
    expect(Date.parse(release.date_released)).toBeGreaterThanOrEqual(Date.parse(release.created_at));
    // The plugin's steps, in its debug log: `releases new`, then `releases set-commits --auto` (its
    // default), which asks for the organization's repositories and gets this server's 501; the
    // plugin lets that go (commits are optional) and finalizes.
    expect(shop.output).toContain(`Release created: Created release ${RELEASE}`);
    expect(shop.output).toContain(`sentry-cli releases set-commits ${RELEASE} --auto --ignore-missing`);
    expect(shop.output).toContain(
      "GET /api/0/organizations/default/repos/ is not part of this server's Sentry-compatible API",
    );
  });

  it('shows the error a click throws in the built app with its original frames', async () => {
    if (!shop) throw new Error('the build failed');
    const server = await serveDirectory(shop.dist);
    servers.push(server);
    const { sent, event, exception } = await clickAndReport(context, t, {
      pageUrl: `${server.url}/`,
      projectId: project.id,
      button: 'Check out',
      thrown: THROWN,
    });
    const url = `${server.url}/${shop.chunk}`;
    // The SDK found the debug id the plugin's snippet registered, and the server kept it.
    const image = { type: 'sourcemap', code_file: url, debug_id: shop.debugId };
    expect(sent.debug_meta?.images).toEqual([image]);
    expect(event.debug_meta?.images).toEqual([image]);
    expect(event.release).toBe(RELEASE);
    expect(event.errors ?? []).toEqual([]);

    const frames = exception.stacktrace.frames;
    expect(innermost(frames)).toEqual(expect.objectContaining(CHECKOUT_FRAME));
    expect(innermost(frames, (frame) => frame.in_app === true)).toEqual(
      expect.objectContaining(CHECKOUT_FRAME),
    );
    expect(innermost(frames, (frame) => frame.filename === 'src/main.ts')).toEqual(
      expect.objectContaining(HANDLER_FRAME),
    );
    // The app's frames are only these two; the rest is the SDK's event-listener wrapper.
    expect(frames.filter((frame) => frame.in_app).map((frame) => [frame.filename, frame.function])).toEqual([
      ['src/main.ts', 'onCheckoutClick'],
      ['src/cart.ts', 'checkout'],
    ]);
    for (const frame of frames.filter((each: Frame) => !each.in_app)) {
      expect(frame.filename).toMatch(/node_modules\/@sentry\//);
    }

    // The frames as sent: the served chunk, at the minified position of `new Error(...)`.
    const raw = exception.raw_stacktrace?.frames ?? [];
    expect(raw).toHaveLength(frames.length);
    expect(innermost(raw)).toMatchObject({
      filename: url,
      ...positionOf(shop.js, /new Error\(["']Cart is empty["']\)/),
    });
    expect(innermost(raw).function).not.toBe('checkout');
    expect(raw.every((frame) => frame.filename === url && frame.context_line == null)).toBe(true);

    const issues = (await t.api().get(`/api/projects/${project.id}/issues`).expect(200)).body.data;
    expect(issues).toEqual([
      expect.objectContaining({
        id: event.issue_id,
        message: THROWN,
        culprit: 'src/cart.ts in checkout',
        first_release: RELEASE,
      }),
    ]);
    expect((await bundles())[0].last_used_at).not.toBeNull();
  }, 60_000);
});
