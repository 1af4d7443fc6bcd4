import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { compileGlob } from './glob';

/** What the glob means, written the slow and obvious way, to check the fast matcher against. */
function reference(pattern: string, text: string): boolean {
  const memo = new Map<string, boolean>();
  const go = (p: number, t: number): boolean => {
    const key = `${p},${t}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === pattern.length) result = t === text.length;
    else if (pattern[p] === '*') result = go(p + 1, t) || (t < text.length && go(p, t + 1));
    else if (t === text.length) result = false;
    else result = (pattern[p] === '?' || pattern[p] === text[t]) && go(p + 1, t + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

function cpuTime(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

describe('glob matching', () => {
  it('agrees with the definition on generated patterns and texts', () => {
    const letters = fc.constantFrom('a', 'b', '*', '?');
    fc.assert(
      fc.property(
        fc.string({ unit: letters, minLength: 1, maxLength: 12 }),
        fc.string({ unit: fc.constantFrom('a', 'b'), maxLength: 20 }),
        (pattern, text) => {
          expect(compileGlob(pattern, { caseInsensitive: false }).matches(text)).toBe(
            reference(pattern, text),
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });

  /**
   * A backtracking matcher takes time exponential (or polynomial of high degree) in the text on
   * patterns like `*a*a*a*…b` against `aaaa…`. Here eight times the text costs about eight times
   * the time: the bound is generous (a quadratic matcher would take 64 times), and the smallest of
   * several runs is compared, so a busy machine does not make it fail.
   */
  it('takes time linear in the text on adversarial inputs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 12 }), fc.constantFrom('a', 'ab', 'aab'), (stars, unit) => {
        const glob = compileGlob(`${`*${unit}`.repeat(stars)}*b?`, { caseInsensitive: true });
        const timeFor = (length: number) => {
          const text = unit.replace(/b/g, 'a').repeat(Math.ceil(length / unit.length));
          let best = Infinity;
          for (let run = 0; run < 5; run++) {
            best = Math.min(
              best,
              cpuTime(() => {
                for (let i = 0; i < 20; i++) glob.matches(text);
              }),
            );
          }
          return best;
        };
        const small = timeFor(20_000);
        const large = timeFor(160_000);
        expect(large).toBeLessThan(Math.max(small, 0.5) * 24);
      }),
      { numRuns: 10 },
    );
  });
});
