import { strToU8, zipSync } from 'fflate';
import { InvalidBundleError, openArtifactBundle } from './artifact-bundle';
import { canonicalDebugId } from './debug-id';

const DEBUG_ID = 'DAA5C4AC25675C8C98E8382CA7452EA4';
const MAP = JSON.stringify({ version: 3, sources: ['src/cart.ts'], names: [], mappings: 'AAAA,SAASA' });

/** A bundle as sentry-cli writes it: `SYSB` + version 2, then the zip. */
function bundle(files: Record<string, string | Uint8Array>, manifest?: unknown): Buffer {
  const entries: Record<string, Uint8Array> = {};
  for (const [path, content] of Object.entries(files)) {
    entries[path] = typeof content === 'string' ? strToU8(content) : content;
  }
  if (manifest !== undefined) entries['manifest.json'] = strToU8(JSON.stringify(manifest));
  const header = Buffer.from([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0]);
  return Buffer.concat([header, Buffer.from(zipSync(entries))]);
}

const manifest = (files: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  files,
  org: 'default',
  ...extra,
});

async function read(bytes: Buffer, limits?: Parameters<typeof openArtifactBundle>[1]) {
  const opened = await openArtifactBundle(bytes, limits);
  try {
    const files = [];
    for await (const file of opened.files()) files.push(file);
    return { manifest: opened.manifest, files };
  } finally {
    opened.close();
  }
}

describe('artifact bundles', () => {
  it('reads the manifest and files of a sentry-cli bundle, debug ids canonical', async () => {
    const bytes = bundle(
      { 'files/_/_/app.min.js': 'function a(){throw new Error("x")}', 'files/_/_/app.min.js.map': MAP },
      manifest(
        {
          'files/_/_/app.min.js': {
            url: '~/app.min.js',
            type: 'minified_source',
            headers: { 'Debug-Id': DEBUG_ID, Sourcemap: 'app.min.js.map' },
          },
          'files/_/_/app.min.js.map': {
            url: '~/app.min.js.map',
            type: 'source_map',
            headers: { 'debug-id': DEBUG_ID },
          },
        },
        { release: 'web@1.0.0', dist: 'd1', debug_id: '5ef5cf3e-6564-5a37-926d-5e5ecb81a802' },
      ),
    );
    const { manifest: read1, files } = await read(bytes);
    expect(read1).toMatchObject({
      release: 'web@1.0.0',
      dist: 'd1',
      debugId: '5ef5cf3e-6564-5a37-926d-5e5ecb81a802',
    });
    expect(files.map(({ data, ...info }) => ({ ...info, text: data.toString() }))).toEqual([
      {
        path: 'files/_/_/app.min.js',
        url: '~/app.min.js',
        type: 'minified_source',
        debugId: 'daa5c4ac-2567-5c8c-98e8-382ca7452ea4',
        sourceMapRef: 'app.min.js.map',
        size: 34,
        text: 'function a(){throw new Error("x")}',
      },
      {
        path: 'files/_/_/app.min.js.map',
        url: '~/app.min.js.map',
        type: 'source_map',
        debugId: 'daa5c4ac-2567-5c8c-98e8-382ca7452ea4',
        sourceMapRef: null,
        size: MAP.length,
        text: MAP,
      },
    ]);
  });

  it('refuses what is not a zip', async () => {
    await expect(openArtifactBundle(Buffer.from('SYSB\x02\x00\x00\x00not a zip at all'))).rejects.toThrow(
      new InvalidBundleError(
        'the bundle is not a zip file (End of central directory record signature not found. Either not a zip file, or file is truncated.)',
      ),
    );
  });

  it('refuses a bundle without a manifest, or whose manifest names a file it does not hold', async () => {
    await expect(openArtifactBundle(bundle({ 'a.js': 'x' }))).rejects.toThrow(
      'the bundle has no manifest.json',
    );
    await expect(
      openArtifactBundle(
        bundle({ 'a.js': 'x' }, manifest({ '../../etc/passwd': { url: '~/a.js', type: 'source' } })),
      ),
    ).rejects.toThrow('manifest.json names ../../etc/passwd, which is not in the bundle');
  });

  it('refuses bad manifest entries: no url, unknown type, a debug id that is not a UUID', async () => {
    const one = (entry: unknown) => bundle({ 'a.js': 'x' }, manifest({ 'a.js': entry }));
    await expect(openArtifactBundle(one({ type: 'source' }))).rejects.toThrow('a.js needs a "url"');
    await expect(openArtifactBundle(one({ url: '~/a.js', type: 'binary' }))).rejects.toThrow(
      'unknown type "binary"',
    );
    await expect(openArtifactBundle(one({ url: '~/a.js', headers: { 'debug-id': 'nope' } }))).rejects.toThrow(
      'a.js has a debug-id that is not a UUID',
    );
  });

  it('takes the bundler plugins\' release "undefined" as none, and holds the manifest to the request\'s rules', async () => {
    const withManifest = (extra: Record<string, unknown>, url = '~/a.js') =>
      bundle({ 'a.js': 'x' }, manifest({ 'a.js': { url, type: 'source' } }, extra));
    const opened = await openArtifactBundle(withManifest({ release: 'undefined', dist: 'd1' }));
    expect(opened.manifest).toMatchObject({ release: null, dist: null });
    opened.close();
    await expect(openArtifactBundle(withManifest({ release: 'web/1.0' }))).rejects.toThrow(
      'manifest.json: release must be a string of 1 to 200 characters without /, line breaks or NUL',
    );
    await expect(openArtifactBundle(withManifest({ release: 'r'.repeat(201) }))).rejects.toThrow(
      'release must be',
    );
    await expect(openArtifactBundle(withManifest({ release: 'web', dist: 'd\u0000' }))).rejects.toThrow(
      'dist must be',
    );
    await expect(openArtifactBundle(withManifest({}, '~/a\u0000.js'))).rejects.toThrow('(no NUL)');
  });

  it('refuses a source map that is not JSON with mappings, naming it', async () => {
    const withMap = (text: string) =>
      bundle({ 'a.js.map': text }, manifest({ 'a.js.map': { url: '~/a.js.map', type: 'source_map' } }));
    await expect(read(withMap('{"version":3,'))).rejects.toThrow('a.js.map (~/a.js.map) is not a source map');
    await expect(read(withMap('{"version":3,"mappings":"A@@"}'))).rejects.toThrow('is not a source map');
    await expect(read(withMap('{"version":3,"sections":[]}'))).resolves.toBeDefined();
  });

  it('refuses files and bundles over the limits before inflating them (a zip bomb)', async () => {
    const zeros = new Uint8Array(5_000_000);
    const bomb = bundle({ 'a.js': zeros }, manifest({ 'a.js': { url: '~/a.js', type: 'source' } }));
    // Five megabytes of zeros deflate to a few kilobytes.
    expect(bomb.length).toBeLessThan(20_000);
    const limits = {
      maxFiles: 10,
      maxFileBytes: 1_000_000,
      maxTotalBytes: 2_000_000,
      maxManifestBytes: 10_000,
    };
    await expect(openArtifactBundle(bomb, limits)).rejects.toThrow(
      'a.js is 5000000 bytes, over the limit of 1000000',
    );
    const many = bundle(
      { 'a.js': new Uint8Array(900_000), 'b.js': new Uint8Array(900_000), 'c.js': new Uint8Array(900_000) },
      manifest({
        'a.js': { url: '~/a.js', type: 'source' },
        'b.js': { url: '~/b.js', type: 'source' },
        'c.js': { url: '~/c.js', type: 'source' },
      }),
    );
    await expect(openArtifactBundle(many, limits)).rejects.toThrow(
      "the bundle's files add up to 2700000 bytes",
    );
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, n) => [`f${n}.js`, 'x']));
    await expect(openArtifactBundle(bundle(files, manifest({})), limits)).rejects.toThrow(
      'more than 10 files',
    );
  });

  it('refuses an entry that inflates to more than it declares', async () => {
    const bytes = bundle(
      { 'a.js': new Uint8Array(100_000) },
      manifest({ 'a.js': { url: '~/a.js', type: 'source' } }),
    );
    // Lie in a.js's central directory entry (the first one): declare 1,000 bytes uncompressed.
    const aEntry = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    expect(bytes.toString('latin1', aEntry + 46, aEntry + 50)).toBe('a.js');
    bytes.writeUInt32LE(1_000, aEntry + 24);
    await expect(read(bytes)).rejects.toThrow(InvalidBundleError);
  });

  it('canonicalises debug ids', () => {
    expect(canonicalDebugId(DEBUG_ID)).toBe('daa5c4ac-2567-5c8c-98e8-382ca7452ea4');
    expect(canonicalDebugId('daa5c4ac-2567-5c8c-98e8-382ca7452ea4')).toBe(
      'daa5c4ac-2567-5c8c-98e8-382ca7452ea4',
    );
    expect(canonicalDebugId('daa5c4ac-2567')).toBeNull();
    expect(canonicalDebugId(42)).toBeNull();
  });
});
