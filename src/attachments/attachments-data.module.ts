import { Module } from '@nestjs/common';
import { AttachmentsRepository } from './attachments.repository';

/** The attachment rows, for ingest (writing) and retention (deleting). */
@Module({
  providers: [AttachmentsRepository],
  exports: [AttachmentsRepository],
})
export class AttachmentsDataModule {}
