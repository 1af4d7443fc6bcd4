import type { Readable } from 'node:stream';
import { Entry, fromBufferPromise, ZipFile } from 'yauzl';
import { canonicalDebugId } from './debug-id';
import { isSourceMapJson } from './source-map-check';

/**
 * Reading an artifact bundle: the zip sentry-cli builds (`SYSB` + version, then a zip whose offsets
 * count those 8 bytes, which zip readers that start from the end handle as they are), with a
 * `manifest.json` naming each file's URL, type and headers:
 *
 *   { "files": { "files/_/_/app.min.js": { "url": "~/app.min.js", "type": "minified_source",
 *       "headers": { "debug-id": "…", "sourcemap": "app.min.js.map" } }, … },
 *     "debug_id": "…", "org": "…", "project": "…", "release": "…", "dist": "…" }
 *
 * Nothing is trusted: sizes are checked against the limits before anything is inflated and while
 * inflating (an entry that inflates to more than it declares is cut off), the manifest must name
 * files the zip holds, and a source map must be JSON with mappings.
 */

export const BUNDLE_LIMITS = {
  /** Files in one bundle. */
  maxFiles: 10_000,
  /** One file, inflated. */
  maxFileBytes: 100 * 1024 * 1024,
  /** All files of a bundle, inflated. */
  maxTotalBytes: 512 * 1024 * 1024,
  maxManifestBytes: 16 * 1024 * 1024,
};

export type BundleLimits = typeof BUNDLE_LIMITS;

export const ARTIFACT_TYPES = ['minified_source', 'source_map', 'source', 'indexed_ram_bundle'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** Why a bundle was refused, in words for the uploader (sentry-cli prints it). */
export class InvalidBundleError extends Error {}

export interface BundleFileInfo {
  /** Its path in the zip. */
  path: string;
  /** Where the browser loaded it from, as the manifest says (`~/app.min.js`, `https://cdn/app.js`). */
  url: string;
  type: ArtifactType;
  debugId: string | null;
  /** The `Sourcemap` header of a minified file: its map's URL, relative to the file's. */
  sourceMapRef: string | null;
  size: number;
}

export interface BundleManifest {
  debugId: string | null;
  release: string | null;
  dist: string | null;
  files: BundleFileInfo[];
}

export interface OpenedBundle {
  manifest: BundleManifest;
  /** Each file of the manifest with its bytes, one at a time; source maps checked. */
  files(): AsyncGenerator<BundleFileInfo & { data: Buffer }>;
  close(): void;
}

/** Opens a bundle and reads and checks its manifest; its files are read by `files()`. */
export async function openArtifactBundle(
  bytes: Buffer,
  limits: BundleLimits = BUNDLE_LIMITS,
): Promise<OpenedBundle> {
  const { zip, entries } = await openZip(bytes, limits);
  try {
    const manifestEntry = entries.get('manifest.json');
    if (!manifestEntry) throw new InvalidBundleError('the bundle has no manifest.json');
    if (manifestEntry.uncompressedSize > limits.maxManifestBytes) {
      throw new InvalidBundleError(`manifest.json is larger than ${limits.maxManifestBytes} bytes`);
    }
    const manifestText = (await readEntry(zip, manifestEntry, limits.maxManifestBytes)).toString('utf8');
    const manifest = parseManifest(manifestText, entries);
    let total = 0;
    for (const file of manifest.files) {
      total += file.size;
      if (file.size > limits.maxFileBytes) {
        throw new InvalidBundleError(
          `${file.path} is ${file.size} bytes, over the limit of ${limits.maxFileBytes}`,
        );
      }
    }
    if (total > limits.maxTotalBytes) {
      throw new InvalidBundleError(
        `the bundle's files add up to ${total} bytes, over the limit of ${limits.maxTotalBytes}`,
      );
    }
    return {
      manifest,
      files: async function* () {
        for (const file of manifest.files) {
          const data = await readEntry(zip, entries.get(file.path) as Entry, limits.maxFileBytes);
          if (file.type === 'source_map' && !isSourceMapJson(data)) {
            throw new InvalidBundleError(
              `${file.path} (${file.url}) is not a source map: it is not JSON with "mappings"`,
            );
          }
          yield { ...file, data };
        }
      },
      close: () => zip.close(),
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}

const SOURCE_BUNDLE_MAGIC = Buffer.from('SYSB');

/**
 * Opens the zip and reads its directory. sentry-cli's bundles count their 8-byte header in the
 * zip's offsets; a zip merely prefixed with one does not, and is read from after the header.
 */
async function openZip(
  bytes: Buffer,
  limits: BundleLimits,
): Promise<{ zip: ZipFile; entries: Map<string, Entry> }> {
  const candidates = bytes.subarray(0, 4).equals(SOURCE_BUNDLE_MAGIC) ? [bytes, bytes.subarray(8)] : [bytes];
  let failure: Error | undefined;
  for (const candidate of candidates) {
    let zip: ZipFile | undefined;
    try {
      zip = await fromBufferPromise(candidate, {
        lazyEntries: true,
        validateEntrySizes: true,
        strictFileNames: true,
      });
      return { zip, entries: await readEntries(zip, limits) };
    } catch (error) {
      zip?.close();
      if (error instanceof InvalidBundleError) throw error;
      failure = error as Error;
    }
  }
  throw new InvalidBundleError(`the bundle is not a zip file (${failure?.message})`);
}

async function readEntries(zip: ZipFile, limits: BundleLimits): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  // Directories count too: a zip of millions of empty ones is as much work to walk.
  let seen = 0;
  for await (const entry of zip.eachEntry()) {
    if (++seen > limits.maxFiles + 1) {
      throw new InvalidBundleError(`the bundle holds more than ${limits.maxFiles} files`);
    }
    if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
  }
  return entries;
}

/** An entry's bytes; the reader stops an entry that inflates past what it declared (yauzl checks). */
async function readEntry(zip: ZipFile, entry: Entry, limit: number): Promise<Buffer> {
  if (entry.uncompressedSize > limit) {
    throw new InvalidBundleError(
      `${entry.fileName} is ${entry.uncompressedSize} bytes, over the limit of ${limit}`,
    );
  }
  try {
    const stream: Readable = await zip.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    let size = 0;
    for await (const part of stream) {
      size += (part as Buffer).length;
      if (size > limit) {
        stream.destroy();
        throw new InvalidBundleError(`${entry.fileName} inflates to more than ${limit} bytes`);
      }
      parts.push(part as Buffer);
    }
    return Buffer.concat(parts, size);
  } catch (error) {
    if (error instanceof InvalidBundleError) throw error;
    throw new InvalidBundleError(`${entry.fileName} cannot be read (${(error as Error).message})`);
  }
}

function parseManifest(text: string, entries: Map<string, Entry>): BundleManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new InvalidBundleError('manifest.json is not JSON');
  }
  if (!isRecord(raw) || !isRecord(raw.files)) {
    throw new InvalidBundleError('manifest.json has no "files" object');
  }
  const files: BundleFileInfo[] = [];
  for (const [path, value] of Object.entries(raw.files)) {
    const entry = entries.get(path);
    if (!entry) throw new InvalidBundleError(`manifest.json names ${path}, which is not in the bundle`);
    if (
      !isRecord(value) ||
      typeof value.url !== 'string' ||
      value.url === '' ||
      value.url.length > 2048 ||
      value.url.includes('\u0000')
    ) {
      throw new InvalidBundleError(`manifest.json: ${path} needs a "url" of 1 to 2048 characters (no NUL)`);
    }
    if (path.length > 2048 || path.includes('\u0000')) {
      throw new InvalidBundleError('the bundle names a file with a path over 2048 characters or with a NUL');
    }
    const type = typeof value.type === 'string' ? value.type : 'source';
    if (!(ARTIFACT_TYPES as readonly string[]).includes(type)) {
      throw new InvalidBundleError(`manifest.json: ${path} has an unknown type ${JSON.stringify(type)}`);
    }
    const headers = isRecord(value.headers) ? lowerCaseKeys(value.headers) : {};
    const debugIdHeader = headers['debug-id'];
    const debugId = debugIdHeader === undefined ? null : canonicalDebugId(debugIdHeader);
    if (debugIdHeader !== undefined && debugId === null) {
      throw new InvalidBundleError(`manifest.json: ${path} has a debug-id that is not a UUID`);
    }
    const ref = headers.sourcemap;
    // A reference that could never name a stored file is no reference.
    const sourceMapRef =
      typeof ref === 'string' && ref.length <= 2048 && !ref.includes('\u0000') ? ref : null;
    files.push({
      path,
      url: value.url,
      type: type as ArtifactType,
      debugId,
      sourceMapRef,
      size: entry.uncompressedSize,
    });
  }
  const release = manifestName(raw.release, 'release', 200);
  return {
    debugId: canonicalDebugId(raw.debug_id),
    release,
    // A dist means nothing without its release.
    dist: release === null ? null : manifestName(raw.dist, 'dist', 64),
    files,
  };
}

/** What the bundler plugins write as the release when they know none. */
export const NO_RELEASE = 'undefined';

/** A release or dist named by a manifest, held to the rules the upload request's are held to. */
function manifestName(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null || value === '' || value === NO_RELEASE) return null;
  if (typeof value !== 'string' || value.length > max || /[/\n\r]/.test(value) || value.includes('\u0000')) {
    throw new InvalidBundleError(
      `manifest.json: ${field} must be a string of 1 to ${max} characters without /, line breaks or NUL`,
    );
  }
  return value;
}

function lowerCaseKeys(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
