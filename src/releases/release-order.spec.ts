import { compareReleases, nextReleaseAfter, semanticVersionOf } from './release-order';

const at = (iso: string) => new Date(iso);

describe('release order', () => {
  it('reads the version after the package name, loosely', () => {
    expect(semanticVersionOf('shop@1.2.3')?.version).toBe('1.2.3');
    expect(semanticVersionOf('@scope/pkg@2.0.0-beta.1')?.version).toBe('2.0.0-beta.1');
    expect(semanticVersionOf('v1.2')?.version).toBe('1.2.0');
    expect(semanticVersionOf('7')?.version).toBe('7.0.0');
    expect(semanticVersionOf('a1b2c3d')).toBeNull();
  });

  it('compares semantic versions as versions, not as text', () => {
    expect(compareReleases({ version: 'api@10.0.0' }, { version: 'api@9.0.0' })).toBeGreaterThan(0);
    expect(compareReleases({ version: '1.0.0-rc.1' }, { version: '1.0.0' })).toBeLessThan(0);
    expect(compareReleases({ version: '1.0.0+build.5' }, { version: '1.0.0+build.7' })).toBe(0);
    expect(compareReleases({ version: 'x@1.0.0' }, { version: 'x@1.0.0' })).toBe(0);
  });

  it('orders other releases, and versions of different packages, by their first event', () => {
    const red = { version: 'build-red', firstEvent: at('2026-01-01T00:00:00Z') };
    const blue = { version: 'build-blue', firstEvent: at('2026-01-02T00:00:00Z') };
    expect(compareReleases(blue, red)).toBeGreaterThan(0);
    expect(compareReleases(red, blue)).toBeLessThan(0);
    const web = { version: 'web@2.0.0', firstEvent: at('2026-01-01T00:00:00Z') };
    const api = { version: 'api@1.0.0', firstEvent: at('2026-01-02T00:00:00Z') };
    expect(compareReleases(api, web)).toBeGreaterThan(0);
  });

  it('takes a release with no event yet as the newest', () => {
    expect(
      compareReleases(
        { version: 'build-new' },
        { version: 'build-old', firstEvent: at('2026-01-01T00:00:00Z') },
      ),
    ).toBeGreaterThan(0);
    expect(
      compareReleases(
        { version: 'build-old', firstEvent: at('2026-01-01T00:00:00Z') },
        { version: 'build-new' },
      ),
    ).toBeLessThan(0);
  });

  it('names the release that came after the newest one at resolution, once there is one', () => {
    const known = [
      { version: 'shop@1.3.0', firstEvent: at('2026-01-03T00:00:00Z') },
      { version: 'shop@1.2.0', firstEvent: at('2026-01-02T00:00:00Z') },
      { version: 'shop@1.10.0', firstEvent: at('2026-01-04T00:00:00Z') },
    ];
    expect(nextReleaseAfter(known, 'shop@1.2.0')).toBe('shop@1.3.0');
    expect(nextReleaseAfter(known, 'shop@1.3.0')).toBe('shop@1.10.0');
    expect(nextReleaseAfter(known, 'shop@1.10.0')).toBeNull();
    // Resolved before the project had any release: the first one to come.
    expect(nextReleaseAfter(known, null)).toBe('shop@1.2.0');
    expect(nextReleaseAfter([], null)).toBeNull();
    // Releases with no event yet are newer than any that has one; between them, by name.
    expect(nextReleaseAfter([{ version: 'b' }, { version: 'a' }, ...known], 'shop@1.10.0')).toBe('a');
  });
});
