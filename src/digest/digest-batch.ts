import { partDay } from '../events/event-partitions';
import type { NormalisedEvent } from '../events/normalised-event';
import type { GroupingResult } from './grouping';
import type { IssueBatch } from './issue-lifecycle';

/** One event ready to be stored: parsed, normalised and grouped outside the transaction. */
export interface DigestItem {
  projectId: number;
  eventId: string;
  receivedAt: Date;
  event: NormalisedEvent;
  group: GroupingResult;
}

/** A group (project and grouping key) of a batch's events, and its issue once found or created. */
export interface GroupInBatch {
  projectId: number;
  key: string;
  group: GroupingResult;
  firstSeen: Date;
  lastSeen: Date;
  /** The releases of its earliest and latest events in the batch. */
  firstRelease: string | null;
  lastRelease: string | null;
  /** The environment of its earliest event in the batch ('' for none). */
  firstEnvironment: string;
  level: string;
  issueId?: number;
}

/** What a batch's new events bring to one issue: counts, times, releases. */
export interface IssueTotals extends IssueBatch {
  first: Date;
  last: Date;
  lastRelease: string | null;
}

/** The totals of the events the insert returned (`inserted`: their `project:event` keys), by issue. */
export function totalsPerIssue(
  items: DigestItem[],
  inserted: Set<string>,
  groups: Map<string, GroupInBatch>,
): Map<number, IssueTotals> {
  const perIssue = new Map<number, IssueTotals>();
  for (const item of items) {
    if (!inserted.has(`${item.projectId}:${item.eventId}`)) continue;
    const issueId = groups.get(groupId(item))?.issueId as number;
    const at = new Date(item.event.timestamp);
    const release = item.event.release ?? null;
    const current = perIssue.get(issueId);
    if (!current) {
      perIssue.set(issueId, {
        added: 1,
        first: at,
        last: at,
        lastRelease: release,
        releases: new Set(release === null ? [] : [release]),
      });
      continue;
    }
    current.added += 1;
    if (release !== null) current.releases.add(release);
    if (at < current.first) current.first = at;
    if (at >= current.last) {
      current.last = at;
      current.lastRelease = release ?? current.lastRelease;
    }
  }
  return perIssue;
}

/** The days whose partitions a batch writes to: its events' arrival days and their parts' days. */
export function daysWritten(items: DigestItem[]): Date[] {
  return items.flatMap((item) => [item.receivedAt, new Date(partDay(item.receivedAt))]);
}

export function groupId(item: DigestItem): string {
  return `${item.projectId}\n${item.group.key}`;
}

export function dedupe(items: DigestItem[]): DigestItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.projectId}:${item.eventId}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function collectGroups(items: DigestItem[]): Map<string, GroupInBatch> {
  const groups = new Map<string, GroupInBatch>();
  for (const item of items) {
    const at = new Date(item.event.timestamp);
    const existing = groups.get(groupId(item));
    if (!existing) {
      groups.set(groupId(item), {
        projectId: item.projectId,
        key: item.group.key,
        group: item.group,
        firstSeen: at,
        lastSeen: at,
        firstRelease: item.event.release ?? null,
        lastRelease: item.event.release ?? null,
        firstEnvironment: item.event.environment ?? '',
        level: item.event.level,
      });
    } else {
      if (at < existing.firstSeen) {
        existing.firstSeen = at;
        existing.firstRelease = item.event.release ?? null;
        existing.firstEnvironment = item.event.environment ?? '';
      }
      if (at > existing.lastSeen) {
        existing.lastSeen = at;
        existing.lastRelease = item.event.release ?? null;
      }
    }
  }
  return groups;
}
