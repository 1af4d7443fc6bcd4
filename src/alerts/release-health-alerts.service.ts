import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { QueueName } from '../common/queues';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { ReleaseHealthRepository } from '../releases/health/release-health.repository';
import type { AlertHistoryEntry, ReleaseBreach } from '../rules/alert-history.entity';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import type { AlertRule } from '../rules/alert-rule.entity';
import { parseReleaseHealthConditions } from '../rules/release-health-conditions';
import { ReleaseHealthAlertStatesRepository } from '../rules/release-health-alert-states.repository';
import { RulesRepository } from '../rules/rules.repository';
import { cooldownError, deliveryJobs, idempotencyKey } from './alert-dispatch.service';
import { alertWindow, judgeReleases } from './release-health-judge';

/** When the evaluation runs: once a minute for the installation (the alerts queue's job scheduler). */
export const RELEASE_HEALTH_EVALUATION_EVERY_MS = 60_000;

export interface EvaluationReport {
  rules: number;
  /** Breaches that alerted (each one rule and release). */
  breaches: number;
  recoveries: number;
  /** History rows queued for delivery. */
  queued: number;
}

/** Names one breach in its rows' idempotency keys, as a trigger job's id does for issue alerts. */
export function breachKeySource(ruleId: number, breachId: string): string {
  return `release-health-${ruleId}-${breachId}`;
}

/**
 * Evaluates the `release_health` rules: for each enabled rule, each release's crash-free figure over
 * the rule's window, read from the hourly rows the session fold writes; a release found in breach
 * alerts once through the rule's channels (history rows, delivery jobs with retries, as issue alerts),
 * and again only after it recovered. Cooldowns mean what they mean for issues, per rule and release:
 * a breach within `cooldown_minutes` of the rule's last notification about the release gets
 * `skipped` rows. Run once a minute; several runs at once fire a breach once (the state row's key).
 */
@Injectable()
export class ReleaseHealthAlertsService {
  private readonly logger = new Logger(ReleaseHealthAlertsService.name);
  private readonly ruleFailures = new RepeatedLog(this.logger, 60_000);

  constructor(
    private readonly rules: RulesRepository,
    private readonly health: ReleaseHealthRepository,
    private readonly states: ReleaseHealthAlertStatesRepository,
    private readonly history: AlertHistoryRepository,
    @InjectQueue(QueueName.Alerts) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  /**
   * A run that fails (the database away) is only logged, at most once a minute: the next minute's
   * run judges the same figures, and an outage must not fill the failed set with a job a minute.
   */
  async evaluate(now = new Date()): Promise<EvaluationReport> {
    let rules: AlertRule[];
    try {
      rules = await this.rules.listEnabledOfType('release_health');
    } catch (error) {
      this.ruleFailures.warn(
        'rules',
        `release health rules not evaluated, retried in a minute: ${(error as Error).message}`,
      );
      return { rules: 0, breaches: 0, recoveries: 0, queued: 0 };
    }
    const report: EvaluationReport = { rules: rules.length, breaches: 0, recoveries: 0, queued: 0 };
    for (const rule of rules) {
      try {
        await this.evaluateRule(rule, now, report);
      } catch (error) {
        // One rule's failure (a lost connection) must not hold back the others: the next run retries it.
        this.ruleFailures.warn(
          `rule:${rule.id}`,
          `release health rule ${rule.id} not evaluated, retried in a minute: ${(error as Error).message}`,
        );
      }
    }
    return report;
  }

  private async evaluateRule(rule: AlertRule, now: Date, report: EvaluationReport): Promise<void> {
    const conditions = parseReleaseHealthConditions(rule.conditions);
    if (!conditions) {
      this.ruleFailures.warn(
        `conditions:${rule.id}`,
        `release health rule ${rule.id} has invalid conditions`,
      );
      return;
    }
    const { from, to } = alertWindow(conditions.window_hours, now);
    const [rows, open] = await Promise.all([
      this.health.countsPerRelease(rule.projectId, from, to, conditions.environments ?? null),
      this.states.openFor(rule.id),
    ]);
    const counts = rows.map(({ key, ...figures }) => ({ release: key, ...figures }));
    const judgement = judgeReleases(conditions, counts, new Set(open.map((state) => state.release)));
    await this.states.close(rule.id, judgement.recoveries);
    report.recoveries += judgement.recoveries.length;

    const toDeliver: AlertHistoryEntry[] = [];
    for (const { release, breach } of judgement.breaches) {
      const rows = await this.openBreach(rule, release, breach, now);
      if (rows.length > 0) report.breaches++;
      toDeliver.push(...rows.filter((row) => row.status === 'pending'));
    }
    // A crash between a breach's commit and its jobs leaves pending rows: queued again here, by the
    // same job ids (a job still queued is not added twice).
    const stillOpen = open.filter((state) => !judgement.recoveries.includes(state.release));
    const keys = stillOpen.flatMap((state) =>
      (rule.channels ?? []).map((channel) =>
        idempotencyKey(breachKeySource(rule.id, state.breachId), rule.id, channel.id),
      ),
    );
    toDeliver.push(...(await this.history.pendingWithKeys(keys)));
    report.queued += await this.queueDeliveries(toDeliver);
  }

  /** The breach's rows (one per enabled channel); none when another evaluation opened it first. */
  private async openBreach(
    rule: AlertRule,
    release: string,
    breach: ReleaseBreach,
    now: Date,
  ): Promise<AlertHistoryEntry[]> {
    const channels = (rule.channels ?? []).filter((channel) => channel.isEnabled).sort((a, b) => a.id - b.id);
    const breachId = randomUUID();
    return this.history.inReleaseCooldownLock(rule.id, release, async (manager) => {
      if (!(await this.states.open(manager, rule.id, release, breachId, now))) return [];
      if (channels.length === 0) return [];
      const cooling = await cooldownError(rule, 'release', () =>
        this.history.lastNotifiedAboutReleaseWithin(manager, rule.id, release, rule.cooldownMinutes),
      );
      const rows = await this.history.insertMany(
        manager,
        channels.map((channel) => ({
          projectId: rule.projectId,
          ruleId: rule.id,
          channelId: channel.id,
          issueId: null,
          release,
          releaseBreach: breach,
          alertType: 'release_health' as const,
          channelType: channel.channelType,
          channelName: channel.name,
          status: cooling ? ('skipped' as const) : ('pending' as const),
          error: cooling,
          attempts: 0,
          idempotencyKey: idempotencyKey(breachKeySource(rule.id, breachId), rule.id, channel.id),
        })),
      );
      this.logger.log(
        `release ${release} of project ${rule.projectId}: ${breach.metric} ${breach.value.toFixed(2)}% ` +
          `below ${breach.threshold}% (rule ${rule.id})${cooling ? `; ${cooling}` : ''}`,
      );
      return rows;
    });
  }

  private async queueDeliveries(rows: AlertHistoryEntry[]): Promise<number> {
    if (rows.length === 0) return 0;
    await this.queue.addBulk(deliveryJobs(rows, this.config.ALERTS_RETRY_BASE_DELAY_MS));
    return rows.length;
  }
}
