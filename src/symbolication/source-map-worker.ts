import { LRUCache } from 'lru-cache';
import { parentPort, workerData } from 'node:worker_threads';
import {
  GeneratedPosition,
  InvalidSourceMapError,
  LoadedSourceMap,
  OriginalFrame,
} from './source-map-resolve';

/**
 * The thread that parses source maps and looks positions up in them, so that a huge map (whose
 * JSON.parse and decoding take as long as they take) never holds up the digest's event loop.
 * It keeps the parsed maps, least recently used out first, within the cache size it is given.
 */

export interface SourceMapRequest {
  id: number;
  /** The artifact file the map is, which is never changed once stored. */
  fileId: string;
  /** Sent when the thread answered `missing`: the map's bytes. */
  bytes?: Uint8Array;
  positions: GeneratedPosition[];
}

export type SourceMapReply =
  | { id: number; missing: true }
  | { id: number; error: string }
  | { id: number; frames: (OriginalFrame | null)[] };

/** What a parsed map is reckoned to weigh: its JSON text, the decoded mappings and source lines. */
const WEIGHT_PER_BYTE = 3;

type Cached = { map: LoadedSourceMap; size: number } | { error: string; size: number };

if (parentPort) {
  const port = parentPort;
  const { cacheBytes } = workerData as { cacheBytes: number };
  const cache = new LRUCache<string, Cached>({
    maxSize: cacheBytes,
    sizeCalculation: (entry) => Math.max(1, Math.min(entry.size, cacheBytes)),
  });
  port.on('message', (request: SourceMapRequest) => {
    let entry = cache.get(request.fileId);
    if (!entry && !request.bytes) {
      port.postMessage({ id: request.id, missing: true } satisfies SourceMapReply);
      return;
    }
    if (!entry) {
      const bytes = request.bytes as Uint8Array;
      try {
        entry = { map: LoadedSourceMap.parse(bytes), size: bytes.byteLength * WEIGHT_PER_BYTE };
      } catch (error) {
        const message =
          error instanceof InvalidSourceMapError ? error.message : `the source map cannot be read`;
        entry = { error: message, size: 64 };
      }
      cache.set(request.fileId, entry);
    }
    if ('error' in entry) {
      port.postMessage({ id: request.id, error: entry.error } satisfies SourceMapReply);
      return;
    }
    const map = entry.map;
    const frames = request.positions.map((position) => {
      try {
        return map.resolve(position);
      } catch {
        return null;
      }
    });
    port.postMessage({ id: request.id, frames } satisfies SourceMapReply);
  });
}
