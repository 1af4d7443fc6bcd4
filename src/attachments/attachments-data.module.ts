import { Module } from '@nestjs/common';
import { AttachmentSweeper } from './attachment-sweeper';
import { AttachmentsRepository } from './attachments.repository';

/** The attachment rows and the blob sweep, for ingest (writing) and retention (deleting). */
@Module({
  providers: [AttachmentsRepository, AttachmentSweeper],
  exports: [AttachmentsRepository, AttachmentSweeper],
})
export class AttachmentsDataModule {}
