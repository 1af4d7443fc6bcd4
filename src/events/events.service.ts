import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import { DEFAULT_PAGE_SIZE, decodeKeyCursor, encodeKeyCursor, Page, toPage } from '../common/pagination';
import type { ErrorEvent, EventUser } from './event.entity';
import { partDay, utcDay } from './event-partitions';
import { joinParts, partRefs } from './event-parts';
import { fullEvent } from './event-payload';
import { EventsRepository } from './events.repository';
import type { EventListItem, FullEventView } from './dto/event.response';

export type { EventListItem, FullEventView };

@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** Newest first; paginated by (timestamp, id). */
  async listForIssue(
    issueId: number,
    options: { limit?: number; cursor?: string; query?: string },
  ): Promise<Page<EventListItem>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeKeyCursor(options.cursor, 'uuid');
    const rows = await this.events.pageForIssue(issueId, {
      limit: limit + 1,
      after: cursor,
      query: options.query,
    });
    return toPage(
      rows,
      limit,
      (last) => encodeKeyCursor({ at: last.event.timestamp, id: last.event.id }),
      (row) => toListItem(row.event, row.user),
    );
  }

  /** Looked up by id alone: each day's partition has an index that leads with the event id. */
  async get(id: string, issueId?: number, projectIds: number[] | null = null): Promise<FullEventView> {
    // Sorted here, not in SQL (see EventsRepository.findById). Two projects may hold the same id:
    // the first stored that the request may see wins.
    const [event] = (await this.events.findById(id, issueId))
      .filter((found) => projectIds === null || projectIds.includes(found.projectId))
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime());
    if (!event) throw new NotFoundError('event not found');
    const payload = fullEvent(await this.withParts(event), event);
    const [previous, next] = await Promise.all([
      this.events.neighbourId(event, 'older'),
      this.events.neighbourId(event, 'newer'),
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
    const id = await this.events.edgeId(issueId, which);
    if (id === null) throw new NotFoundError('the issue has no events');
    return this.get(id, issueId);
  }

  /**
   * The payload with the parts it shares with its issue's other events put back. They are stored
   * under the last day of the event's span of days (partDay), or under its own day when stored
   * before parts were shared across days.
   */
  private async withParts(event: ErrorEvent): Promise<Record<string, unknown>> {
    const refs = partRefs(event.payload);
    if (refs.length === 0) return event.payload;
    const parts = await this.events.findParts(event.issueId, refs, [
      utcDay(event.receivedAt),
      partDay(event.receivedAt),
    ]);
    return joinParts(event.payload, new Map(parts.map((part) => [part.hash, part.content])));
  }

  /** The environment of the issue's most recent event (null when it had none, or has no events). */
  async latestEnvironment(issueId: number): Promise<string | null> {
    const latest = await this.events.latest(issueId);
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
