import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ProjectsModule } from '../projects/projects.module';
import { AlertHistoryController } from './alert-history.controller';
import { RulesController } from './rules.controller';
import { RulesDataModule } from './rules-data.module';
import { RulesService } from './rules.service';

@Module({
  imports: [RulesDataModule, ProjectsModule, ChannelsModule],
  controllers: [RulesController, AlertHistoryController],
  providers: [RulesService],
  exports: [RulesService],
})
export class RulesModule {}
