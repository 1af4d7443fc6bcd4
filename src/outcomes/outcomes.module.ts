import { Module } from '@nestjs/common';
import { ProjectsModule } from '../projects/projects.module';
import { RollupsDataModule } from '../rollups/rollups-data.module';
import { OutcomesController } from './outcomes.controller';
import { OutcomesDataModule } from './outcomes-data.module';
import { OutcomesService } from './outcomes.service';

/** The outcomes API (role `api`). */
@Module({
  imports: [OutcomesDataModule, RollupsDataModule, ProjectsModule],
  controllers: [OutcomesController],
  providers: [OutcomesService],
})
export class OutcomesModule {}
