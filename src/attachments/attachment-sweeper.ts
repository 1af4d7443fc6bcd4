import { Injectable, Logger } from '@nestjs/common';
import { BlobStore } from '../storage/blob-store';
import { AttachmentsRepository } from './attachments.repository';

const BATCH = 500;

/**
 * Deletes the blobs on the pending list once due: those of deleted attachments, of duplicates, and
 * those a request staged and never committed (it failed, or its process died). Run by retention;
 * each batch is deleted from the store before it leaves the list, so a sweep cut short loses nothing.
 */
@Injectable()
export class AttachmentSweeper {
  private readonly logger = new Logger(AttachmentSweeper.name);

  constructor(
    private readonly attachments: AttachmentsRepository,
    private readonly store: BlobStore,
  ) {}

  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const keys = await this.attachments.due(BATCH);
      if (keys.length === 0) break;
      await this.store.delete(keys);
      await this.attachments.forget(keys);
      total += keys.length;
      if (keys.length < BATCH) break;
    }
    if (total > 0) this.logger.log(`deleted ${total} file blob(s) no attachment holds`);
    return total;
  }
}
