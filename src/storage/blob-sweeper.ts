import { Injectable, Logger } from '@nestjs/common';
import { BlobStore } from './blob-store';
import { PendingBlobsRepository } from './pending-blobs.repository';

const BATCH = 500;

/**
 * Deletes the blobs on the pending list once due: those of deleted attachments and source map
 * files, of duplicates, and those an upload staged and never recorded (it failed, or its process
 * died). Run by retention; each batch is deleted from the store before it leaves the list, so a
 * sweep cut short loses nothing.
 */
@Injectable()
export class BlobSweeper {
  private readonly logger = new Logger(BlobSweeper.name);

  constructor(
    private readonly pending: PendingBlobsRepository,
    private readonly store: BlobStore,
  ) {}

  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const keys = await this.pending.due(BATCH);
      if (keys.length === 0) break;
      await this.store.delete(keys);
      await this.pending.forget(keys);
      total += keys.length;
      if (keys.length < BATCH) break;
    }
    if (total > 0) this.logger.log(`deleted ${total} file blob(s) nothing holds`);
    return total;
  }
}
