import { Module } from '@nestjs/common';
import { PrivacyDataModule } from '../privacy-data.module';
import { InboundFilterSnapshot } from './inbound-filter-snapshot.service';

/** The in-memory snapshot of every project's inbound filters, for ingest and the filters API. */
@Module({
  imports: [PrivacyDataModule],
  providers: [InboundFilterSnapshot],
  exports: [InboundFilterSnapshot],
})
export class InboundFilterSnapshotModule {}
