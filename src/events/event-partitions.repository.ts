import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Lock timeout and deadlock: a partition drop that gives way to the rest of the database. */
const GAVE_WAY = new Set(['55P03', '40P01']);

/**
 * The day partitions of `events` and `event_parts`: creating, listing and dropping them, and the
 * row deletions of retention that do not fall on a whole partition. Days are UTC dates
 * (`YYYY-MM-DD`); EventPartitions decides which.
 */
@Injectable()
export class EventPartitionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Creates the partition of one day when it does not exist. */
  async ensure(day: string): Promise<void> {
    await this.dataSource.query('SELECT events_ensure_partition($1::date)', [day]);
  }

  /** Creates the partitions of the days from `from` to `to` (both included); returns how many were made. */
  async ensureDays(from: string, to: string): Promise<number> {
    const [{ created }] = await this.dataSource.query<Array<{ created: number }>>(
      `SELECT count(*) FILTER (WHERE events_ensure_partition(d::date))::int AS created
         FROM generate_series($1::date, $2::date, interval '1 day') AS d`,
      [from, to],
    );
    return created;
  }

  /** The partitions of `events` with their bounds as pg_get_expr prints them (null: dropped meanwhile). */
  list(): Promise<Array<{ name: string; bound: string | null }>> {
    return this.dataSource.query<Array<{ name: string; bound: string | null }>>(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass`,
    );
  }

  /**
   * Drops the partition `name` of `events` (arrivals from `fromDay`, null: open towards the past,
   * to `toDay`) with the `event_parts` partitions of those days, in one transaction, so a run cut
   * short leaves them either there or gone; `events` before `event_parts` (the lock order is in
   * issues.repository.ts). Waits at most `lockTimeoutMs` for the exclusive lock that needs; false
   * when it gave up then (or lost a deadlock), and nothing was dropped.
   */
  async dropWithParts(
    name: string,
    fromDay: string | null,
    toDay: string,
    lockTimeoutMs: number,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('lock_timeout', $1, true)`, [`${lockTimeoutMs}ms`]);
      const parts = await manager.query<Array<{ name: string }>>(
        `SELECT c.relname AS name
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'event_parts'::regclass
            AND substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([0-9-]+)''\\)')::date <= $1::date
            AND ($2::date IS NULL OR substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([0-9-]+)''\\)')::date >= $2::date)`,
        [toDay, fromDay],
      );
      const tables = [name, ...parts.map((part) => part.name)].map(quoteIdentifier);
      try {
        await manager.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
      } catch (error) {
        // The lock not had in time, or a deadlock PostgreSQL broke by giving up this side: either
        // way the day is dropped by a later run, and the rest of this run goes on.
        if (GAVE_WAY.has((error as { code?: string }).code ?? '')) return false;
        throw error;
      }
      return true;
    });
  }

  /**
   * Deletes up to `limit` rows of the partition `name` that arrived before `before`, of the
   * projects `only` names or all but `except` (null: no such limit); returns how many went. The
   * partition is scanned directly, by ctid: no index is kept for this rare path.
   */
  async deleteRows(
    name: string,
    before: Date,
    only: number[] | null,
    except: number[] | null,
    limit: number,
  ): Promise<number> {
    const table = quoteIdentifier(name);
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${table}
          WHERE received_at < $1
            AND ($2::int[] IS NULL OR project_id = ANY($2))
            AND ($3::int[] IS NULL OR project_id <> ALL($3))
          LIMIT $4))`,
      [before, only, except, limit],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Deletes up to `limit` event parts stored under a day before `beforeDay`, of the projects `only`
   * names or all but `except` (null: no such limit); returns how many went.
   */
  async deleteParts(
    beforeDay: string,
    only: number[] | null,
    except: number[] | null,
    limit: number,
  ): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM event_parts p USING (
         SELECT e.issue_id, e.hash, e.day FROM event_parts e JOIN issues i ON i.id = e.issue_id
          WHERE e.day < $1::date
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
          LIMIT $4) expired
        WHERE p.issue_id = expired.issue_id AND p.hash = expired.hash AND p.day = expired.day`,
      [beforeDay, only, except, limit],
    )) as [unknown, number];
    return deleted;
  }
}

function quoteIdentifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected partition name ${name}`);
  return `"${name}"`;
}
