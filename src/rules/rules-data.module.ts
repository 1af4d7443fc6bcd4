import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AlertHistoryEntry } from './alert-history.entity';
import { AlertHistoryRepository } from './alert-history.repository';
import { AlertRule } from './alert-rule.entity';
import { ReleaseHealthAlertStatesRepository } from './release-health-alert-states.repository';
import { RulesRepository } from './rules.repository';

/** The rules' and the alert history's rows without the HTTP routes, for workers (alert dispatch and delivery). */
@Module({
  imports: [TypeOrmModule.forFeature([AlertRule, AlertHistoryEntry])],
  providers: [RulesRepository, AlertHistoryRepository, ReleaseHealthAlertStatesRepository],
  exports: [RulesRepository, AlertHistoryRepository, ReleaseHealthAlertStatesRepository],
})
export class RulesDataModule {}
