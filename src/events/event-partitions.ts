import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

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
 * creating the ones rows are about to need, dropping expired ones. The digest asks before each
 * batch; the answer is remembered, so that costs a query only on the first batch of a day.
 */
@Injectable()
export class EventPartitions {
  private readonly knownDays = new Set<string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Makes sure the partitions of these arrival times exist. */
  async ensureFor(times: Date[]): Promise<void> {
    const days = [...new Set(times.map(utcDay))].filter((day) => !this.knownDays.has(day)).sort();
    for (const day of days) {
      await this.dataSource.query('SELECT events_ensure_partition($1::date)', [day]);
      this.knownDays.add(day);
    }
  }

  /** Creates the partitions of the days from `from` to `to` (UTC days, both included). */
  async ensureDays(from: Date, to: Date): Promise<number> {
    const [{ created }] = await this.dataSource.query<Array<{ created: number }>>(
      `SELECT count(*) FILTER (WHERE events_ensure_partition(d::date))::int AS created
         FROM generate_series($1::date, $2::date, interval '1 day') AS d`,
      [utcDay(from), utcDay(to)],
    );
    return created;
  }

  /** Forgets what was learnt, after a partition turned out to be missing (dropped by retention). */
  forget(): void {
    this.knownDays.clear();
  }

  async list(): Promise<EventPartition[]> {
    const rows = await this.dataSource.query<Array<{ name: string; bound: string | null }>>(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass`,
    );
    const partitions: EventPartition[] = [];
    for (const row of rows) {
      // Null for a partition dropped while this query ran.
      const bound = row.bound === null ? null : parsePartitionBound(row.bound);
      if (bound) partitions.push({ name: row.name, ...bound });
    }
    return partitions.sort((a, b) => a.to.getTime() - b.to.getTime());
  }

  /**
   * Drops one whole partition with the event parts of its days, in one transaction, so a run cut
   * short leaves them either there or gone; `events` before `event_parts`, the order in which the
   * digest writes them. Dropping needs a moment's exclusive lock on `events`;
   * rather than queue every reader and writer behind a long query, it gives up after
   * `lockTimeoutMs` and the next run tries again.
   */
  async drop(partition: EventPartition, lockTimeoutMs: number): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${lockTimeoutMs}ms`]);
      const parts = await manager.query<Array<{ name: string }>>(
        `SELECT c.relname AS name
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'event_parts'::regclass
            AND substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([0-9-]+)''\\)')::date <= $1::date
            AND ($2::date IS NULL OR substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([0-9-]+)''\\)')::date >= $2::date)`,
        [utcDay(partition.to), partition.from ? utcDay(partition.from) : null],
      );
      const tables = [partition.name, ...parts.map((part) => part.name)].map(quoteIdentifier);
      try {
        await manager.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
      } catch (error) {
        // The lock not had in time, or a deadlock PostgreSQL broke by giving up this side: either
        // way the day is dropped by a later run, and the rest of this run goes on.
        const code = (error as { code?: string }).code;
        if (code === '55P03' || code === '40P01') return false;
        throw error;
      }
      this.knownDays.delete(utcDay(partition.from ?? partition.to));
      return true;
    });
  }

  /**
   * Deletes up to `limit` rows of one partition that `deletion` covers; returns how many went. Used
   * where a cutoff does not fall on a whole partition (see planPartitions). The partition is scanned
   * directly, by ctid: no index is kept for this rare path.
   */
  async deleteBatch(partition: EventPartition, deletion: RowDeletion, limit: number): Promise<number> {
    const table = quoteIdentifier(partition.name);
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${table}
          WHERE received_at < $1
            AND ($2::int[] IS NULL OR project_id = ANY($2))
            AND ($3::int[] IS NULL OR project_id <> ALL($3))
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Deletes up to `limit` event parts that only events `deletion` covers can refer to: of the
   * projects it covers, stored under a day before the cutoff's (a part under day D serves arrivals
   * up to D's end). Returns how many went. Parts usually go with their day's partition; this is for
   * projects whose retention ends before that of a partition kept for others.
   */
  async deleteExpiredParts(deletion: RowDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM event_parts p USING (
         SELECT e.issue_id, e.hash, e.day FROM event_parts e JOIN issues i ON i.id = e.issue_id
          WHERE e.day < $1::date
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
          LIMIT $4) expired
        WHERE p.issue_id = expired.issue_id AND p.hash = expired.hash AND p.day = expired.day`,
      [utcDay(deletion.before), deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }
}

function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected partition name ${name}`);
  return `"${name}"`;
}
