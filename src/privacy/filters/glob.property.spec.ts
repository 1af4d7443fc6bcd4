import fc from 'fast-check';
import { growth } from '../../../test/helpers/relative-cost';
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
   * patterns like `*a*a*a*c?*b?` against `aaaa…bz`: every placement of the earlier stars is tried
   * again when the `c` is not found. Here eight times the text costs about eight times the time (a
   * quadratic matcher would take 64 times). The texts are lowercase already and go to
   * matchesFolded, so that only the matcher is timed (lowercasing a string of 160 KB allocates it
   * outside the young generation, which costs far more than the match). growth() times both sizes
   * in alternating batches and keeps the least of each, so that a busy machine weighs on both; the
   * cases are fixed, not generated, so that a failure is not shrunk by re-timing it for minutes.
   */
  it.each([
    [3, 'a'],
    [12, 'a'],
    [6, 'ab'],
    [12, 'aab'],
  ])('takes time linear in the text on adversarial inputs (%i stars of %s)', (stars, unit) => {
    const glob = compileGlob(`${`*${unit}`.repeat(stars)}*c?*b?`, { caseInsensitive: true });
    const textOf = (length: number) => `${unit.repeat(Math.ceil(length / unit.length))}bz`;
    const small = textOf(20_000);
    const large = textOf(160_000);
    expect(glob.matchesFolded(large)).toBe(false);
    expect(glob.matchesFolded(`${large}cxbz`)).toBe(true);
    expect(
      growth(
        () => glob.matchesFolded(small),
        () => glob.matchesFolded(large),
        32,
      ),
    ).toBeLessThan(32);
  });
});
