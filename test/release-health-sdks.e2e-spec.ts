/**
 * Release health from the real SDKs, unchanged: @sentry/node's request-session aggregates and
 * process session (an HTTP service instrumented by the SDK, in a child process), @sentry/browser's
 * page-load sessions in Chromium, one of them crashed by an unhandled error, and the Python SDK's
 * session per request when Debian's python3-sentry-sdk is installed.
 */
import { fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { SessionFolder } from '../src/releases/health/session-folder';
import { startTestApp, TestApp } from './helpers/app';
import { launchBrowser } from './helpers/browser';
import { serveDirectory, StaticServer } from './helpers/sourcemap-app';
import { PYTHON, pythonSdkFeature } from './helpers/python-sdk';

const ROOT = join(__dirname, '..');

interface Project {
  id: number;
  client_key: string;
  dsn?: string;
}

async function createProject(t: TestApp): Promise<Project> {
  return (
    await t
      .api()
      .post('/api/projects')
      .send({ name: `sdk-health-${randomUUID().slice(0, 6)}` })
      .expect(201)
  ).body as Project;
}

function dsnOf(t: TestApp, project: Project): string {
  return `http://${project.client_key.replace(/-/g, '')}@127.0.0.1:${t.port}/${project.id}`;
}

/** Folds until the release's figures are `expected` (the SDKs send on their own schedule). */
async function figuresOnceFolded(
  t: TestApp,
  project: Project,
  version: string,
  done: (figures: Record<string, number>) => boolean,
  timeoutMs = 30_000,
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await t.app.get(SessionFolder).fold();
    const response = await t
      .api()
      .get(`/api/projects/${project.id}/releases/${encodeURIComponent(version)}/health`);
    const figures = response.status === 200 ? (response.body.totals as Record<string, number>) : {};
    if (response.status === 200 && done(figures)) return figures;
    if (Date.now() > deadline) return figures;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('release health from the real SDKs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('@sentry/node: request-session aggregates and the process session', async () => {
    const project = await createProject(t);
    const release = `node-app@${randomUUID().slice(0, 6)}`;
    const child = fork(join(__dirname, 'helpers/node-sessions-app.js'), [dsnOf(t, project), release], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const { port } = await new Promise<{ port: number }>((resolve) =>
        child.once('message', resolve as never),
      );
      const get = (path: string) =>
        fetch(`http://127.0.0.1:${port}${path}`).then((response) => response.status);
      const statuses = await Promise.all([
        ...Array.from({ length: 7 }, () => get('/ok')),
        ...Array.from({ length: 3 }, () => get('/error')),
      ]);
      expect(statuses.sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 500, 500, 500]);
      child.send('error');
      await new Promise((resolve) => child.once('message', resolve));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('exit');
      await exited;
      // 10 request sessions (3 errored) and the process session, which met an error.
      const figures = await figuresOnceFolded(t, project, release, (f) => f.sessions >= 11);
      expect(figures).toMatchObject({
        sessions: 11,
        errored_sessions: 4,
        crashed_sessions: 0,
        crash_free_sessions: 100,
      });
      const overview = (await t.api().get(`/api/projects/${project.id}/release-health`).expect(200)).body;
      expect(overview.environments).toEqual(['node-e2e']);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  }, 60_000);

  describe('@sentry/browser in Chromium', () => {
    let browser: Browser;
    let dir: string;
    let site: StaticServer;
    let project: Project;
    const release = `web-app@${randomUUID().slice(0, 6)}`;

    beforeAll(async () => {
      project = await createProject(t);
      dir = await mkdtemp(join(tmpdir(), 'health-browser-'));
      await writeFile(
        join(dir, 'main.ts'),
        [
          "import * as Sentry from '@sentry/browser';",
          "Sentry.init({ dsn: __DSN__, release: __RELEASE__, environment: 'browser-e2e', initialScope: { user: { id: 'shopper-1' } } });",
          "(window as unknown as { crash: () => void }).crash = () => { setTimeout(() => { throw new Error('checkout exploded'); }); };",
        ].join('\n'),
      );
      await writeFile(
        join(dir, 'index.html'),
        '<!doctype html><html><head><meta charset="utf-8"><title>shop</title><script src="main.js"></script></head><body>shop</body></html>',
      );
      await build({
        absWorkingDir: dir,
        entryPoints: [join(dir, 'main.ts')],
        nodePaths: [join(ROOT, 'node_modules')],
        bundle: true,
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        define: { __DSN__: JSON.stringify(dsnOf(t, project)), __RELEASE__: JSON.stringify(release) },
        outfile: join(dir, 'main.js'),
        logLevel: 'silent',
      });
      site = await serveDirectory(dir);
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await site?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('counts a page-load session, and a crash (an unhandled error) marks its session crashed', async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const sent = (status: string) =>
          page.waitForRequest(
            (request) =>
              request.url().includes(`/api/${project.id}/envelope/`) &&
              (request.postData() ?? '').includes(`"status":"${status}"`),
          );
        // A healthy page load.
        const healthy = sent('ok');
        await page.goto(`${site.url}/`);
        await healthy;
        // Another page load, which then crashes.
        const second = sent('ok');
        await page.goto(`${site.url}/?again`);
        await second;
        const crashed = sent('crashed');
        await page.evaluate(() => (window as unknown as { crash: () => void }).crash());
        await crashed;
        const figures = await figuresOnceFolded(
          t,
          project,
          release,
          (f) => f.sessions >= 2 && f.crashed_sessions >= 1,
        );
        expect(figures).toMatchObject({
          sessions: 2,
          crashed_sessions: 1,
          errored_sessions: 0,
          crash_free_sessions: 50,
          users: 1,
          crash_free_users: 0,
        });
      } finally {
        await context.close();
      }
    });
  });

  const pythonSdk = pythonSdkFeature(
    'import sentry_sdk',
    'the Python SDK is not installed (apt-get install python3-sentry-sdk, or pip install sentry-sdk)',
  );
  pythonSdk.itWith(
    pythonSdk.title('the Python SDK: a session per request of a WSGI app'),
    async () => {
      const project = await createProject(t);
      const release = `py-app@${randomUUID().slice(0, 6)}`;
      const script = [
        'import sys, threading, urllib.request',
        'import sentry_sdk',
        'from sentry_sdk.integrations.wsgi import SentryWsgiMiddleware',
        'from wsgiref.simple_server import make_server, WSGIRequestHandler',
        "sentry_sdk.init(dsn=sys.argv[1], release=sys.argv[2], environment='python-e2e')",
        'def app(environ, start_response):',
        "    if environ['PATH_INFO'] == '/error':",
        "        sentry_sdk.capture_exception(ValueError('request failed'))",
        "        start_response('500 Internal Server Error', [('Content-Type', 'text/plain')])",
        "        return [b'failed']",
        "    start_response('200 OK', [('Content-Type', 'text/plain')])",
        "    return [b'ok']",
        'class Quiet(WSGIRequestHandler):',
        '    def log_message(self, *args):',
        '        pass',
        "server = make_server('127.0.0.1', 0, SentryWsgiMiddleware(app), handler_class=Quiet)",
        'threading.Thread(target=server.serve_forever, daemon=True).start()',
        "for path in ['/ok', '/ok', '/ok', '/error']:",
        '    try:',
        "        urllib.request.urlopen('http://127.0.0.1:%d%s' % (server.server_port, path)).read()",
        '    except Exception:',
        '        pass',
        'server.shutdown()',
        'sentry_sdk.flush(5)',
      ].join('\n');
      const child = spawn(PYTHON, ['-c', script, dsnOf(t, project), release], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      const figures = await figuresOnceFolded(t, project, release, (f) => f.sessions >= 4);
      expect(figures).toMatchObject({
        sessions: 4,
        errored_sessions: 1,
        crashed_sessions: 0,
      });
    },
    60_000,
  );
});
