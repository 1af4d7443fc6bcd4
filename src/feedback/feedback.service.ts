import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AttachmentsRepository } from '../attachments/attachments.repository';
import { NotFoundError } from '../common/domain-errors';
import { decodeKeyCursor, DEFAULT_PAGE_SIZE, encodeKeyCursor, Page, toPage } from '../common/pagination';
import type { ListFeedbackQuery } from './dto/feedback.dto';
import { FeedbackCountView, FeedbackView } from './dto/feedback.response';
import { FeedbackRepository, FeedbackRow, FeedbackStatus } from './feedback.repository';

const hex = (uuid: string | null) => (uuid === null ? null : uuid.replace(/-/g, ''));

export function toFeedbackView(row: FeedbackRow): FeedbackView {
  return {
    id: row.id,
    project_id: row.project_id,
    event_id: hex(row.event_id) as string,
    associated_event_id: hex(row.associated_event_id),
    issue_id: row.issue_id,
    name: row.name,
    contact_email: row.contact_email,
    message: row.message,
    url: row.url,
    source: row.source,
    environment: row.environment,
    release: row.release,
    status: row.status,
    received_at: new Date(row.received_at).toISOString(),
  };
}

/** The feedback inbox of a project, the feedback of an issue, triage. */
@Injectable()
export class FeedbackService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly feedback: FeedbackRepository,
    private readonly attachments: AttachmentsRepository,
  ) {}

  ofProject(projectId: number, query: ListFeedbackQuery): Promise<Page<FeedbackView>> {
    return this.page({ projectId, status: query.status, query: query.query?.trim() || undefined }, query);
  }

  ofIssue(issueId: number, query: ListFeedbackQuery): Promise<Page<FeedbackView>> {
    return this.page({ issueId, status: query.status, query: query.query?.trim() || undefined }, query);
  }

  async get(projectId: number, id: number): Promise<FeedbackView> {
    const row = await this.feedback.findOne(projectId, id);
    if (!row) throw new NotFoundError(`feedback ${id} not found`);
    return toFeedbackView(row);
  }

  async setStatus(projectId: number, id: number, status: FeedbackStatus): Promise<FeedbackView> {
    const row = await this.feedback.setStatus(projectId, id, status);
    if (!row) throw new NotFoundError(`feedback ${id} not found`);
    return toFeedbackView(row);
  }

  /**
   * Deletes a feedback and the screenshots stored under its id, in one transaction: their blobs go
   * to the pending list (by the attachments' trigger), which the blob sweep empties.
   */
  async delete(projectId: number, id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const eventId = await this.feedback.delete(manager, projectId, id);
      if (eventId === null) throw new NotFoundError(`feedback ${id} not found`);
      await this.attachments.deleteOfEvents(manager, projectId, [eventId]);
    });
  }

  /** Unresolved counts of the issues of a project shown in a list (issues of other projects count 0). */
  async unresolvedCounts(projectId: number, issueIds: number[]): Promise<FeedbackCountView[]> {
    const unique = [...new Set(issueIds)];
    const counts = await this.feedback.unresolvedCounts(projectId, unique);
    return unique.map((issueId) => ({ issue_id: issueId, unresolved: counts.get(issueId) ?? 0 }));
  }

  private async page(
    filter: { projectId?: number; issueId?: number; status?: FeedbackStatus; query?: string },
    query: ListFeedbackQuery,
  ): Promise<Page<FeedbackView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.feedback.list({ ...filter, after: decodeKeyCursor(query.cursor, 'int'), limit });
    return toPage(
      rows,
      limit,
      (row) => encodeKeyCursor({ at: new Date(row.received_at), id: row.id }),
      toFeedbackView,
    );
  }
}
