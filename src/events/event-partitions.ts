import { Injectable } from '@nestjs/common';
import { EventPartitionsRepository } from './event-partitions.repository';

const DAY_MS = 86_400_000;

/** One partition of the events table and the arrival times it holds, [from, to). */
export interface EventPartition {
  name: string;
  /** Null for a partition open towards the past (the events kept from before partitioning). */
  from: Date | null;
  to: Date;
}

/** Rows of a partition to delete: arrived before `before`, of the projects `only` names or all but `except`. */
export interface RowDeletion {
  before: Date;
  only?: number[];
  except?: number[];
}

/** The UTC day of an instant, as the date PostgreSQL's `events_ensure_partition` takes. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Days of arrival whose events share one stored copy of each part (see event-parts.ts). */
export const PART_SPAN_DAYS = 7;

/**
 * The day under which the parts of an event that arrived at `at` are stored: the last day of its
 * span of PART_SPAN_DAYS days (counted from the Unix epoch). Never before the event's own day, so a
 * part is dropped with that day's partition no earlier than the events that refer to it, and at most
 * PART_SPAN_DAYS - 1 days after them.
 */
export function partDay(at: Date): string {
  const day = Math.floor(at.getTime() / DAY_MS);
  return utcDay(new Date((Math.floor(day / PART_SPAN_DAYS) * PART_SPAN_DAYS + PART_SPAN_DAYS - 1) * DAY_MS));
}

export function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** `FOR VALUES FROM ('…') TO ('…')` as pg_get_expr prints a range partition's bound. */
export function parsePartitionBound(bound: string): { from: Date | null; to: Date } | null {
  const match = /^FOR VALUES FROM \((MINVALUE|'[^']+')\) TO \('([^']+)'\)$/.exec(bound.trim());
  if (!match) return null;
  return {
    from: match[1] === 'MINVALUE' ? null : new Date(match[1].slice(1, -1)),
    to: new Date(match[2]),
  };
}

/**
 * The day partitions of `events` (see the PartitionedEventsAndRollups migration): which exist,
 * creating the ones rows are about to need, dropping expired ones (the statements are
 * EventPartitionsRepository's). The digest asks before each batch; the answer is remembered, so
 * that costs a query only on the first batch of a day.
 */
@Injectable()
export class EventPartitions {
  private readonly knownDays = new Set<string>();

  constructor(private readonly partitions: EventPartitionsRepository) {}

  /** Makes sure the partitions of these arrival times exist. */
  async ensureFor(times: Date[]): Promise<void> {
    const days = [...new Set(times.map(utcDay))].filter((day) => !this.knownDays.has(day)).sort();
    for (const day of days) {
      await this.partitions.ensure(day);
      this.knownDays.add(day);
    }
  }

  /** Creates the partitions of the days from `from` to `to` (UTC days, both included). */
  ensureDays(from: Date, to: Date): Promise<number> {
    return this.partitions.ensureDays(utcDay(from), utcDay(to));
  }

  /** Forgets what was learnt, after a partition turned out to be missing (dropped by retention). */
  forget(): void {
    this.knownDays.clear();
  }

  async list(): Promise<EventPartition[]> {
    const rows = await this.partitions.list();
    const partitions: EventPartition[] = [];
    for (const row of rows) {
      // Null for a partition dropped while this query ran.
      const bound = row.bound === null ? null : parsePartitionBound(row.bound);
      if (bound) partitions.push({ name: row.name, ...bound });
    }
    return partitions.sort((a, b) => a.to.getTime() - b.to.getTime());
  }

  /**
   * Drops one whole partition with the event parts of its days, both or neither. Dropping needs a
   * moment's exclusive lock on `events`; rather than queue every reader and writer behind a long
   * query, it gives up after `lockTimeoutMs` (false) and the next run tries again.
   */
  async drop(partition: EventPartition, lockTimeoutMs: number): Promise<boolean> {
    const dropped = await this.partitions.dropWithParts(
      partition.name,
      partition.from ? utcDay(partition.from) : null,
      utcDay(partition.to),
      lockTimeoutMs,
    );
    if (dropped) this.knownDays.delete(utcDay(partition.from ?? partition.to));
    return dropped;
  }

  /**
   * Deletes up to `limit` rows of one partition that `deletion` covers; returns how many went. Used
   * where a cutoff does not fall on a whole partition (see planPartitions).
   */
  deleteBatch(partition: EventPartition, deletion: RowDeletion, limit: number): Promise<number> {
    return this.partitions.deleteRows(
      partition.name,
      deletion.before,
      deletion.only ?? null,
      deletion.except ?? null,
      limit,
    );
  }

  /**
   * Deletes up to `limit` event parts that only events `deletion` covers can refer to: of the
   * projects it covers, stored under a day before the cutoff's (a part under day D serves arrivals
   * up to D's end). Returns how many went. Parts usually go with their day's partition; this is for
   * projects whose retention ends before that of a partition kept for others.
   */
  deleteExpiredParts(deletion: RowDeletion, limit: number): Promise<number> {
    return this.partitions.deleteParts(
      utcDay(deletion.before),
      deletion.only ?? null,
      deletion.except ?? null,
      limit,
    );
  }
}
