/**
 * How each SDK of the corpus is made to send its events to the capture server. Every program tags
 * its events with `corpus_case`, the name its payload is stored under. Used by capture.ts.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { CaptureServer } from './server';

const ROOT = join(__dirname, '..', '..', '..');
const APPS = join(__dirname, 'apps');
const PYTHON = '/usr/bin/python3';
const GOPATH_DEBIAN = '/usr/share/gocode';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RUBY_GEMS = '/usr/share/rubygems-integration/all/gems';

export interface Sdk {
  /** The payloads' folder under payloads/. */
  name: string;
  /** Why this SDK cannot run here, or null. */
  missing(): string | null;
  /** Makes the SDK send its events to `server`; resolves once all of them arrived. */
  run(server: CaptureServer): Promise<void>;
}

interface RunResult {
  code: number;
  output: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<RunResult>((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

async function runOk(
  command: string,
  args: string[],
  options: Parameters<typeof run>[2] = {},
): Promise<void> {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.output}`);
}

const scratchDirs: string[] = [];

/** A fresh temporary directory, removed by removeScratch. */
async function scratch(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** Removes the temporary directories the SDK programs ran in. */
export async function removeScratch(): Promise<void> {
  for (const dir of scratchDirs.splice(0)) await rm(dir, { recursive: true, force: true });
}

function commandMissing(path: string, hint: string): string | null {
  return existsSync(path) ? null : `${path} not found (${hint})`;
}

/**
 * How many events each program sends: a capture waits for them all, and fails when fewer come (a
 * case that did not throw, say).
 */
const EVENTS = { node: 12, python: 13, go: 11, ruby: 9 };

export const nodeSdk: Sdk = {
  name: 'node',
  missing: () => null,
  async run(server) {
    // Compiled file by file, as `tsc` would: each module keeps its own file in the stack.
    const dir = await scratch('shop-node-');
    const sources = (await readdir(join(APPS, 'node'))).filter((file) => file.endsWith('.ts'));
    await build({
      entryPoints: sources.map((file) => join(APPS, 'node', file)),
      outdir: dir,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      logLevel: 'silent',
    });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    await runOk(process.execPath, ['main.js', server.dsn()], { cwd: dir });
    const uncaught = await run(process.execPath, ['main.js', server.dsn(), 'uncaught'], { cwd: dir });
    if (uncaught.code === 0) throw new Error('the uncaught exception did not end the process');
    await server.waitFor(EVENTS.node);
  },
};

/**
 * In this order: the SDK's Dedupe integration drops an event equal to the one just before it, so
 * the same error twice needs another event between the two.
 */
const BROWSER_CASES = [
  'type-error',
  'range-error',
  'type-error-again',
  'error-with-cause',
  'anonymous-callback',
  'message',
  'message-again',
  'custom-fingerprint',
  'custom-fingerprint-other-error',
  'fingerprint-default',
  'unhandled-click',
  'unhandled-rejection',
];

export const browserSdk: Sdk = {
  name: 'browser',
  missing: () => commandMissing(CHROMIUM, 'apt-get install chromium, or set CHROMIUM_PATH'),
  async run(server) {
    // Bundled, not minified, as a development build would be: one script, readable names.
    const bundle = await build({
      entryPoints: [join(APPS, 'browser', 'main.ts')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'chrome120',
      write: false,
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0].text;
    const page = `<!doctype html><html><head><title>shop</title></head><body data-dsn="${server.dsn()}"><script src="/assets/main.js"></script></body></html>`;
    const site = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (path === '/assets/main.js') response.setHeader('Content-Type', 'text/javascript').end(script);
      else if (path === '/checkout') response.setHeader('Content-Type', 'text/html').end(page);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const tab = await browser.newPage();
      const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      await tab.goto(`${origin}/checkout`);
      // One at a time: the tag a click sets must still be there when its event is sent.
      for (const [index, name] of BROWSER_CASES.entries()) {
        await tab.click(`#${name}`);
        await server.waitFor(index + 1);
      }
    } finally {
      await browser.close();
      site.close();
    }
  },
};

/** `sentry-cli send-event` arguments per case; every one also gets `--no-environ` and its tag. */
const CLI_CASES: Record<string, string[]> = {
  message: ['-m', 'Nightly backup of 1843 files failed after 92 s on 10.0.4.17'],
  'message-again': ['-m', 'Nightly backup of 7 files failed after 3 s on 10.0.9.2'],
  'message-params': ['-m', 'Backup of %s failed with exit code %s', '-a', '/srv/data', '-a', '137'],
  'message-params-again': ['-m', 'Backup of %s failed with exit code %s', '-a', '/srv/data', '-a', '2'],
  fingerprint: ['-m', 'Nightly backup failed: disk full', '-f', 'backup-failure'],
  'fingerprint-other-message': ['-m', 'Nightly backup failed: connection refused', '-f', 'backup-failure'],
  'fingerprint-default': [
    '-m',
    'Nightly backup of 1843 files failed after 92 s on 10.0.4.17',
    '-f',
    '{{ default }}',
    '-f',
    'nightly',
  ],
};

/** An event file as a deploy script would write it for `sentry-cli send-event <file>`. */
const CLI_EVENT_FILE = {
  level: 'error',
  logger: 'deploy.sh',
  tags: { corpus_case: 'exception-file' },
  exception: {
    values: [
      {
        type: 'MigrationFailed',
        value: 'migration 0042_add_orders_index failed after 17 s',
        stacktrace: {
          frames: [
            { filename: 'deploy.sh', function: 'main', lineno: 88, in_app: true },
            { filename: 'deploy.sh', function: 'run_migrations', lineno: 41, in_app: true },
          ],
        },
      },
    ],
  },
};

function sentryCli(name: string, binary: string): Sdk {
  const path = join(ROOT, 'node_modules', binary);
  return {
    name,
    missing: () => commandMissing(path, 'npm install'),
    async run(server) {
      const home = await scratch(`${name}-`);
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        SENTRY_DSN: server.dsn(),
        SENTRY_DISABLE_UPDATE_CHECK: '1',
        NO_PROXY: '*',
      };
      for (const [tag, args] of Object.entries(CLI_CASES)) {
        await runOk(path, ['send-event', '--no-environ', '-t', `corpus_case:${tag}`, ...args], {
          cwd: home,
          env,
        });
      }
      await writeFile(join(home, 'event.json'), JSON.stringify(CLI_EVENT_FILE));
      await runOk(path, ['send-event', 'event.json'], { cwd: home, env });
      await server.waitFor(Object.keys(CLI_CASES).length + 1);
    },
  };
}

/**
 * Runs each of `runs` in a copy of apps/<app> (a project folder of its own, as a user's would be),
 * with the DSN in SENTRY_DSN, and waits for `events` in all.
 */
async function runApp(
  server: CaptureServer,
  app: string,
  runs: { command: string; args: string[]; fails?: boolean }[],
  events: number,
): Promise<void> {
  const dir = await scratch(`shop-${app}-`);
  await cp(join(APPS, app), dir, { recursive: true });
  for (const { command, args, fails } of runs) {
    const result = await run(command, args, { cwd: dir, env: { ...process.env, SENTRY_DSN: server.dsn() } });
    if ((result.code !== 0) !== Boolean(fails)) {
      throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.output}`);
    }
  }
  await server.waitFor(events);
}

export const pythonSdk: Sdk = {
  name: 'python',
  missing: () =>
    commandMissing(PYTHON, 'apt-get install python3') ??
    commandMissing('/usr/lib/python3/dist-packages/sentry_sdk', 'apt-get install python3-sentry-sdk'),
  run: (server) =>
    runApp(
      server,
      'python',
      [
        { command: PYTHON, args: ['shop.py'] },
        { command: PYTHON, args: ['shop.py', 'uncaught'], fails: true },
      ],
      EVENTS.python,
    ),
};

export const goSdk: Sdk = {
  name: 'go',
  missing: () =>
    commandMissing('/usr/bin/go', 'apt-get install golang-go') ??
    commandMissing(
      `${GOPATH_DEBIAN}/src/github.com/getsentry/sentry-go`,
      'apt-get install golang-github-getsentry-sentry-go-dev',
    ),
  async run(server) {
    // GOPATH mode, as Debian's Go packages are laid out: the shop is package `shop` in a GOPATH of
    // its own, sentry-go and pkg/errors come from Debian's.
    const gopath = await scratch('shop-go-');
    await cp(join(APPS, 'go'), join(gopath, 'src', 'shop'), { recursive: true });
    const env = {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: `${gopath}:${GOPATH_DEBIAN}`,
      GOFLAGS: '',
      SENTRY_DSN: server.dsn(),
    };
    await runOk('/usr/bin/go', ['build', '-o', join(gopath, 'shop'), 'shop'], { cwd: gopath, env });
    await runOk(join(gopath, 'shop'), [], { cwd: gopath, env });
    await server.waitFor(EVENTS.go);
  },
};

export const rubySdk: Sdk = {
  name: 'ruby',
  missing: () =>
    commandMissing('/usr/bin/ruby', 'apt-get install ruby') ??
    (existsSync(RUBY_GEMS) && readdirSync(RUBY_GEMS).some((gem) => gem.startsWith('sentry-ruby-core-'))
      ? null
      : `sentry-ruby not found in ${RUBY_GEMS} (apt-get install ruby-sentry-ruby)`),
  // sentry-ruby 5.3 reports no uncaught exception at exit, so there is no such case here.
  run: (server) => runApp(server, 'ruby', [{ command: '/usr/bin/ruby', args: ['bin/shop.rb'] }], EVENTS.ruby),
};

export const SDKS: Sdk[] = [
  nodeSdk,
  browserSdk,
  sentryCli('sentry-cli-3', '.bin/sentry-cli'),
  sentryCli('sentry-cli-2', 'sentry-cli-v2/bin/sentry-cli'),
  pythonSdk,
  goSdk,
  rubySdk,
];
