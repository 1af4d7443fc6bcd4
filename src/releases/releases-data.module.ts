import { Module } from '@nestjs/common';
import { ReleasesRepository } from './releases.repository';

/** The releases table without routes: the digest and the rollup fold write it. */
@Module({
  providers: [ReleasesRepository],
  exports: [ReleasesRepository],
})
export class ReleasesDataModule {}
