import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { NotFoundError } from '../common/domain-errors';
import { BlobStore } from '../storage/blob-store';
import { AttachmentRow, AttachmentsRepository } from './attachments.repository';
import type { AttachmentView, IssueAttachmentsView } from './dto/attachment.response';

export type { AttachmentView, IssueAttachmentsView };

/** Reading the files stored with events: the list of an event's files, one file's bytes. */
@Injectable()
export class AttachmentsService {
  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly store: BlobStore,
  ) {}

  async list(projectId: number, eventId: string): Promise<AttachmentView[]> {
    return (await this.attachments.listForEvent(projectId, eventId)).map(toView);
  }

  /** Files per event id, for a list of events (0 for those without). */
  async countsForEvents(projectId: number, eventIds: string[]): Promise<Map<string, number>> {
    return this.attachments.countsForEvents(projectId, eventIds);
  }

  async summaryForIssue(issue: {
    id: number;
    projectId: number;
    firstSeen: Date;
  }): Promise<IssueAttachmentsView> {
    const summary = await this.attachments.summaryForIssue(issue.projectId, issue.id, issue.firstSeen);
    return {
      files: summary.files,
      events: summary.events,
      bytes: summary.bytes,
      latest_event_id: summary.latestEventId,
    };
  }

  async open(
    projectId: number,
    eventId: string,
    id: number,
  ): Promise<{ row: AttachmentRow; body: Readable }> {
    const row = await this.attachments.find(projectId, eventId, id);
    if (!row) throw new NotFoundError('attachment not found');
    return { row, body: this.store.read(row.blobKey) };
  }
}

function toView(row: AttachmentRow): AttachmentView {
  const eventHex = row.eventId.replace(/-/g, '');
  return {
    id: row.id,
    event_id: row.eventId,
    name: row.name,
    content_type: row.contentType,
    attachment_type: row.attachmentType,
    size: row.size,
    sha256: row.sha256,
    received_at: row.receivedAt.toISOString(),
    download_url: `/api/projects/${row.projectId}/events/${eventHex}/attachments/${row.id}`,
  };
}
