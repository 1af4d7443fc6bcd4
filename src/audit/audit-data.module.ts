import { Global, Module } from '@nestjs/common';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLog } from './audit-log.service';

/** The audit log, for every module that records in it (global: most of the API does). */
@Global()
@Module({
  providers: [AuditLogRepository, AuditLog],
  exports: [AuditLog],
})
export class AuditDataModule {}
