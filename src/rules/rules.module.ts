import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { ProjectsModule } from '../projects/projects.module';
import { AlertHistoryController } from './alert-history.controller';
import { AlertHistoryEntry } from './alert-history.entity';
import { AlertRule } from './alert-rule.entity';
import { RulesController } from './rules.controller';
import { RulesService } from './rules.service';

@Module({
  imports: [TypeOrmModule.forFeature([AlertRule, AlertHistoryEntry]), ProjectsModule, ChannelsModule],
  controllers: [RulesController, AlertHistoryController],
  providers: [RulesService],
  exports: [RulesService],
})
export class RulesModule {}
