import { Global, Module } from '@nestjs/common';
import { AuditDataModule } from './audit-data.module';
import { AuditLog } from './audit-log.service';

/** The audit log, for every module that records in it (global: most of the API does). */
@Global()
@Module({
  imports: [AuditDataModule],
  providers: [AuditLog],
  exports: [AuditLog],
})
export class AuditLogModule {}
