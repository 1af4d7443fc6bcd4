import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ArtifactBundlesRepository, StoredFileRef } from '../artifacts/artifact-bundles.repository';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import type { NormalisedEvent, ProcessingError, StackFrame } from '../events/normalised-event';
import { resolveReference, urlCandidates } from './frame-urls';
import { SourceMapThread } from './source-map-thread';

/** Where the map of a file was looked for and not found: said again in every event for a while. */
type Lookup = StoredFileRef | ProcessingError;

/**
 * How long what a lookup found (a map, or none) is remembered; uploads made meanwhile show after
 * this. A debug id names one build for good; a release name is often uploaded again (a redeploy).
 */
const FOUND_BY_DEBUG_ID_TTL_MS = 10 * 60_000;
const FOUND_BY_RELEASE_TTL_MS = 60_000;
const MISSING_TTL_MS = 30_000;
/** Maps bigger than this are not read (the thread's heap holds a few times a map's size). */
export const MAX_SYMBOLICATED_MAP_BYTES = 64 * 1024 * 1024;
/** A bundle's use is written down at most this often per process (retention keeps used bundles). */
const MARK_USED_EVERY_MS = 60 * 60_000;
/** Processing errors kept per event. */
const MAX_ERRORS = 20;

/** A frame of the event, where it sits, and the file it is in. */
interface FrameSlot {
  valueIndex: number;
  frameIndex: number;
  frame: StackFrame;
  url: string;
}

/**
 * Puts the original file, function, line, column and source lines into the frames of JavaScript
 * events from the source maps sentry-cli uploaded: by debug id (`debug_meta.images`, the bundle
 * manifest's `debug-id` headers) first, then by release + dist + URL (`~/path`). Runs in the digest
 * before grouping, so that the same bug in two builds is one issue. What cannot be resolved stays
 * as sent, and the event says why in `errors`; a broken map never fails the event.
 */
@Injectable()
export class JavaScriptSymbolicator implements OnApplicationShutdown {
  private readonly thread: SourceMapThread;
  private readonly lookups = new LRUCache<string, Lookup>({ max: 10_000 });
  private readonly markedUsed = new LRUCache<string, true>({ max: 10_000, ttl: MARK_USED_EVERY_MS });
  private readonly markLog = new RepeatedLog(new Logger('JavaScriptSymbolicator'), 60_000);

  constructor(
    private readonly artifacts: ArtifactBundlesRepository,
    config: AppConfig,
  ) {
    this.thread = new SourceMapThread(config.SOURCEMAP_CACHE_MB * 1024 * 1024);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.thread.close();
  }

  /** Rewrites the event's frames in place; database errors are thrown (the event is retried). */
  async symbolicate(projectId: number, event: NormalisedEvent): Promise<void> {
    const images = new Map(
      (event.debug_meta?.images ?? []).map((image) => [image.code_file, image.debug_id]),
    );
    const byRelease = event.platform === 'javascript' && event.release !== null;
    if (images.size === 0 && !byRelease) return;
    const slots = frameSlots(event);
    if (slots.length === 0) return;
    const urls = [...new Set(slots.map((slot) => slot.url))];
    const found = await this.findMaps(projectId, event, urls, images);
    const errors: ProcessingError[] = [];
    const resolved = new Map<FrameSlot, StackFrame>();
    for (const url of urls) {
      const lookup = found.get(url) as Lookup;
      if (!('id' in lookup)) {
        errors.push(lookup);
        continue;
      }
      if (lookup.size > MAX_SYMBOLICATED_MAP_BYTES) {
        errors.push({
          type: 'js_invalid_source_map',
          url,
          detail: `${lookup.url} is ${lookup.size} bytes, more than the ${MAX_SYMBOLICATED_MAP_BYTES} read`,
        });
        continue;
      }
      const mine = slots.filter((slot) => slot.url === url);
      let gone = false;
      const answer = await this.thread.resolve(
        lookup.id,
        mine.map((slot) => ({ line: slot.frame.lineno as number, column: slot.frame.colno as number })),
        async () => {
          const data = await this.artifacts.fileData(lookup.id);
          gone = data === undefined;
          return data ?? Buffer.from('null');
        },
      );
      if (gone) {
        // Deleted since it was looked up (by the API or retention): look again next time.
        this.forget(lookup.id);
        errors.push({ type: 'js_no_source_map', url, detail: `${lookup.url} was deleted` });
        continue;
      }
      if ('error' in answer) {
        errors.push({ type: 'js_invalid_source_map', url, detail: `${answer.error}: ${lookup.url}` });
        continue;
      }
      let outside = 0;
      answer.frames.forEach((original, index) => {
        const slot = mine[index];
        if (!original) {
          outside++;
          return;
        }
        resolved.set(slot, {
          ...slot.frame,
          filename: original.path,
          abs_path: original.path,
          function: original.function ?? slot.frame.function,
          lineno: original.line,
          colno: original.column,
          in_app: original.inApp,
          ...(original.contextLine === undefined
            ? {}
            : {
                pre_context: original.preContext,
                context_line: original.contextLine,
                post_context: original.postContext,
              }),
        });
      });
      if (outside > 0) {
        errors.push({
          type: 'js_invalid_source_map_location',
          url,
          detail: `${outside} frame(s) of ${url} point where ${lookup.url} maps nothing (a map of another build?)`,
        });
      }
    }
    applyResolved(event, resolved);
    if (errors.length > 0) event.errors = [...(event.errors ?? []), ...errors].slice(0, MAX_ERRORS);
    const bundles = [
      ...new Set(
        [...found.values()]
          .filter((lookup): lookup is StoredFileRef => 'id' in lookup)
          .map((ref) => ref.bundle_id),
      ),
    ];
    const unmarked = bundles.filter((bundle) => !this.markedUsed.has(bundle));
    if (unmarked.length === 0) return;
    for (const bundle of unmarked) this.markedUsed.set(bundle, true);
    // Noting use keeps bundles from expiring; it must never hold up or fail the event.
    this.artifacts.markUsed(unmarked).catch((error: unknown) => {
      for (const bundle of unmarked) this.markedUsed.delete(bundle);
      this.markLog.warn(
        'mark used',
        `could not note that source map bundles were used: ${(error as Error).message}`,
      );
    });
  }

  /** The map of each file URL, or why there is none. */
  private async findMaps(
    projectId: number,
    event: NormalisedEvent,
    urls: string[],
    images: Map<string, string>,
  ): Promise<Map<string, Lookup>> {
    const found = new Map<string, Lookup>();
    const release = event.platform === 'javascript' || images.size > 0 ? event.release : null;
    const debugKey = (debugId: string) => JSON.stringify([projectId, 'debug', debugId]);
    const releaseKey = (url: string) => JSON.stringify([projectId, 'release', release, event.dist, url]);

    const wanted = urls.filter(
      (url) => images.has(url) && !this.lookups.has(debugKey(images.get(url) as string)),
    );
    if (wanted.length > 0) {
      const maps = await this.artifacts.sourceMapsByDebugId(projectId, [
        ...new Set(wanted.map((url) => images.get(url) as string)),
      ]);
      for (const url of wanted) {
        const debugId = images.get(url) as string;
        const ref = maps.get(debugId);
        this.remember(
          debugKey(debugId),
          FOUND_BY_DEBUG_ID_TTL_MS,
          ref ?? {
            type: 'js_no_source_map',
            url,
            debug_id: debugId,
            detail: `no uploaded source map has the debug id ${debugId}`,
          },
        );
      }
    }
    const byRelease: string[] = [];
    for (const url of urls) {
      const debugId = images.get(url);
      const lookup = debugId === undefined ? undefined : this.lookups.get(debugKey(debugId));
      if (lookup && 'id' in lookup) found.set(url, lookup);
      else if (release) {
        const cached = this.lookups.get(releaseKey(url));
        if (cached) found.set(url, cached);
        else byRelease.push(url);
      } else {
        found.set(
          url,
          lookup ?? {
            type: 'js_no_source_map',
            url,
            detail: 'the event names no debug id for this file and no release',
          },
        );
      }
    }
    if (byRelease.length > 0 && release) {
      for (const [url, lookup] of await this.findByRelease(projectId, release, event.dist, byRelease)) {
        this.remember(releaseKey(url), FOUND_BY_RELEASE_TTL_MS, lookup);
        found.set(url, lookup);
      }
    }
    // Neither way found a map: say both why's.
    for (const url of urls) {
      const debugId = images.get(url);
      const byDebugId = debugId === undefined ? undefined : this.lookups.get(debugKey(debugId));
      const lookup = found.get(url);
      if (byDebugId && !('id' in byDebugId) && lookup && !('id' in lookup) && lookup !== byDebugId) {
        found.set(url, { ...lookup, debug_id: debugId, detail: `${byDebugId.detail}, and ${lookup.detail}` });
      }
    }
    return found;
  }

  /** Maps by release: the file at the frame's URL, then the map its `Sourcemap` header names (or `<url>.map`). */
  private async findByRelease(
    projectId: number,
    release: string,
    dist: string | null,
    urls: string[],
  ): Promise<Map<string, Lookup>> {
    const candidates = new Map(urls.map((url) => [url, urlCandidates(url)]));
    const all = [...new Set([...candidates.values()].flat())];
    const files = await this.artifacts.filesOfRelease(projectId, release, dist, [
      ...all,
      ...all.map((url) => `${url}.map`),
    ]);
    const result = new Map<string, Lookup>();
    const missingMaps = new Map<string, { url: string; bundle: string; mapUrl: string }>();
    for (const url of urls) {
      const names = candidates.get(url) as string[];
      const file = files.find((row) => names.includes(row.url) && row.file_type !== 'source_map');
      if (!file) {
        result.set(url, {
          type: 'js_no_source_map',
          url,
          detail: `no file uploaded for release ${release}${dist ? ` (dist ${dist})` : ''} is at ${names.find((name) => name.startsWith('~')) ?? url}`,
        });
        continue;
      }
      const mapUrl = resolveReference(
        file.url,
        file.source_map_ref ?? `${file.url.replace(/[?#].*$/s, '')}.map`,
      );
      const map = files.find(
        (row) => row.bundle_id === file.bundle_id && row.url === mapUrl && row.file_type === 'source_map',
      );
      if (map) result.set(url, map);
      else missingMaps.set(url, { url: file.url, bundle: file.bundle_id, mapUrl });
    }
    if (missingMaps.size > 0) {
      const maps = await this.artifacts.filesOfRelease(
        projectId,
        release,
        dist,
        [...missingMaps.values()].map((entry) => entry.mapUrl),
      );
      for (const [url, wanted] of missingMaps) {
        const map = maps.find(
          (row) =>
            row.bundle_id === wanted.bundle && row.url === wanted.mapUrl && row.file_type === 'source_map',
        );
        result.set(
          url,
          map ?? {
            type: 'js_no_source_map',
            url,
            detail: `${wanted.url} names the source map ${wanted.mapUrl}, which was not uploaded with it`,
          },
        );
      }
    }
    return result;
  }

  /** Drops what was remembered of a stored file that is gone. */
  private forget(fileId: string): void {
    for (const [key, lookup] of this.lookups.entries()) {
      if ('id' in lookup && lookup.id === fileId) this.lookups.delete(key);
    }
  }

  private remember(key: string, foundTtl: number, lookup: Lookup): void {
    this.lookups.set(key, lookup, { ttl: 'id' in lookup ? foundTtl : MISSING_TTL_MS });
  }
}

/** The frames that name a file and a position: what source maps can resolve. */
function frameSlots(event: NormalisedEvent): FrameSlot[] {
  const slots: FrameSlot[] = [];
  (event.exception?.values ?? []).forEach((value, valueIndex) => {
    (value.stacktrace?.frames ?? []).forEach((frame, frameIndex) => {
      const url = frame.abs_path ?? frame.filename;
      if (url && typeof frame.lineno === 'number' && typeof frame.colno === 'number') {
        slots.push({ valueIndex, frameIndex, frame, url });
      }
    });
  });
  return slots;
}

/** Puts resolved frames in place, keeping the frames as sent in `raw_stacktrace`. */
function applyResolved(event: NormalisedEvent, resolved: Map<FrameSlot, StackFrame>): void {
  const values = event.exception?.values ?? [];
  for (const [slot, frame] of resolved) {
    const value = values[slot.valueIndex];
    if (!value.stacktrace) continue;
    value.raw_stacktrace ??= { frames: value.stacktrace.frames.map((original) => ({ ...original })) };
    value.stacktrace.frames[slot.frameIndex] = frame;
  }
}
