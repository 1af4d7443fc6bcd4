import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { QuotaLimitsModule } from './quota-limits.module';
import { QuotasController } from './quotas.controller';
import { QuotasService } from './quotas.service';

/** The quotas and spike protection API (role `api`). */
@Module({
  imports: [QuotaLimitsModule, ProjectsModule],
  controllers: [QuotasController],
  providers: [QuotasService],
})
export class LimitsModule {}
