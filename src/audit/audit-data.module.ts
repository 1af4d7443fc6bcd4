import { Module } from '@nestjs/common';
import { AuditLogRepository } from './audit-log.repository';

/** The audit log's rows, without services or routes. */
@Module({
  providers: [AuditLogRepository],
  exports: [AuditLogRepository],
})
export class AuditDataModule {}
