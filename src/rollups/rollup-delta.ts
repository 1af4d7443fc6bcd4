import type { NormalisedEvent } from '../events/normalised-event';
import type { ReleaseEvents } from '../releases/releases.repository';
import { eventTags } from './event-tags';

/** One newly stored event, as the rollups count it. */
export interface CountedEvent {
  projectId: number;
  issueId: number;
  event: NormalisedEvent;
  /** When ingest received it: the hour its acceptance counts in (the event's own time without). */
  receivedAt?: Date;
}

/** Events a project accepted in an hour of receipt: the Usage page's history, which no erasure changes. */
export interface AcceptedCount {
  projectId: number;
  hour: Date;
  count: number;
}

export interface HourCount {
  id: number;
  hour: Date;
  environment: string;
  count: number;
}

export interface TagValueCount {
  issueId: number;
  key: string;
  value: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
}

export interface TagKeyCount {
  issueId: number;
  key: string;
  total: number;
}

/** What a batch of newly stored events adds to each rollup, in lock order (sorted by key). */
export interface RollupDelta {
  issueHours: HourCount[];
  projectHours: HourCount[];
  tagValues: TagValueCount[];
  tagKeys: TagKeyCount[];
  /**
   * The events of each release (the `release` tag) by project and environment ('' for none): what
   * the fold adds to `releases` and `release_environments`.
   */
  releases: ReleaseEvents[];
  /** Events accepted, by project and hour of receipt (sorted). */
  accepted: AcceptedCount[];
}

const HOUR_MS = 3_600_000;

export function hourOf(timestamp: Date): Date {
  return new Date(Math.floor(timestamp.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * One issue's share of a batch's counts, as the digest records it in `rollup_pending` (see
 * RollupsRepository) until a fold adds it to the rollups. Compact arrays: a batch writes one of
 * these per issue it touched.
 */
export interface PendingIssueDelta {
  /** The layout's version: rows recorded by one version are folded by the next. */
  v: typeof PENDING_DELTA_VERSION;
  /** [hour (epoch ms), environment ('' for none), count] */
  hours: [number, string, number][];
  /** [key, value, count, first seen (epoch ms), last seen (epoch ms)] */
  tags: [string, string, number, number, number][];
  /**
   * [hour of receipt (epoch ms), count]. Rows recorded before it existed count their events in
   * the hours of their timestamps.
   */
  received?: [number, number][];
  /**
   * [release, environment ('' for none), count, first seen, last seen]. Rows recorded before it
   * existed count their release's events in the issue's one environment (or none, with several).
   */
  releases?: [string, string, number, number, number][];
}

export const PENDING_DELTA_VERSION = 1;

/** A recorded delta as read back, checked: a row of an unknown layout is refused, not misread. */
export function readPendingDelta(value: unknown): PendingIssueDelta {
  const delta = value as Partial<PendingIssueDelta> | null;
  if (delta?.v !== PENDING_DELTA_VERSION || !Array.isArray(delta.hours) || !Array.isArray(delta.tags)) {
    throw new UnreadableDeltaError(
      `recorded rollup counts of an unknown layout: ${JSON.stringify(value).slice(0, 100)}`,
    );
  }
  return delta as PendingIssueDelta;
}

export class UnreadableDeltaError extends Error {}

/** A recorded delta with the issue it belongs to and that issue's project. */
export interface PendingRow {
  issueId: number;
  projectId: number;
  delta: PendingIssueDelta;
}

/** Sums a batch of events into one row per rollup key, so each row is written once per batch. */
export function rollupDelta(events: CountedEvent[]): RollupDelta {
  return sumEvents(events).delta();
}

/** What a batch of newly stored events adds, by issue, as the digest records it in `rollup_pending`. */
export function pendingDeltas(events: CountedEvent[]): Map<number, PendingIssueDelta> {
  return sumEvents(events).pending();
}

function sumEvents(events: CountedEvent[]): RollupSums {
  const sums = new RollupSums();
  for (const { projectId, issueId, event, receivedAt } of events) {
    const at = new Date(event.timestamp).getTime();
    const environment = event.environment ?? '';
    sums.addHour(issueId, projectId, hourOf(new Date(at)).getTime(), environment, 1);
    sums.addAccepted(issueId, hourOf(receivedAt ?? new Date(at)).getTime(), 1);
    for (const [key, value] of eventTags(event)) {
      sums.addTag(issueId, key, value, 1, at, at);
      if (key === 'release') sums.addRelease(issueId, value, environment, 1, at, at);
    }
  }
  return sums;
}

/**
 * Sums recorded deltas into one row per rollup key. Project hours come from their issues' hours,
 * so a delta whose issue was deleted before the fold counts nowhere, like the issue's events.
 */
export function foldPending(rows: PendingRow[]): RollupDelta {
  const sums = new RollupSums();
  for (const { issueId, projectId, delta } of rows) {
    for (const [hour, environment, count] of delta.hours)
      sums.addHour(issueId, projectId, hour, environment, count);
    for (const [key, value, count, first, last] of delta.tags)
      sums.addTag(issueId, key, value, count, first, last);
    for (const [hour, count] of delta.received ?? delta.hours.map(([at, , n]) => [at, n]))
      sums.addAccepted(issueId, hour, count);
    if (delta.releases) {
      for (const [version, environment, count, first, last] of delta.releases)
        sums.addRelease(issueId, version, environment, count, first, last);
    } else {
      const environments = new Set(delta.hours.map(([, environment]) => environment));
      const environment = environments.size === 1 ? [...environments][0] : '';
      for (const [key, value, count, first, last] of delta.tags)
        if (key === 'release') sums.addRelease(issueId, value, environment, count, first, last);
    }
  }
  return sums.delta();
}

/** A sum per rollup key, times in epoch ms. */
interface Sum<T> {
  row: T;
  count: number;
}

interface HourKey {
  id: number;
  hour: number;
  environment: string;
}

interface TagValueSeen {
  issueId: number;
  key: string;
  value: string;
  first: number;
  last: number;
}

/** Running sums per rollup key; a tag key's total is the sum of its values' counts. */
class RollupSums {
  private readonly issueHours = new Map<string, Sum<HourKey>>();
  private readonly projectHours = new Map<string, Sum<HourKey>>();
  private readonly tagValues = new Map<string, Sum<TagValueSeen>>();
  private readonly tagKeys = new Map<string, TagKeyCount>();
  private readonly projectOf = new Map<number, number>();
  /** By issue, then hour of receipt. */
  private readonly accepted = new Map<number, Map<number, number>>();
  /** By issue, release and environment. */
  private readonly releaseSums = new Map<
    string,
    { issueId: number; version: string; environment: string; count: number; first: number; last: number }
  >();

  addHour(issueId: number, projectId: number, hour: number, environment: string, count: number): void {
    this.projectOf.set(issueId, projectId);
    countHour(this.issueHours, issueId, hour, environment, count);
    countHour(this.projectHours, projectId, hour, environment, count);
  }

  addTag(issueId: number, key: string, value: string, count: number, first: number, last: number): void {
    const valueKey = `${issueId}\0${key}\0${value}`;
    const current = this.tagValues.get(valueKey);
    if (!current) this.tagValues.set(valueKey, { row: { issueId, key, value, first, last }, count });
    else {
      current.count += count;
      if (first < current.row.first) current.row.first = first;
      if (last > current.row.last) current.row.last = last;
    }
    const keyKey = `${issueId}\0${key}`;
    const keyCount = this.tagKeys.get(keyKey);
    if (!keyCount) this.tagKeys.set(keyKey, { issueId, key, total: count });
    else keyCount.total += count;
  }

  addAccepted(issueId: number, hour: number, count: number): void {
    let hours = this.accepted.get(issueId);
    if (!hours) this.accepted.set(issueId, (hours = new Map()));
    hours.set(hour, (hours.get(hour) ?? 0) + count);
  }

  addRelease(
    issueId: number,
    version: string,
    environment: string,
    count: number,
    first: number,
    last: number,
  ): void {
    const key = `${issueId}\0${version}\0${environment}`;
    const sum = this.releaseSums.get(key);
    if (!sum) this.releaseSums.set(key, { issueId, version, environment, count, first, last });
    else {
      sum.count += count;
      sum.first = Math.min(sum.first, first);
      sum.last = Math.max(sum.last, last);
    }
  }

  /** The sums as rollup rows, in lock order. */
  delta(): RollupDelta {
    const hours = (sums: Map<string, Sum<HourKey>>): HourCount[] =>
      [...sums.values()]
        .map(({ row, count }) => ({
          id: row.id,
          hour: new Date(row.hour),
          environment: row.environment,
          count,
        }))
        .sort(compareHours);
    return {
      issueHours: hours(this.issueHours),
      projectHours: hours(this.projectHours),
      tagValues: [...this.tagValues.values()]
        .map(({ row, count }) => ({
          issueId: row.issueId,
          key: row.key,
          value: row.value,
          count,
          firstSeen: new Date(row.first),
          lastSeen: new Date(row.last),
        }))
        .sort((a, b) => a.issueId - b.issueId || compareText(a.key, b.key) || compareText(a.value, b.value)),
      tagKeys: [...this.tagKeys.values()].sort((a, b) => a.issueId - b.issueId || compareText(a.key, b.key)),
      releases: this.releases(),
      accepted: this.acceptedRows(),
    };
  }

  /** Accepted events summed over the issues of each project (an issue's project is known from its hours). */
  private acceptedRows(): AcceptedCount[] {
    const sums = new Map<string, { projectId: number; hour: number; count: number }>();
    for (const [issueId, hours] of this.accepted) {
      const projectId = this.projectOf.get(issueId);
      if (projectId === undefined) continue;
      for (const [hour, count] of hours) {
        const key = `${projectId}\0${hour}`;
        const sum = sums.get(key);
        if (sum) sum.count += count;
        else sums.set(key, { projectId, hour, count });
      }
    }
    return [...sums.values()]
      .map((sum) => ({ projectId: sum.projectId, hour: new Date(sum.hour), count: sum.count }))
      .sort((a, b) => a.projectId - b.projectId || a.hour.getTime() - b.hour.getTime());
  }

  /** The release tag's values summed over the issues of each project, by environment. */
  private releases(): ReleaseEvents[] {
    const sums = new Map<string, ReleaseEvents & { from: number; to: number }>();
    for (const row of this.releaseSums.values()) {
      const projectId = this.projectOf.get(row.issueId);
      if (projectId === undefined) continue;
      const key = `${projectId}\0${row.version}\0${row.environment}`;
      const sum = sums.get(key);
      if (!sum) {
        sums.set(key, {
          projectId,
          version: row.version,
          environment: row.environment,
          count: row.count,
          first: new Date(row.first),
          last: new Date(row.last),
          from: row.first,
          to: row.last,
        });
      } else {
        sum.count += row.count;
        sum.from = Math.min(sum.from, row.first);
        sum.to = Math.max(sum.to, row.last);
      }
    }
    return [...sums.values()]
      .map(({ from, to, ...sum }) => ({ ...sum, first: new Date(from), last: new Date(to) }))
      .sort(
        (a, b) =>
          a.projectId - b.projectId ||
          compareText(a.version, b.version) ||
          compareText(a.environment, b.environment),
      );
  }

  /** The issues' sums as recorded deltas: unsorted, since the fold that reads them sorts. */
  pending(): Map<number, PendingIssueDelta> {
    const byIssue = new Map<number, PendingIssueDelta>();
    const of = (issueId: number) => {
      let entry = byIssue.get(issueId);
      if (!entry) byIssue.set(issueId, (entry = { v: PENDING_DELTA_VERSION, hours: [], tags: [] }));
      return entry;
    };
    for (const { row, count } of this.issueHours.values())
      of(row.id).hours.push([row.hour, row.environment, count]);
    for (const { row, count } of this.tagValues.values()) {
      of(row.issueId).tags.push([row.key, row.value, count, row.first, row.last]);
    }
    for (const [issueId, hours] of this.accepted) {
      const entry = of(issueId);
      entry.received = [...hours];
    }
    for (const row of this.releaseSums.values()) {
      const entry = of(row.issueId);
      (entry.releases ??= []).push([row.version, row.environment, row.count, row.first, row.last]);
    }
    return byIssue;
  }
}

function countHour(
  into: Map<string, Sum<HourKey>>,
  id: number,
  hour: number,
  environment: string,
  count: number,
): void {
  const key = `${id}\0${hour}\0${environment}`;
  const current = into.get(key);
  if (current) current.count += count;
  else into.set(key, { row: { id, hour, environment }, count });
}

function compareHours(a: HourCount, b: HourCount): number {
  return a.id - b.id || a.hour.getTime() - b.hour.getTime() || compareText(a.environment, b.environment);
}

/** Code-unit order: the same order for every worker, whatever its locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
