import { compare, parse, SemVer } from 'semver';

/**
 * Which of two releases is newer, as "resolved in a release" needs it (see docs/issues.md, Triage).
 *
 * Release names are often `package@version` (what the SDKs and sentry-cli propose); the part after
 * the last `@` is the version. Two versions that are both semantic versions (loosely: `v1.2`,
 * `1.2.3-beta.1`) compare as such, build metadata ignored; otherwise, the release whose first event
 * arrived first is the older one, and a release with no event yet is newer than any that has one.
 */
export interface KnownRelease {
  version: string;
  /** When its first event arrived; undefined for a release with no event yet. */
  firstEvent?: Date;
}

export function semanticVersionOf(release: string): SemVer | null {
  const at = release.lastIndexOf('@');
  const version = at >= 0 ? release.slice(at + 1) : release;
  // Loose parsing accepts a leading "v" and "=", not a bare "1.2" or "7"; those are padded first.
  const padded = /^v?\d+(\.\d+)?$/.test(version)
    ? version.replace(/^v/, '') + '.0'.repeat(2 - (version.match(/\./g)?.length ?? 0))
    : version;
  return parse(padded, { loose: true });
}

/** Negative when `a` is older than `b`, positive when newer, 0 when neither. */
export function compareReleases(a: KnownRelease, b: KnownRelease): number {
  if (a.version === b.version) return 0;
  const versionA = semanticVersionOf(a.version);
  const versionB = semanticVersionOf(b.version);
  if (versionA && versionB && samePackage(a.version, b.version)) return compare(versionA, versionB);
  if (a.firstEvent === undefined || b.firstEvent === undefined) {
    if (a.firstEvent === b.firstEvent) return 0;
    return a.firstEvent === undefined ? 1 : -1;
  }
  return Math.sign(a.firstEvent.getTime() - b.firstEvent.getTime());
}

/** `web@1.2` and `api@1.3` are different products: their versions do not order them. */
function samePackage(a: string, b: string): boolean {
  const packageOf = (release: string) =>
    release.includes('@') ? release.slice(0, release.lastIndexOf('@')) : '';
  return packageOf(a) === packageOf(b);
}

/**
 * The release that came after `above` (the newest release a project had when an issue was resolved
 * "in the next release"): the oldest of the known releases newer than it, or with `above` null (no
 * release then), the oldest of them all. Null while the project has none.
 */
export function nextReleaseAfter(known: KnownRelease[], above: string | null): string | null {
  const base =
    above === null ? null : (known.find((release) => release.version === above) ?? { version: above });
  let next: KnownRelease | null = null;
  for (const release of known) {
    if (base !== null && compareReleases(release, base) <= 0) continue;
    // Releases that neither order puts first (no event yet, no comparable version): by name, so that
    // the answer does not depend on the order the rows came in.
    const order =
      next === null ? -1 : compareReleases(release, next) || (release.version < next.version ? -1 : 1);
    if (order < 0) next = release;
  }
  return next?.version ?? null;
}
