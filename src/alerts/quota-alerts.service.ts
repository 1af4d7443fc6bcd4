import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../common/queues';
import { AppConfig } from '../config/app-config';
import { QuotaRefusalsService, RefusedPeriod } from '../limits/quota-refusals.service';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import { RulesRepository } from '../rules/rules.repository';
import { deliveryJobs, idempotencyKey } from './alert-dispatch.service';

/**
 * Alerts through the channels of the project's enabled `quota_exhausted` rules once per period a
 * quota refuses its events (run by the minute job of SpikeAlertsService): the idempotency key names
 * the project, the quota and its period, and a history row is inserted only when its key is new,
 * so later runs, and runs at once on other workers, add nothing.
 */
@Injectable()
export class QuotaAlertsService {
  private readonly logger = new Logger(QuotaAlertsService.name);

  constructor(
    private readonly refusals: QuotaRefusalsService,
    private readonly rules: RulesRepository,
    private readonly history: AlertHistoryRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(QueueName.Alerts) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  /** Returns the history rows queued for delivery. */
  async alert(now: number): Promise<number> {
    const periods = await this.refusals.refusedPeriods(now);
    if (periods.length === 0) return 0;
    const rules = await this.rules.listEnabledOfType('quota_exhausted');
    let queued = 0;
    for (const period of periods) {
      const entries = rules
        .filter((rule) => rule.projectId === period.projectId)
        .flatMap((rule) =>
          (rule.channels ?? [])
            .filter((channel) => channel.isEnabled)
            .map((channel) => ({
              projectId: period.projectId,
              ruleId: rule.id,
              channelId: channel.id,
              issueId: null,
              alertType: 'quota_exhausted' as const,
              quota: quotaAlert(period),
              channelType: channel.channelType,
              channelName: channel.name,
              status: 'pending' as const,
              error: null,
              attempts: 0,
              idempotencyKey: idempotencyKey(
                `quota-${period.projectId}-${period.reason}-${period.periodStart}`,
                rule.id,
                channel.id,
              ),
            })),
        );
      const rows = await this.history.insertNew(this.dataSource.manager, entries);
      if (rows.length === 0) continue;
      await this.queue.addBulk(deliveryJobs(rows, this.config.ALERTS_RETRY_BASE_DELAY_MS));
      this.logger.log(`${period.reason.replace('_', ' ')} of project ${period.projectId} used up: ${rows.length} alert(s)`);
      queued += rows.length;
    }
    return queued;
  }
}

function quotaAlert(period: RefusedPeriod) {
  return {
    reason: period.reason,
    limit: period.limit,
    since: period.since === null ? null : new Date(period.since).toISOString(),
    until: new Date(period.until).toISOString(),
  };
}
