/**
 * The grouping corpus: real SDK payloads (payloads/<sdk>/<case>.json, captured by capture/capture.ts)
 * and hand-written hostile ones (payloads/hostile/), each with a checked-in snapshot of what it
 * groups into (snapshots/<sdk>.json). src/digest/grouping-corpus.spec.ts compares the two.
 *
 * A snapshot records the GROUPING_VERSION it was made with. Keys and components may only change
 * together with that version: a change of grouping moves events to other issues, and the version
 * (hashed into every key) is what keeps old and new keys apart. Titles, messages and culprits are
 * shown, not hashed, so they may change without a bump (the snapshots are still regenerated).
 *
 *   npm run corpus:snapshots       rewrites the snapshots (UPDATE_GROUPING_SNAPSHOTS=1 with jest
 *                                  does the same), refusing while keys changed at the same version
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { normaliseEvent, parseEventPayload } from '../../src/digest/event-normaliser';
import { GROUPING_VERSION, groupEvent } from '../../src/digest/grouping';

export const PAYLOADS = join(__dirname, 'payloads');
export const SNAPSHOTS = join(__dirname, 'snapshots');
const UPDATE_HINT =
  'npm run corpus:snapshots (or UPDATE_GROUPING_SNAPSHOTS=1 npx jest src/digest/grouping-corpus.spec.ts)';

/** The receive time grouping is computed at: it only bounds timestamps, which grouping never reads. */
const RECEIVED_AT = Date.parse('2026-01-01T00:00:00Z');
const FALLBACK_EVENT_ID = '00000000-0000-4000-8000-000000000000';

export interface CorpusPayload {
  sdk: string;
  name: string;
  /** The payload file's text, as the digest receives an event item. */
  text: string;
  payload: Record<string, unknown>;
}

export interface Grouping {
  key: string;
  components: string[];
  type: string;
  title: string;
  message: string;
  culprit: string;
}

export interface Snapshot extends Grouping {
  /** Of the payload's JSON (parsed and serialised again, so formatting does not count). */
  payload_sha256: string;
}

export interface SnapshotFile {
  grouping_version: string;
  cases: Record<string, Snapshot>;
}

export function loadPayloads(): CorpusPayload[] {
  const payloads: CorpusPayload[] = [];
  for (const sdk of readdirSync(PAYLOADS).sort()) {
    for (const file of readdirSync(join(PAYLOADS, sdk)).sort()) {
      if (!file.endsWith('.json')) continue;
      const text = readFileSync(join(PAYLOADS, sdk, file), 'utf8');
      payloads.push({ sdk, name: file.slice(0, -'.json'.length), text, payload: parseEventPayload(text) });
    }
  }
  return payloads;
}

/**
 * What the digest computes for an event item (DigestService.prepare): the payload normalised, then
 * grouped. The step between them, applying uploaded source maps, changes nothing here: the corpus
 * is grouped as in a project without source maps.
 */
export function groupingOf(payload: Record<string, unknown>, receivedAt = RECEIVED_AT): Grouping {
  const eventId = typeof payload.event_id === 'string' ? payload.event_id : FALLBACK_EVENT_ID;
  const { key, components, type, title, message, culprit } = groupEvent(
    normaliseEvent(payload, { eventId, receivedAt }),
  );
  return { key, components, type, title, message, culprit };
}

export function snapshotOf(corpusPayload: CorpusPayload): Snapshot {
  const payload_sha256 = createHash('sha256').update(JSON.stringify(corpusPayload.payload)).digest('hex');
  return { payload_sha256, ...groupingOf(corpusPayload.payload) };
}

export function readSnapshots(): Map<string, SnapshotFile> {
  const files = new Map<string, SnapshotFile>();
  if (!existsSync(SNAPSHOTS)) return files;
  for (const file of readdirSync(SNAPSHOTS).sort()) {
    if (!file.endsWith('.json')) continue;
    files.set(file.slice(0, -'.json'.length), JSON.parse(readFileSync(join(SNAPSHOTS, file), 'utf8')));
  }
  return files;
}

type Difference =
  | 'no snapshot'
  | 'payload changed'
  | 'payload removed'
  | 'grouping version changed'
  | 'grouping changed'
  | 'title, message or culprit changed';

export interface Comparison {
  /** `<sdk>/<case>` → why its snapshot is not what the code computes now; empty when all match. */
  differences: Map<string, Difference>;
  /** Snapshots of every payload as computed now, by SDK. */
  computed: Map<string, SnapshotFile>;
}

export function compare(payloads: CorpusPayload[], recorded: Map<string, SnapshotFile>): Comparison {
  const differences = new Map<string, Difference>();
  const computed = new Map<string, SnapshotFile>();
  for (const corpusPayload of payloads) {
    const file = computed.get(corpusPayload.sdk) ?? { grouping_version: GROUPING_VERSION, cases: {} };
    computed.set(corpusPayload.sdk, file);
    const now = snapshotOf(corpusPayload);
    file.cases[corpusPayload.name] = now;
    const id = `${corpusPayload.sdk}/${corpusPayload.name}`;
    const recordedFile = recorded.get(corpusPayload.sdk);
    const before = recordedFile?.cases[corpusPayload.name];
    if (!recordedFile || !before) differences.set(id, 'no snapshot');
    else if (before.payload_sha256 !== now.payload_sha256) differences.set(id, 'payload changed');
    else if (recordedFile.grouping_version !== GROUPING_VERSION)
      differences.set(id, 'grouping version changed');
    else if (before.key !== now.key || !sameList(before.components, now.components)) {
      differences.set(id, 'grouping changed');
    } else if (
      before.type !== now.type ||
      before.title !== now.title ||
      before.message !== now.message ||
      before.culprit !== now.culprit
    ) {
      differences.set(id, 'title, message or culprit changed');
    }
  }
  for (const [sdk, file] of recorded) {
    for (const name of Object.keys(file.cases)) {
      if (!computed.get(sdk)?.cases[name]) differences.set(`${sdk}/${name}`, 'payload removed');
    }
  }
  return { differences, computed };
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** Why the snapshots do not match, as the test and the update script report it; null when they do. */
export function explain(comparison: Comparison, options = { hint: true }): string | null {
  const byKind = new Map<Difference, string[]>();
  for (const [id, kind] of comparison.differences) byKind.set(kind, [...(byKind.get(kind) ?? []), id]);
  if (byKind.size === 0) return null;
  const lines: string[] = [];
  const changed = byKind.get('grouping changed');
  if (changed) {
    lines.push(
      `Grouping changed for these payloads, and GROUPING_VERSION is still '${GROUPING_VERSION}', the version their snapshots were made with:`,
      ...changed.map((id) => `  ${id}`),
      'A change of grouping moves events to other issues and needs a GROUPING_VERSION bump (src/digest/grouping.ts)',
      `plus regenerated snapshots: ${UPDATE_HINT}. If the change was not meant, fix the grouping instead.`,
    );
  }
  for (const [kind, ids] of byKind) {
    if (kind === 'grouping changed') continue;
    if (kind === 'grouping version changed') {
      lines.push(
        `${ids.length} snapshot(s) were made at another GROUPING_VERSION than '${GROUPING_VERSION}'.`,
      );
      continue;
    }
    const shown = ids.length > 12 ? [...ids.slice(0, 12), `and ${ids.length - 12} more`] : ids;
    lines.push(`${kind}: ${shown.join(', ')}`);
  }
  if (!changed && options.hint) lines.push(`Regenerate the snapshots and review their diff: ${UPDATE_HINT}.`);
  return lines.join('\n');
}

/**
 * Rewrites the snapshot files from `comparison`, unless a key changed at the same grouping version
 * (then throws, writing nothing). Files of SDKs without payloads are removed.
 */
export function writeSnapshots(comparison: Comparison): void {
  const changed = [...comparison.differences].filter(([, kind]) => kind === 'grouping changed');
  if (changed.length > 0) {
    throw new Error(`Refusing to rewrite the grouping snapshots.\n${explain(comparison)}`);
  }
  mkdirSync(SNAPSHOTS, { recursive: true });
  for (const [sdk, file] of comparison.computed) {
    writeFileSync(
      join(SNAPSHOTS, `${sdk}.json`),
      `${withInvisiblesEscaped(JSON.stringify(file, null, 2))}\n`,
    );
  }
  for (const file of readdirSync(SNAPSHOTS)) {
    if (file.endsWith('.json') && !comparison.computed.has(file.slice(0, -'.json'.length))) {
      rmSync(join(SNAPSHOTS, file));
    }
  }
}

/** Bidirectional controls and zero-width characters written as `\\u` escapes: the same JSON, visible. */
function withInvisiblesEscaped(json: string): string {
  return json.replace(
    /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
