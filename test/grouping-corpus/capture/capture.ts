/**
 * Regenerates the real-SDK payloads of the grouping corpus (test/grouping-corpus/payloads/<sdk>/).
 *
 *   npm run corpus:capture                 every SDK this machine can run
 *   npm run corpus:capture -- python go    only these
 *
 * Not part of CI: the payloads are checked in, and src/digest/grouping-corpus.spec.ts reads them.
 * Each SDK's program (apps/<sdk>/, driven by sdks.ts) raises real errors and sends one event per
 * case, tagged `corpus_case`, to a recording server on 127.0.0.1 (server.ts); nothing leaves the
 * machine. Each event item is stored as the SDK sent it, volatile fields (ids, timestamps, hosts,
 * paths) included, less the bulky parts grouping never reads (see `trim`). The hand-written
 * payloads under payloads/hostile/ are not touched.
 *
 * What the SDKs need: @sentry/node and @sentry/browser 10 and both sentry-cli versions come with
 * node_modules; the browser SDK runs in Debian's Chromium (/usr/bin/chromium or CHROMIUM_PATH);
 * the others are Debian 12 packages:
 *
 *   apt-get install -y chromium ruby python3-sentry-sdk ruby-sentry-ruby golang-go \
 *     golang-github-getsentry-sentry-go-dev
 *
 * An SDK whose tools are missing is skipped with a message, its payloads left as they are. After a
 * capture, `npm run corpus:snapshots` records what the new payloads group into.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CaptureServer, CapturedEvent } from './server';
import { removeScratch, SDKS } from './sdks';

const PAYLOADS = join(__dirname, '..', 'payloads');

/** Frame fields grouping never reads that can make a payload large: locals and source lines. */
const BULKY_FRAME_FIELDS = ['vars', 'pre_context', 'post_context'];
/** Event fields grouping never reads that can make a payload large. */
const BULKY_EVENT_FIELDS = ['modules', 'breadcrumbs', 'debug_meta', 'spans'];

/**
 * What is kept of a captured payload: everything but the bulky parts that grouping and normalising
 * never turn into a grouping component (the installed packages, breadcrumbs, frame locals and the
 * source lines around each frame; `context_line` stays, so a frame still shows its line).
 */
export function trim(payload: Record<string, unknown>): Record<string, unknown> {
  const trimmed: Record<string, unknown> = { ...payload };
  for (const field of BULKY_EVENT_FIELDS) delete trimmed[field];
  const stacktraces: unknown[] = [trimmed.stacktrace, trimmed.threads];
  const exception = trimmed.exception as { values?: unknown[] } | unknown[] | undefined;
  const exceptions = Array.isArray(exception) ? exception : (exception?.values ?? []);
  for (const value of exceptions) stacktraces.push((value as { stacktrace?: unknown })?.stacktrace);
  const threads = (trimmed.threads as { values?: { stacktrace?: unknown }[] } | undefined)?.values ?? [];
  for (const thread of threads) stacktraces.push(thread.stacktrace);
  for (const stacktrace of stacktraces) {
    const frames = (stacktrace as { frames?: unknown })?.frames;
    if (!Array.isArray(frames)) continue;
    for (const frame of frames) {
      for (const field of BULKY_FRAME_FIELDS) delete (frame as Record<string, unknown>)[field];
    }
  }
  return trimmed;
}

function caseOf(event: CapturedEvent): string {
  const tags = event.payload.tags;
  const value = Array.isArray(tags)
    ? (tags.find((pair) => Array.isArray(pair) && pair[0] === 'corpus_case') as unknown[] | undefined)?.[1]
    : (tags as Record<string, unknown> | undefined)?.corpus_case;
  if (typeof value !== 'string' || !/^[a-z0-9-]+$/.test(value)) {
    throw new Error(
      `an event without a usable corpus_case tag: ${JSON.stringify(event.payload).slice(0, 300)}`,
    );
  }
  return value;
}

async function store(sdk: string, events: CapturedEvent[]): Promise<string[]> {
  const byCase = new Map<string, CapturedEvent>();
  for (const event of events) {
    const name = caseOf(event);
    if (byCase.has(name)) throw new Error(`${sdk}: two events for case ${name}`);
    byCase.set(name, event);
  }
  const dir = join(PAYLOADS, sdk);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [name, event] of byCase) {
    await writeFile(join(dir, `${name}.json`), `${JSON.stringify(trim(event.payload), null, 2)}\n`);
  }
  return [...byCase.keys()].sort();
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !SDKS.some((sdk) => sdk.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown SDK(s) ${unknown.join(', ')}; known: ${SDKS.map((s) => s.name)}`);
  const server = await CaptureServer.start();
  let failed = false;
  try {
    for (const sdk of SDKS.filter((candidate) => wanted.length === 0 || wanted.includes(candidate.name))) {
      const missing = sdk.missing();
      if (missing) {
        console.warn(`${sdk.name}: skipped, ${missing}`);
        continue;
      }
      try {
        await sdk.run(server);
        if (server.problems.length > 0) throw new Error(`unreadable requests: ${server.problems.join('; ')}`);
        const cases = await store(sdk.name, server.take());
        console.log(`${sdk.name}: ${cases.length} payloads (${cases.join(', ')})`);
      } catch (error) {
        failed = true;
        console.error(
          `${sdk.name}: capture failed, its payloads left as they were: ${(error as Error).message}`,
        );
        server.take();
        server.problems.length = 0;
      }
    }
  } finally {
    await server.close();
    await removeScratch();
  }
  const sdks = (await readdir(PAYLOADS)).sort();
  console.log(`payload folders: ${sdks.join(', ')}`);
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
