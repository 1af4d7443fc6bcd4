import { SourceMapThread } from './source-map-thread';

/** `function checkout(items){\n  throw new Error("empty")\n}` minified to one line. */
const MAP = JSON.stringify({
  version: 3,
  sources: ['src/cart.ts'],
  sourcesContent: ['export function checkout(items: string[]) {\n  throw new Error("empty");\n}\n'],
  names: [],
  mappings: 'AAAO,SAAS,SAAS,CAAC,KAAe,CAAC,CAC/C,MAAM,IAAI,KAAK,CAAC,OAAO,CAAC,CAAC',
});

describe('SourceMapThread', () => {
  const thread = new SourceMapThread(16 * 1024 * 1024);
  afterAll(() => thread.close());

  it('loads a map once for all the lookups that wait for it, and answers each', async () => {
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return Buffer.from(MAP);
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => thread.resolve('map-1', [{ line: 1, column: 44 }], load)),
    );
    expect(loads).toBe(1);
    for (const answer of answers) {
      expect(answer).toEqual({
        frames: [expect.objectContaining({ path: 'src/cart.ts', line: 2, function: 'checkout' })],
      });
    }
    // Parsed in the thread now: no more loads.
    await thread.resolve('map-1', [{ line: 1, column: 1 }], load);
    expect(loads).toBe(1);
  });

  it('answers an error for a map that cannot be read, and keeps working', async () => {
    expect(
      await thread.resolve('broken', [{ line: 1, column: 1 }], async () => Buffer.from('{"version":3,')),
    ).toEqual({
      error: 'the source map is not JSON',
    });
    expect(await thread.resolve('map-1', [{ line: 1, column: 44 }], async () => Buffer.from(MAP))).toEqual({
      frames: [expect.objectContaining({ path: 'src/cart.ts' })],
    });
  });
  it('gives up on a map that ends the thread, and answers the lookups that were queued behind it', async () => {
    // Heap room for the cache and 64 MB (the thread compiles its own TypeScript here).
    const small = new SourceMapThread(1024 * 1024, { parseHeadroomMb: 64 });
    try {
      const load = async () => Buffer.from(MAP);
      expect(await small.resolve('map-1', [{ line: 1, column: 44 }], load)).toHaveProperty('frames');

      let queuedBehind: Promise<unknown> | undefined;
      const huge = small.resolve('huge', [{ line: 1, column: 1 }], async () => {
        // Asked once the huge map is on its way, so the thread holds this lookup when it dies.
        setTimeout(() => {
          queuedBehind = small.resolve('map-1', [{ line: 1, column: 44 }], load);
        }, 0);
        // 40 MB of mappings decode into millions of small arrays: the heap fills gradually, which
        // ends the thread (one allocation past the limit would end the process, hence the 64 MiB cap).
        return Buffer.from(
          JSON.stringify({ version: 3, sources: ['a.js'], mappings: 'AAAA;'.repeat(8 << 20) }),
        );
      });
      expect(await huge).toEqual({ error: expect.stringContaining('the source map thread') });
      expect(await queuedBehind).toEqual({
        frames: [expect.objectContaining({ path: 'src/cart.ts', line: 2, function: 'checkout' })],
      });
      // Not tried again for a while, without loading it.
      expect(
        await small.resolve('huge', [{ line: 1, column: 1 }], async () => {
          throw new Error('loaded again');
        }),
      ).toEqual({ error: expect.stringContaining('given up on') });
    } finally {
      await small.close();
    }
  }, 30_000);
});
