import type { IssueLockedForBatch } from '../issues/issues.repository';
import { compareReleases, KnownRelease } from '../releases/release-order';

/** What an issue's lifecycle depends on, as the digest reads it under the issue's row lock. */
export type IssueBeforeBatch = Omit<IssueLockedForBatch, 'id' | 'projectId' | 'mergedIntoId' | 'lastSeen'>;

/** What a batch brings to one issue: how many new events, and their releases. */
export interface IssueBatch {
  added: number;
  releases: Set<string>;
}

export type LifecycleChange =
  /** Resolved, and an event says it is back: open again, a regression. */
  | 'regressed'
  /** Muted until a time or a number of events, and that has come: open again. */
  | 'unmuted'
  | null;

/**
 * What new events do to an issue's state:
 * - resolved plainly: any event reopens it (a regression);
 * - resolved in a release: only an event of a newer release does (see compareReleases); events of
 *   that release or older, or without a release, are counted and leave it resolved;
 * - muted until a time that has passed, or until a number of events after muting that this batch
 *   reaches: open again (`unmute`); muted otherwise, or forever: stays muted.
 * `release` gives what is known of a release (its first event) for the versions involved.
 */
export function lifecycleChange(
  before: IssueBeforeBatch,
  batch: IssueBatch,
  now: Date,
  release: (version: string) => KnownRelease,
): LifecycleChange {
  if (batch.added === 0) return null;
  if (before.state === 'resolved') {
    if (before.resolvedIn === null) return 'regressed';
    const above = before.resolvedAbove === null ? null : release(before.resolvedAbove);
    for (const version of batch.releases) {
      if (above === null || compareReleases(release(version), above) > 0) return 'regressed';
    }
    return null;
  }
  if (before.state === 'muted') {
    if (before.muteUntil !== null && before.muteUntil.getTime() <= now.getTime()) return 'unmuted';
    if (
      before.muteUntilCount !== null &&
      before.eventCount + batch.added - (before.mutedEventCount ?? 0) >= before.muteUntilCount
    )
      return 'unmuted';
  }
  return null;
}
