import { Module } from '@nestjs/common';
import { RollupsRepository } from './rollups.repository';

/** The rollup tables without routes: the digest writes them, retention trims them. */
@Module({
  providers: [RollupsRepository],
  exports: [RollupsRepository],
})
export class RollupsDataModule {}
