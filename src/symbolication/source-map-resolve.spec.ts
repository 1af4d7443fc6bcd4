import { LoadedSourceMap } from './source-map-resolve';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function mapOf(source: string, sourcePath = 'src/a.ts', names: string[] = []): Buffer {
  return Buffer.from(
    JSON.stringify({ version: 3, sources: [sourcePath], sourcesContent: [source], names, mappings: 'AAAAA' }),
  );
}

describe('LoadedSourceMap', () => {
  it('keeps what a map says storable: no NUL, no half of a surrogate pair, within the limits', () => {
    // An emoji across the cut at 500 units, and a NUL.
    const line = `${'x'.repeat(498)}😀${'y'.repeat(100)}\u0000`;
    const map = LoadedSourceMap.parse(
      mapOf(`${line}\nconst b = 1;`, `src/${'d'.repeat(2000)}\u0000.ts`, ['f\u0000n']),
    );
    const frame = map.resolve({ line: 1, column: 1 });
    expect(frame?.contextLine).toBe(`${'x'.repeat(498)}…`);
    expect(frame?.postContext).toEqual(['const b = 1;']);
    expect(frame?.path.length).toBeLessThanOrEqual(1024);
    for (const text of [frame?.contextLine, frame?.path, frame?.function ?? ''])
      expect(text?.includes('\u0000')).toBe(false);
    expect(JSON.stringify(frame)).not.toMatch(LONE_SURROGATE);
  });

  it('answers null where the map maps nothing, and refuses what is not a map', () => {
    const map = LoadedSourceMap.parse(mapOf('const a = 1;'));
    expect(map.resolve({ line: 40, column: 1 })).toBeNull();
    expect(() => LoadedSourceMap.parse(Buffer.from('[]'))).toThrow('cannot be read');
    expect(() => LoadedSourceMap.parse(Buffer.from('nope'))).toThrow('the source map is not JSON');
  });
});
