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
});
