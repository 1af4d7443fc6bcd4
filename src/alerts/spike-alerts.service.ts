import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { QueueName } from '../common/queues';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { QuotaLimitsService, NewSpike } from '../limits/quota-limits.service';
import type { AlertHistoryEntry } from '../rules/alert-history.entity';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import { RulesRepository } from '../rules/rules.repository';
import { deliveryJobs, idempotencyKey } from './alert-dispatch.service';
import { QuotaAlertsService } from './quota-alerts.service';

/** Once a minute for the installation (the alerts queue's job scheduler). */
export const SPIKE_CHECK_EVERY_MS = 60_000;

export interface SpikeCheckReport {
  /** Projects whose limits were published to Redis. */
  published: number;
  /** Spikes that engaged since the last run. */
  spikes: number;
  /** History rows queued for delivery. */
  queued: number;
  /** Alerts of quotas used up queued for delivery (one per rule, channel and period). */
  quota_alerts: number;
}

/**
 * The minute job of quotas and spike protection: publishes every project's limits (its spike limit
 * follows its recent hourly volume), records the spikes ingest marked, and alerts once per spike
 * through the channels of the project's enabled `spike_protection` rules; and alerts once per period
 * a quota refuses a project's events (QuotaAlertsService).
 */
@Injectable()
export class SpikeAlertsService {
  private readonly logger = new Logger(SpikeAlertsService.name);
  private readonly failures = new RepeatedLog(this.logger, 60_000);

  constructor(
    private readonly limits: QuotaLimitsService,
    private readonly quotaAlerts: QuotaAlertsService,
    private readonly rules: RulesRepository,
    private readonly history: AlertHistoryRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(QueueName.Alerts) private readonly queue: Queue,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** A failed run is logged (at most once a minute) and retried by the next one. */
  async check(now = this.clock.now()): Promise<SpikeCheckReport> {
    const report: SpikeCheckReport = { published: 0, spikes: 0, queued: 0, quota_alerts: 0 };
    try {
      report.published = await this.limits.publishAll(now);
      const spikes = await this.limits.collectSpikes(now);
      report.spikes = spikes.length;
      for (const spike of spikes) report.queued += await this.alert(spike);
      report.quota_alerts = await this.quotaAlerts.alert(now);
    } catch (error) {
      this.failures.warn(
        'check',
        `spike protection check failed, retried in a minute: ${(error as Error).message}`,
      );
    }
    return report;
  }

  private async alert(spike: NewSpike): Promise<number> {
    const rules = (await this.rules.listEnabledOfType('spike_protection')).filter(
      (rule) => rule.projectId === spike.project_id,
    );
    const entries = rules.flatMap((rule) =>
      (rule.channels ?? [])
        .filter((channel) => channel.isEnabled)
        .map((channel) => ({
          projectId: spike.project_id,
          ruleId: rule.id,
          channelId: channel.id,
          issueId: null,
          alertType: 'spike_protection' as const,
          spike: {
            spike_id: spike.id,
            started_at: spike.started_at.toISOString(),
            limit_per_hour: spike.limit_per_hour,
            dropped: Number(spike.dropped_this_hour),
          },
          channelType: channel.channelType,
          channelName: channel.name,
          status: 'pending' as const,
          error: null,
          attempts: 0,
          idempotencyKey: idempotencyKey(`spike-${spike.id}`, rule.id, channel.id),
        })),
    );
    if (entries.length === 0) return 0;
    const rows = await this.history.insertMany(this.dataSource.manager, entries);
    await this.queueDeliveries(rows);
    return rows.length;
  }

  private async queueDeliveries(rows: AlertHistoryEntry[]): Promise<void> {
    await this.queue.addBulk(deliveryJobs(rows, this.config.ALERTS_RETRY_BASE_DELAY_MS));
  }
}
