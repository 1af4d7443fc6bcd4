import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../common/domain-errors';
import { DEFAULT_PAGE_SIZE, decodeKeyCursor, encodeKeyCursor, Page, toPage } from '../common/pagination';
import { ErrorEvent, EventUser } from './event.entity';
import { partDay, utcDay } from './event-partitions';
import { joinParts, partRefs } from './event-parts';
import { fullEvent } from './event-payload';
import { applyEventSearch } from './event-search';
import type { EventListItem, FullEventView } from './dto/event.response';

export type { EventListItem, FullEventView };

@Injectable()
export class EventsService {
  constructor(@InjectRepository(ErrorEvent) private readonly events: Repository<ErrorEvent>) {}

  /** Newest first; paginated by (timestamp, id). */
  async listForIssue(
    issueId: number,
    options: { limit?: number; cursor?: string; query?: string },
  ): Promise<Page<EventListItem>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeKeyCursor(options.cursor, 'uuid');
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
    if (cursor) {
      query.andWhere('(event.timestamp, event.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', {
        at: cursor.at.toISOString(),
        id: cursor.id,
      });
    }
    const { entities, raw } = await query
      .orderBy('event.timestamp', 'DESC')
      .addOrderBy('event.id', 'DESC')
      .limit(limit + 1)
      .getRawAndEntities<{ user: EventUser | null }>();
    const rows = entities.map((event, index) => ({ event, user: raw[index].user }));
    return toPage(
      rows,
      limit,
      (last) => encodeKeyCursor({ at: last.event.timestamp, id: last.event.id }),
      (row) => toListItem(row.event, row.user),
    );
  }

  /** Looked up by id alone: each day's partition has an index that leads with the event id. */
  async get(id: string, issueId?: number, projectIds: number[] | null = null): Promise<FullEventView> {
    // No ORDER BY in SQL: sorting by arrival would let the planner walk the partitions in order
    // (scanning them) instead of probing each one's id index. Two projects may hold the same id:
    // the first stored that the request may see wins.
    const [event] = (await this.events.find({ where: issueId === undefined ? { id } : { id, issueId } }))
      .filter((found) => projectIds === null || projectIds.includes(found.projectId))
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    if (!event) throw new NotFoundError('event not found');
    const payload = fullEvent(await this.withParts(event), event);
    const [previous, next] = await Promise.all([
      this.neighbour(event, 'older'),
      this.neighbour(event, 'newer'),
    ]);
    const sentUser = (payload.user as Record<string, unknown> | null | undefined) ?? null;
    const item = toListItem(event, sentUser as EventUser | null);
    return {
      ...payload,
      ...item,
      user: sentUser && item.user ? { ...sentUser, ...item.user } : null,
      project_id: event.projectId,
      previous_event_id: previous,
      next_event_id: next,
    };
  }

  /** The issue's newest or oldest event in full; 404 when it has none left. */
  async edge(issueId: number, which: 'latest' | 'oldest'): Promise<FullEventView> {
    const direction = which === 'latest' ? 'DESC' : 'ASC';
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [issueId],
    );
    if (rows.length === 0) throw new NotFoundError('the issue has no events');
    return this.get(rows[0].id, issueId);
  }

  /** The id of the event just older or newer than `event` in its issue, in the list's order. */
  private async neighbour(event: ErrorEvent, side: 'older' | 'newer'): Promise<string | null> {
    const [comparison, direction] = side === 'older' ? ['<', 'DESC'] : ['>', 'ASC'];
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 AND (timestamp, id) ${comparison} ($2::timestamptz, $3::uuid)
        ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [event.issueId, event.timestamp, event.id],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * The payload with the parts it shares with its issue's other events put back. They are stored
   * under the last day of the event's span of days (partDay), or under its own day when stored
   * before parts were shared across days.
   */
  private async withParts(event: ErrorEvent): Promise<Record<string, unknown>> {
    const refs = partRefs(event.payload);
    if (refs.length === 0) return event.payload;
    const parts = await this.events.query<Array<{ hash: string; content: unknown }>>(
      `SELECT DISTINCT ON (hash) hash, content FROM event_parts
        WHERE issue_id = $1 AND hash = ANY($3::text[]) AND day = ANY(ARRAY[$2::date, $4::date])`,
      [event.issueId, utcDay(event.receivedAt), refs, partDay(event.receivedAt)],
    );
    return joinParts(event.payload, new Map(parts.map((part) => [part.hash, part.content])));
  }

  /** The environment of the issue's most recent event (null when it had none, or has no events). */
  async latestEnvironment(issueId: number): Promise<string | null> {
    const latest = await this.events.findOne({
      where: { issueId },
      order: { timestamp: 'DESC', receivedAt: 'DESC' },
      select: { environment: true, id: true, projectId: true },
    });
    return latest?.environment ?? null;
  }
}

function toListItem(event: ErrorEvent, user: EventUser | null): EventListItem {
  return {
    id: event.id,
    issue_id: event.issueId,
    timestamp: event.timestamp.toISOString(),
    received_at: event.receivedAt.toISOString(),
    level: event.level,
    environment: event.environment,
    release: event.release,
    user: user ? { id: user.id ?? null, email: user.email ?? null } : null,
  };
}
