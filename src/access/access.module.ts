import { Module } from '@nestjs/common';
import { AccessRepository } from './access.repository';
import { RouteAccessService } from './route-access.service';

@Module({
  providers: [AccessRepository, RouteAccessService],
  exports: [RouteAccessService, AccessRepository],
})
export class AccessModule {}
