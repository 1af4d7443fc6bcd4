import { Module } from '@nestjs/common';
import { AttachmentsController } from './attachments.controller';
import { AttachmentsDataModule } from './attachments-data.module';
import { AttachmentsService } from './attachments.service';

/** The attachments API (role `api`). */
@Module({
  imports: [AttachmentsDataModule],
  controllers: [AttachmentsController],
  providers: [AttachmentsService],
  exports: [AttachmentsService],
})
export class AttachmentsModule {}
