import { Module } from '@nestjs/common';
import { ReleasesDataModule } from '../releases/releases-data.module';
import { RollupsRepository } from './rollups.repository';
import { TagRollupsRepository } from './tag-rollups.repository';

/** The rollup tables without routes: the digest writes them, retention trims them. */
@Module({
  imports: [ReleasesDataModule],
  providers: [RollupsRepository, TagRollupsRepository],
  exports: [RollupsRepository, TagRollupsRepository],
})
export class RollupsDataModule {}
