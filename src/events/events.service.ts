import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DEFAULT_PAGE_SIZE, decodeCursor, Page, toPage } from '../common/pagination';
import { ErrorEvent } from './event.entity';

export interface EventListItem {
  id: string;
  issue_id: number;
  timestamp: string;
  received_at: string;
  level: string;
  environment: string | null;
  release: string | null;
  user: { id: string | null; email: string | null } | null;
}

export type FullEventView = EventListItem & { project_id: number } & Record<string, unknown>;

@Injectable()
export class EventsService {
  constructor(@InjectRepository(ErrorEvent) private readonly events: Repository<ErrorEvent>) {}

  /** Newest first; paginated by (timestamp, id). */
  async listForIssue(
    issueId: number,
    options: { limit?: number; cursor?: string },
  ): Promise<Page<EventListItem>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeCursor(options.cursor);
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
        'event.user',
      ])
      .where('event.issue_id = :issueId', { issueId });
    if (cursor) {
      query.andWhere('(event.timestamp, event.id) < (:at, :id)', { at: cursor.at, id: cursor.id });
    }
    const rows = await query
      .orderBy('event.timestamp', 'DESC')
      .addOrderBy('event.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    return toPage(rows, limit, (row) => ({ at: row.timestamp, id: row.id }), toListItem);
  }

  async get(id: string): Promise<FullEventView> {
    const event = await this.events.findOne({ where: { id }, order: { receivedAt: 'ASC' } });
    if (!event) throw new NotFoundException('event not found');
    return { ...event.payload, ...toListItem(event), project_id: event.projectId };
  }
}

function toListItem(event: ErrorEvent): EventListItem {
  return {
    id: event.id,
    issue_id: event.issueId,
    timestamp: event.timestamp.toISOString(),
    received_at: event.receivedAt.toISOString(),
    level: event.level,
    environment: event.environment,
    release: event.release,
    user: event.user ? { id: event.user.id ?? null, email: event.user.email ?? null } : null,
  };
}
