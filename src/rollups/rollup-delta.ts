import type { NormalisedEvent } from '../digest/event-normaliser';
import { eventTags } from './event-tags';

/** One newly stored event, as the rollups count it. */
export interface CountedEvent {
  projectId: number;
  issueId: number;
  event: NormalisedEvent;
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
}

const HOUR_MS = 3_600_000;

export function hourOf(timestamp: Date): Date {
  return new Date(Math.floor(timestamp.getTime() / HOUR_MS) * HOUR_MS);
}

/** Sums a batch of events into one row per rollup key, so each row is written once per batch. */
export function rollupDelta(events: CountedEvent[]): RollupDelta {
  const issueHours = new Map<string, HourCount>();
  const projectHours = new Map<string, HourCount>();
  const tagValues = new Map<string, TagValueCount>();
  const tagKeys = new Map<string, TagKeyCount>();

  for (const { projectId, issueId, event } of events) {
    const at = new Date(event.timestamp);
    const hour = hourOf(at);
    const environment = event.environment ?? '';
    countHour(issueHours, issueId, hour, environment);
    countHour(projectHours, projectId, hour, environment);
    for (const [key, value] of eventTags(event)) {
      const valueKey = `${issueId}\0${key}\0${value}`;
      const current = tagValues.get(valueKey);
      if (!current) tagValues.set(valueKey, { issueId, key, value, count: 1, firstSeen: at, lastSeen: at });
      else {
        current.count += 1;
        if (at < current.firstSeen) current.firstSeen = at;
        if (at > current.lastSeen) current.lastSeen = at;
      }
      const keyKey = `${issueId}\0${key}`;
      const keyCount = tagKeys.get(keyKey);
      if (!keyCount) tagKeys.set(keyKey, { issueId, key, total: 1 });
      else keyCount.total += 1;
    }
  }

  return {
    issueHours: [...issueHours.values()].sort(compareHours),
    projectHours: [...projectHours.values()].sort(compareHours),
    tagValues: [...tagValues.values()].sort(
      (a, b) => a.issueId - b.issueId || compareText(a.key, b.key) || compareText(a.value, b.value),
    ),
    tagKeys: [...tagKeys.values()].sort((a, b) => a.issueId - b.issueId || compareText(a.key, b.key)),
  };
}

function countHour(into: Map<string, HourCount>, id: number, hour: Date, environment: string): void {
  const key = `${id}\0${hour.getTime()}\0${environment}`;
  const current = into.get(key);
  if (current) current.count += 1;
  else into.set(key, { id, hour, environment, count: 1 });
}

function compareHours(a: HourCount, b: HourCount): number {
  return a.id - b.id || a.hour.getTime() - b.hour.getTime() || compareText(a.environment, b.environment);
}

/** Code-unit order: the same order for every worker, whatever its locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
