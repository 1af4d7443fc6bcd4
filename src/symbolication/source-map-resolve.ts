import {
  FlattenMap,
  originalPositionFor,
  sourceContentFor,
  TraceMap,
  type SectionedSourceMapInput,
  type SourceMapInput,
} from '@jridgewell/trace-mapping';
import { truncate } from '../common/storable-text';
import { enclosingFunction } from './enclosing-function';
import { sourcePath } from './frame-urls';

/** Lines of source shown around a frame's line, each side. */
export const CONTEXT_LINES = 5;
/** Longer source lines (minified code that slipped into sourcesContent) are cut. */
const MAX_CONTEXT_LINE = 500;
/** What a map says is stored as an event's: within the normaliser's limits, and storable. */
const MAX_PATH = 1024;
const MAX_FUNCTION = 512;

/** A position in generated code, as a stack frame gives it: line and column both from 1. */
export interface GeneratedPosition {
  line: number;
  column: number;
}

/** Where a generated position came from in the original source. */
export interface OriginalFrame {
  /** The source as a frame names it (bundler prefixes dropped, see sourcePath). */
  path: string;
  line: number;
  column: number;
  /** The function the line is in, read from the source; else the map's name at the position. */
  function: string | null;
  preContext?: string[];
  contextLine?: string;
  postContext?: string[];
  /** False for library code (a node_modules path). */
  inApp: boolean;
}

/** A map that is not a source map (not JSON, wrong shape, mappings that do not decode). */
export class InvalidSourceMapError extends Error {}

/** A parsed source map, with its sources split into lines as they are asked for. */
export class LoadedSourceMap {
  private readonly lines = new Map<string, string[] | null>();

  private constructor(readonly map: TraceMap) {}

  static parse(bytes: Uint8Array): LoadedSourceMap {
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    } catch {
      throw new InvalidSourceMapError('the source map is not JSON');
    }
    if (typeof json !== 'object' || json === null)
      throw new InvalidSourceMapError('the source map is not a JSON object');
    try {
      const map =
        'sections' in json
          ? FlattenMap(json as SectionedSourceMapInput)
          : new TraceMap(json as SourceMapInput);
      // Decoding is lazy: find a broken map now, not on the first frame.
      originalPositionFor(map, { line: 1, column: 0 });
      return new LoadedSourceMap(map);
    } catch (error) {
      throw new InvalidSourceMapError(`the source map cannot be read (${(error as Error).message})`);
    }
  }

  /** The original position of a generated one, or null when the map has none there. */
  resolve(position: GeneratedPosition): OriginalFrame | null {
    if (!(position.line >= 1) || !(position.column >= 1)) return null;
    const original = originalPositionFor(this.map, { line: position.line, column: position.column - 1 });
    if (original.source === null || original.line === null || original.column === null) return null;
    const lines = this.sourceLines(original.source);
    const index = original.line - 1;
    const name = (lines && enclosingFunction(lines, index)) ?? original.name ?? null;
    const frame: OriginalFrame = {
      path: truncate(sourcePath(original.source), MAX_PATH),
      line: original.line,
      column: original.column + 1,
      function: name === null ? null : truncate(name, MAX_FUNCTION),
      inApp: !/(^|\/)node_modules\//.test(original.source),
    };
    if (lines && index < lines.length) {
      frame.preContext = lines.slice(Math.max(0, index - CONTEXT_LINES), index).map(clip);
      frame.contextLine = clip(lines[index]);
      frame.postContext = lines.slice(index + 1, index + 1 + CONTEXT_LINES).map(clip);
    }
    return frame;
  }

  private sourceLines(source: string): string[] | null {
    let lines = this.lines.get(source);
    if (lines === undefined) {
      const content = sourceContentFor(this.map, source);
      lines = content === null ? null : content.split(/\r\n|\r|\n/);
      this.lines.set(source, lines);
    }
    return lines;
  }
}

function clip(line: string): string {
  return truncate(line, MAX_CONTEXT_LINE);
}
