import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ErrorEvent, EventUser } from './event.entity';
import { applyEventSearch } from './event-search';

/**
 * The events table and the parts its payloads share (event_parts): every statement that reads or
 * moves events is here. The digest's inserts and the partitions' DDL have their own places
 * (IssueStoreService, EventPartitionsRepository).
 */
@Injectable()
export class EventsRepository {
  constructor(@InjectRepository(ErrorEvent) private readonly events: Repository<ErrorEvent>) {}

  /**
   * An issue's events, newest first by (timestamp, id), after `after` when given, filtered by the
   * event search `query`; each with the user of its payload (the only part of it that is read).
   */
  async pageForIssue(
    issueId: number,
    options: { limit: number; after?: { at: Date; id: string }; query?: string },
  ): Promise<Array<{ event: ErrorEvent; user: EventUser | null }>> {
    const query = this.events
      .createQueryBuilder('event')
      .select([
        'event.projectId',
        'event.id',
        'event.issueId',
        'event.timestamp',
        'event.receivedAt',
        'event.level',
        'event.environment',
        'event.release',
      ])
      // Only the user is read out of the payload, which PostgreSQL decompresses server-side.
      .addSelect(`event.payload -> 'user'`, 'user')
      .where('event.issue_id = :issueId', { issueId });
    if (options.query) applyEventSearch(query, options.query);
    if (options.after) {
      query.andWhere('(event.timestamp, event.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', {
        at: options.after.at.toISOString(),
        id: options.after.id,
      });
    }
    const { entities, raw } = await query
      .orderBy('event.timestamp', 'DESC')
      .addOrderBy('event.id', 'DESC')
      .limit(options.limit)
      .getRawAndEntities<{ user: EventUser | null }>();
    return entities.map((event, index) => ({ event, user: raw[index].user }));
  }

  /**
   * The events with this id (of any project: two may hold the same id), of this issue when given.
   * No ORDER BY: sorting by arrival would let the planner walk the partitions in order (scanning
   * them) instead of probing each one's id index.
   */
  findById(id: string, issueId?: number): Promise<ErrorEvent[]> {
    return this.events.find({ where: issueId === undefined ? { id } : { id, issueId } });
  }

  /** The id of the issue's newest or oldest event; null when it has none. */
  async edgeId(issueId: number, which: 'latest' | 'oldest'): Promise<string | null> {
    const direction = which === 'latest' ? 'DESC' : 'ASC';
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [issueId],
    );
    return rows[0]?.id ?? null;
  }

  /** The id of the event just older or newer than `event` in its issue, by (timestamp, id). */
  async neighbourId(event: ErrorEvent, side: 'older' | 'newer'): Promise<string | null> {
    const [comparison, direction] = side === 'older' ? ['<', 'DESC'] : ['>', 'ASC'];
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 AND (timestamp, id) ${comparison} ($2::timestamptz, $3::uuid)
        ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [event.issueId, event.timestamp, event.id],
    );
    return rows[0]?.id ?? null;
  }

  /** The contents of an issue's parts with these hashes, stored under either of two days (UTC dates). */
  async findParts(
    issueId: number,
    hashes: string[],
    days: [string, string],
  ): Promise<Array<{ hash: string; content: unknown }>> {
    return this.events.query<Array<{ hash: string; content: unknown }>>(
      `SELECT DISTINCT ON (hash) hash, content FROM event_parts
        WHERE issue_id = $1 AND hash = ANY($3::text[]) AND day = ANY(ARRAY[$2::date, $4::date])`,
      [issueId, days[0], hashes, days[1]],
    );
  }

  /** The issue's most recent event (its environment and key), or null when it has none. */
  latest(issueId: number): Promise<Pick<ErrorEvent, 'environment' | 'id' | 'projectId'> | null> {
    return this.events.findOne({
      where: { issueId },
      order: { timestamp: 'DESC', receivedAt: 'DESC' },
      select: { environment: true, id: true, projectId: true },
    });
  }

  /**
   * Moves every event of the `from` issues to issue `to`, with the parts they share, in the
   * caller's transaction; returns how many events moved. Events first, then their parts: the order
   * in which everything else locks these tables (see IssueStoreService.insertEvents).
   */
  async moveToIssue(manager: EntityManager, from: number[], to: number): Promise<number> {
    const [, moved] = (await manager.query(
      'UPDATE events SET issue_id = $2 WHERE issue_id = ANY($1::int[])',
      [from, to],
    )) as [unknown, number];
    await manager.query(
      `INSERT INTO event_parts (issue_id, hash, day, content)
       SELECT $2, hash, day, content FROM event_parts WHERE issue_id = ANY($1::int[])
       ORDER BY hash, day
       ON CONFLICT DO NOTHING`,
      [from, to],
    );
    await manager.query('DELETE FROM event_parts WHERE issue_id = ANY($1::int[])', [from]);
    return moved;
  }
}
