/**
 * What the source map e2e tests upload: a tiny esbuild app, sentry-cli processes of both major
 * versions, and artifact bundles written by hand (a minimal ZIP writer) for the inputs sentry-cli
 * never produces (zip bombs, broken manifests). And what they need to run a built app in the
 * browser: a static server, a project whose DSN reaches the test server, and the event a click
 * makes the SDK send, once stored.
 */
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { crc32 } from 'node:zlib';
import type { BrowserContext } from 'playwright-core';
import SentryCliV2 from 'sentry-cli-v2';
import type { TestApp } from './app';
import { ServedEvent, storedEvent } from './queues';

/** sentry-cli 3.x (the `@sentry/cli` dependency) and 2.x (the `sentry-cli-v2` alias the bundler plugins use). */
export const SENTRY_CLI = {
  '3.x': join(__dirname, '../../node_modules/@sentry/cli-linux-x64/bin/sentry-cli'),
  '2.x': SentryCliV2.getPath(),
} as const;
export type CliVersion = keyof typeof SENTRY_CLI;

export interface CliResult {
  code: number;
  /** stdout and stderr together: sentry-cli prints progress on stderr and reports on stdout. */
  output: string;
}

export interface CliEnv {
  url: string;
  token: string;
  project: string;
  home: string;
}

/** Runs one sentry-cli process with nothing from the host environment but PATH (no proxies, no ~/.sentryclirc). */
export function runSentryCli(version: CliVersion, args: string[], env: CliEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      SENTRY_CLI[version],
      args,
      {
        cwd: env.home,
        timeout: 30_000,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: env.home,
          SENTRY_URL: env.url,
          SENTRY_AUTH_TOKEN: env.token,
          SENTRY_ORG: 'default',
          SENTRY_PROJECT: env.project,
          SENTRY_LOG_LEVEL: 'info',
          SENTRY_DISABLE_UPDATE_CHECK: '1',
          NO_PROXY: '*',
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/**
 * Two TypeScript modules (a cart whose checkout throws, and an entry point calling it) bundled and
 * minified into `<dir>/dist/main.js` with an external `main.js.map` that carries `sourcesContent`.
 */
export async function buildApp(dir: string): Promise<{ dist: string; js: string; map: string }> {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(
    join(dir, 'src/cart.ts'),
    [
      'export interface Item { sku: string; quantity: number }',
      'export function checkout(items: Item[]): number {',
      "  if (items.length === 0) throw new Error('Cart is empty');",
      '  return items.reduce((sum, item) => sum + item.quantity, 0);',
      '}',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'src/main.ts'),
    [
      "import { checkout } from './cart';",
      'export function run(): number {',
      '  return checkout([]);',
      '}',
      'run();',
      '',
    ].join('\n'),
  );
  const dist = join(dir, 'dist');
  await build({
    entryPoints: [join(dir, 'src/main.ts')],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    format: 'iife',
    outfile: join(dist, 'main.js'),
    logLevel: 'silent',
  });
  return { dist, js: join(dist, 'main.js'), map: join(dist, 'main.js.map') };
}

/** The debug id `sentry-cli sourcemaps inject` wrote into a source map (3.x writes `debugId`, 2.x `debug_id`). */
export async function injectedDebugId(mapPath: string): Promise<string> {
  const map = JSON.parse(await readFile(mapPath, 'utf8')) as { debugId?: string; debug_id?: string };
  const id = map.debugId ?? map.debug_id;
  if (!id) throw new Error(`no debug id in ${mapPath}`);
  return id;
}

export function sha1(data: Buffer): string {
  return createHash('sha1').update(data).digest('hex');
}

export interface ZipEntry {
  name: string;
  /** Bytes as stored in the archive: plain for method 0, raw DEFLATE for method 8. */
  stored: Buffer;
  method: 0 | 8;
  /** What the headers declare; for a stored entry, its length and checksum. */
  size: number;
  crc: number;
}

export function storedEntry(name: string, data: Buffer | string): ZipEntry {
  const bytes = Buffer.from(data);
  return { name, stored: bytes, method: 0, size: bytes.length, crc: crc32(bytes) };
}

/**
 * A ZIP archive: per entry a local file header and its data, then the central directory and the
 * end-of-central-directory record (no ZIP64, no data descriptors, timestamps 1980-01-01 like
 * sentry-cli's). With `prefix`, the bytes come first and every offset counts them, as in the
 * `SYSB` + version header sentry-cli puts before its bundles.
 */
export function zip(entries: ZipEntry[], prefix: Buffer = Buffer.alloc(0)): Buffer {
  const DOS_DATE_1980_01_01 = 0x21;
  const parts: Buffer[] = [prefix];
  const central: Buffer[] = [];
  let offset = prefix.length;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header signature
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt16LE(0, 10); // time 00:00
    local.writeUInt16LE(DOS_DATE_1980_01_01, 12);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.stored.length, 18); // compressed size
    local.writeUInt32LE(entry.size, 22); // uncompressed size
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // extra field length
    parts.push(local, name, entry.stored);

    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0); // central directory header signature
    header.writeUInt16LE(20, 4); // version made by
    header.writeUInt16LE(20, 6); // version needed
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(entry.method, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(DOS_DATE_1980_01_01, 14);
    header.writeUInt32LE(entry.crc >>> 0, 16);
    header.writeUInt32LE(entry.stored.length, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(name.length, 28);
    // extra length, comment length, disk number, internal and external attributes: all zero
    header.writeUInt32LE(offset, 42); // where this entry's local header starts
    central.push(header, name);
    offset += local.length + name.length + entry.stored.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory signature
  end.writeUInt16LE(entries.length, 8); // entries on this disk
  end.writeUInt16LE(entries.length, 10); // entries in total
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16); // where the central directory starts
  return Buffer.concat([...parts, directory, end]);
}

/** sentry-cli's artifact bundle header: magic `SYSB`, then format version 2 (u32 LE). */
export const BUNDLE_PREFIX = Buffer.from([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0]);

export interface BundleFile {
  type: 'minified_source' | 'source_map' | 'source';
  url: string;
  headers?: Record<string, string>;
  /** The file's bytes; a ready entry (e.g. a deflated one) instead; neither: the archive lacks the file. */
  data?: Buffer | string | Omit<ZipEntry, 'name'>;
}

/**
 * An artifact bundle as sentry-cli builds one (§3.3 of the protocol notes): `files/_/_/<name>`
 * entries for `~/<name>` URLs, a `manifest.json` describing them, behind the `SYSB` header.
 */
export function artifactBundle(
  files: BundleFile[],
  top: { debug_id?: string; release?: string; dist?: string } = {},
): Buffer {
  const manifest: Record<string, unknown> = {};
  const entries: ZipEntry[] = [];
  for (const file of files) {
    const path = `files/_/_/${file.url.replace(/^~\//, '')}`;
    manifest[path] = { type: file.type, url: file.url, ...(file.headers ? { headers: file.headers } : {}) };
    if (typeof file.data === 'string' || Buffer.isBuffer(file.data))
      entries.push(storedEntry(path, file.data));
    else if (file.data) entries.push({ name: path, ...file.data });
  }
  entries.push(storedEntry('manifest.json', JSON.stringify({ files: manifest, org: 'default', ...top })));
  return zip(entries, BUNDLE_PREFIX);
}

export interface StaticServer {
  url: string;
  close: () => Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json',
};

/** Serves the files of `root` on 127.0.0.1 at a random port, as a CDN would (GET only, 404 otherwise). */
export async function serveDirectory(root: string): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
    const file = join(root, path === '/' ? 'index.html' : path);
    stat(file).then(
      (info) => {
        if (!info.isFile() || !file.startsWith(root)) throw new Error('not a file');
        response.writeHead(200, {
          'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          'Content-Length': info.size,
          'Cache-Control': 'no-store',
        });
        createReadStream(file).pipe(response);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where `needle` starts in `text`: 1-based line and column, as a browser's stack trace gives them. */
export function positionOf(text: string, needle: RegExp): { lineno: number; colno: number } {
  const match = needle.exec(text);
  if (!match) throw new Error(`${needle} not found`);
  const before = text.slice(0, match.index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { lineno: before.split('\n').length, colno: match.index - lineStart + 1 };
}

export interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
}

export interface ExceptionValue {
  type: string;
  value: string;
  stacktrace: { frames: Frame[] };
  raw_stacktrace?: { frames: Frame[] } | null;
}

/** A stored event of a browser app: its exception, why frames were left as sent, the debug ids it had. */
export type ShopEvent = ServedEvent & {
  exception: { values: ExceptionValue[] };
  errors?: { type: string; url?: string; debug_id?: string; detail?: string }[] | null;
  debug_meta?: { images: { type: string; code_file: string; debug_id: string }[] } | null;
};

/** What the SDK sent, and what the server stored of it. */
export interface Reported {
  sent: Record<string, unknown> & { debug_meta?: { images: { code_file: string; debug_id: string }[] } };
  event: ShopEvent;
  exception: ExceptionValue;
}

/** The innermost frame (the last one) that `where` accepts. */
export function innermost(frames: Frame[], where: (frame: Frame) => boolean = () => true): Frame {
  const found = [...frames].reverse().find(where);
  if (!found) throw new Error(`no such frame in ${JSON.stringify(frames)}`);
  return found;
}

/** A new project, with its DSN pointed at the test server (the configured public URL is not it). */
export async function createProject(
  t: Pick<TestApp, 'api' | 'port'>,
  name: string,
): Promise<{ id: number; slug: string; dsn: string }> {
  const created = (await t.api().post('/api/projects').send({ name }).expect(201)).body;
  const { dsn } = (await t.api().get(`/api/projects/${created.id}`).expect(200)).body as { dsn: string };
  return {
    id: created.id,
    slug: created.slug,
    dsn: dsn.replace(/\/\/([^@]+)@[^/]+/, `//$1@127.0.0.1:${t.port}`),
  };
}

/**
 * Opens `pageUrl` in a new page of `context`, clicks the button named `button`, which must throw
 * `thrown` uncaught, and returns the event the SDK sent for it to `projectId` once the server has
 * stored it (one exception, an Error with that message).
 */
export async function clickAndReport(
  context: BrowserContext,
  t: Pick<TestApp, 'api' | 'url'>,
  options: { pageUrl: string; projectId: number; button: string; thrown: string },
): Promise<Reported> {
  const page = await context.newPage();
  try {
    await page.goto(options.pageUrl);
    const thrown = page.waitForEvent('pageerror');
    const envelope = page.waitForRequest(
      (request) =>
        request.url().startsWith(`${t.url}/api/${options.projectId}/envelope/`) &&
        /"type":"event"/.test(request.postData() ?? ''),
    );
    await page.getByRole('button', { name: options.button }).click();
    expect((await thrown).message).toBe(options.thrown);
    const request = await envelope;
    expect((await request.response())?.status()).toBe(200);
    const lines = (request.postData() as string).split('\n');
    const itemAt = lines.findIndex((line) => /"type":"event"/.test(line));
    const sent = JSON.parse(lines[itemAt + 1]) as Reported['sent'];
    const event = (await storedEvent(t, JSON.parse(lines[0]).event_id, 20_000)) as ShopEvent;
    expect(event.project_id).toBe(options.projectId);
    const values = event.exception.values;
    expect(values).toHaveLength(1);
    expect(values[0]).toMatchObject({ type: 'Error', value: options.thrown });
    return { sent, event, exception: values[0] };
  } finally {
    await page.close();
  }
}

/*
 * The shop app of the browser source map tests: the module that throws is the same in every build,
 * and so is the frame it must resolve to.
 */

export const THROWN = 'Cart is empty';

/** The module that throws; line numbers below are 1-based lines of this file. */
export const CART_TS = [
  'export interface Item {',
  '  sku: string;',
  '  quantity: number;',
  '}',
  '',
  'export function checkout(items: Item[]): number {',
  '  if (items.length === 0) {',
  `    throw new Error('${THROWN}');`,
  '  }',
  '  return items.reduce((sum, item) => sum + item.quantity, 0);',
  '}',
  '',
];
export const THROW_LINE = 8;

/** The shop's page, loading its script with `scriptTag`. */
export function shopIndexHtml(scriptTag: string): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>Shop</title></head>',
    '<body>',
    '  <button id="checkout" type="button">Check out</button>',
    '  <output id="total"></output>',
    `  ${scriptTag}`,
    '</body>',
    '</html>',
    '',
  ];
}

/** The resolved cart.ts frame, wherever a bundle put it. */
export const CHECKOUT_FRAME = {
  filename: 'src/cart.ts',
  abs_path: 'src/cart.ts',
  function: 'checkout',
  lineno: THROW_LINE,
  colno: CART_TS[THROW_LINE - 1].indexOf('new Error') + 1,
  in_app: true,
  pre_context: CART_TS.slice(THROW_LINE - 6, THROW_LINE - 1),
  context_line: `    throw new Error('${THROWN}');`,
  post_context: CART_TS.slice(THROW_LINE, THROW_LINE + 5),
};
