import type { EventPartition, RowDeletion } from '../events/event-partitions';

const DAY_MS = 86_400_000;

/** A project whose `retention_days` differs from the default. */
export interface ProjectRetention {
  projectId: number;
  days: number;
}

/** What one retention run does to one partition of events. */
export type PartitionAction =
  | { kind: 'drop'; partition: EventPartition }
  | { kind: 'delete'; partition: EventPartition; deletions: RowDeletion[] }
  | { kind: 'keep'; partition: EventPartition };

export function cutoffOf(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/**
 * Decides, for each partition, what a retention run does with it.
 *
 * - A day partition goes as a whole once every project's retention has passed its end: events are
 *   kept at least their retention and at most a day longer, and nothing is deleted row by row.
 * - While a project keeps that day longer (its own `retention_days`), the rows of the projects whose
 *   retention has passed the partition's end are deleted in batches instead.
 * - A partition open towards the past (the events kept from before partitioning) has no end that
 *   could pass: its rows older than each project's cutoff are deleted in batches, until its end
 *   passes too and it is dropped.
 */
export function planPartitions(
  partitions: EventPartition[],
  now: Date,
  defaultDays: number,
  overrides: ProjectRetention[],
): PartitionAction[] {
  const longest = Math.max(defaultDays, ...overrides.map((project) => project.days));
  const dropBefore = cutoffOf(now, longest).getTime();
  const groups = groupByDays(overrides);
  return partitions.map((partition): PartitionAction => {
    if (partition.to.getTime() <= dropBefore) return { kind: 'drop', partition };
    const deletions: RowDeletion[] = [];
    const expired = (days: number): Date | null => {
      const cutoff = cutoffOf(now, days);
      if (partition.from === null) return cutoff;
      return partition.to.getTime() <= cutoff.getTime() ? partition.to : null;
    };
    const defaultBefore = expired(defaultDays);
    if (defaultBefore) {
      const except = overrides.map((project) => project.projectId);
      deletions.push(except.length > 0 ? { before: defaultBefore, except } : { before: defaultBefore });
    }
    for (const [days, projectIds] of groups) {
      const before = expired(days);
      if (before) deletions.push({ before, only: projectIds });
    }
    return deletions.length > 0 ? { kind: 'delete', partition, deletions } : { kind: 'keep', partition };
  });
}

/** Project ids by retention, so projects that keep the same number of days share one deletion. */
function groupByDays(overrides: ProjectRetention[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const { projectId, days } of overrides) groups.set(days, [...(groups.get(days) ?? []), projectId]);
  return groups;
}
