import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { QueueName } from '../common/queues';
import { EventsService } from '../events/events.service';
import { IssuesService } from '../issues/issues.service';
import type { AlertHistoryEntry } from '../rules/alert-history.entity';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import type { AlertRule } from '../rules/alert-rule.entity';
import { RulesRepository } from '../rules/rules.repository';
import { conditionsMatch, needsEnvironment, parseConditions } from './alert-conditions';
import { AlertJobName, AlertTrigger, alertTriggerJobId } from '../issues/transitions/alert-trigger';
import { monitorOfGroupingKey } from '../issues/monitor-issue-key';

/** Payload of a `deliver` job: the history row it delivers (everything else is read from there). */
export interface AlertDeliveryJob {
  historyId: number;
}

/**
 * Delivery retries: 5 attempts with exponential backoff from a 2 s base (ALERTS_RETRY_BASE_DELAY_MS),
 * i.e. retries about 2, 4, 8 and 16 s after each failure: a receiver gets half a minute to recover
 * before the notification is marked `failed`.
 */
export const DELIVERY_ATTEMPTS = 5;

/** `deliver-<key>`: BullMQ refuses custom ids with `:` or that look like integers. */
export function deliveryJobId(idempotencyKey: string): string {
  return `deliver-${idempotencyKey}`;
}

/**
 * The delivery jobs of alert history rows, for the alerts queue's addBulk: one per row, its id
 * derived from the row's idempotency key, so that a job still queued is not added twice.
 */
export function deliveryJobs(rows: { id: number; idempotencyKey: string }[], retryBaseDelayMs: number) {
  return rows.map((row) => ({
    name: AlertJobName.Deliver,
    data: { historyId: row.id } satisfies AlertDeliveryJob,
    opts: {
      jobId: deliveryJobId(row.idempotencyKey),
      attempts: DELIVERY_ATTEMPTS,
      backoff: { type: 'exponential', delay: retryBaseDelayMs },
      removeOnComplete: 1_000,
      removeOnFail: 5_000,
    },
  }));
}

/**
 * Same trigger job, rule and channel → same key. A trigger job that runs twice (BullMQ is
 * at-least-once) finds its rows by this key instead of creating (and sending) new ones; receivers
 * get it as `X-Idempotency-Key`.
 */
export function idempotencyKey(triggerJobId: string, ruleId: number, channelId: number): string {
  return createHash('sha256').update(`${triggerJobId}\n${ruleId}\n${channelId}`).digest('hex');
}

/**
 * Why a rule's new rows are `skipped`: it already notified about the same issue or release within
 * its cooldown (`lastNotified` reads when, under the caller's cooldown lock). Null: not cooling down.
 */
export async function cooldownError(
  rule: Pick<AlertRule, 'name' | 'cooldownMinutes'>,
  about: 'issue' | 'release',
  lastNotified: () => Promise<Date | null>,
): Promise<string | null> {
  if (rule.cooldownMinutes <= 0) return null;
  const recent = await lastNotified();
  if (!recent) return null;
  return (
    `cooldown: rule "${rule.name}" already notified about this ${about} at ` +
    `${recent.toISOString()} (cooldown ${rule.cooldownMinutes} min)`
  );
}

/** Where one history row goes: a channel, or the issue's assignee (`channel_type` `assignee`). */
interface DeliveryTarget {
  /** Part of the idempotency key: the channel's id, or 0 for the assignee. */
  key: number;
  channelId: number | null;
  type: AlertHistoryEntry['channelType'];
  name: string;
}

/** The assignee's row: e-mailed to whoever is assigned when it is delivered (see AlertDeliveryService). */
export const ASSIGNEE_CHANNEL_TYPE = 'assignee' as const;
const ASSIGNEE_TARGET: DeliveryTarget = {
  key: 0,
  channelId: null,
  type: ASSIGNEE_CHANNEL_TYPE,
  name: 'assignee (e-mail)',
};

export interface DispatchResult {
  pending: number;
  skipped: number;
}

/**
 * Turns a lifecycle trigger into notifications: matches rules, applies conditions and cooldowns,
 * records history rows and queues one delivery job per pending row. It never sends anything itself.
 *
 * Cooldown semantics: per rule and issue. When the same rule has a `pending` or `sent` history row
 * for the same issue created less than `cooldown_minutes` ago (any channel, any earlier trigger),
 * every channel of the rule gets a `skipped` row instead of a notification. Skipped (and failed)
 * rows do not count, so a burst of regressions does not keep extending the silence: the window
 * runs from the last notification that actually went out (or is on its way). 0 means no cooldown.
 *
 * Disabled rules and disabled channels notify nobody and leave no history: disabling is the
 * operator's choice, not an event worth a row per trigger. A channel disabled after its row was
 * created is marked `skipped` by the delivery job.
 */
@Injectable()
export class AlertDispatchService {
  private readonly logger = new Logger(AlertDispatchService.name);

  constructor(
    private readonly rules: RulesRepository,
    private readonly history: AlertHistoryRepository,
    private readonly issues: IssuesService,
    private readonly events: EventsService,
    @InjectQueue(QueueName.Alerts) private readonly queue: Queue,
    private readonly config: AppConfig,
  ) {}

  async dispatch(trigger: AlertTrigger, triggerJobId = alertTriggerJobId(trigger)): Promise<DispatchResult> {
    const result: DispatchResult = { pending: 0, skipped: 0 };
    const issue = await this.issues.findOne(trigger.issueId, trigger.projectId);
    if (!issue) {
      this.logger.warn(`alert trigger ${trigger.alertType}: issue ${trigger.issueId} no longer exists`);
      return result;
    }
    const rules = await this.rules.listEnabled(trigger.projectId, trigger.alertType);
    let environment: string | null | undefined;
    const toDeliver: Array<{ id: number; idempotencyKey: string }> = [];
    const assigned = issue.assigneeUserId !== null || issue.assigneeTeamId !== null;
    for (const rule of rules) {
      const targets: DeliveryTarget[] = (rule.channels ?? [])
        .filter((channel) => channel.isEnabled)
        .sort((a, b) => a.id - b.id)
        .map((channel) => ({
          key: channel.id,
          channelId: channel.id,
          type: channel.channelType,
          name: channel.name,
        }));
      if (rule.notifyAssignee && assigned) targets.push(ASSIGNEE_TARGET);
      if (targets.length === 0) continue;
      const conditions = parseConditions(rule.conditions);
      if (needsEnvironment(conditions) && environment === undefined) {
        // A monitor's issue has no events: its environment is the one its grouping key names.
        environment =
          monitorOfGroupingKey(issue.groupingKey)?.environment ??
          (await this.events.latestEnvironment(issue.id));
      }
      const facts = { issueLevel: issue.level, environment: environment ?? null, issueKind: issue.kind };
      if (!conditionsMatch(conditions, facts)) continue;
      const rows = await this.recordRule(trigger, triggerJobId, rule, targets);
      for (const row of rows) {
        if (row.status === 'pending') toDeliver.push({ id: row.id, idempotencyKey: row.idempotencyKey });
        if (row.status === 'skipped') result.skipped++;
      }
    }
    result.pending = toDeliver.length;
    if (toDeliver.length > 0) {
      // Rows exist before their jobs: a crash in between leaves `pending` rows, which the retried
      // trigger job finds by key and queues again. A job id that is still queued is not added twice.
      await this.queue.addBulk(deliveryJobs(toDeliver, this.config.ALERTS_RETRY_BASE_DELAY_MS));
    }
    return result;
  }

  /**
   * The rows of one rule for one trigger (one per enabled channel, and one for the assignee), created if missing. Runs under a
   * transaction-scoped advisory lock on (rule, issue) so that two triggers of the same issue handled
   * by parallel workers cannot both pass the cooldown check.
   */
  private async recordRule(
    trigger: AlertTrigger,
    triggerJobId: string,
    rule: AlertRule,
    targets: DeliveryTarget[],
  ): Promise<AlertHistoryEntry[]> {
    const keys = new Map(
      targets.map((target) => [target.key, idempotencyKey(triggerJobId, rule.id, target.key)]),
    );
    return this.history.inCooldownLock(rule.id, trigger.issueId, async (manager) => {
      const existing = await this.history.findByKeys(manager, [...keys.values()]);
      const existingKeys = new Set(existing.map((row) => row.idempotencyKey));
      const missing = targets.filter((target) => !existingKeys.has(keys.get(target.key)!));
      if (missing.length === 0) return existing;

      const cooling = await cooldownError(rule, 'issue', () =>
        this.history.lastNotifiedWithin(manager, rule.id, trigger.issueId, rule.cooldownMinutes, [
          ...keys.values(),
        ]),
      );
      const created = await this.history.insertMany(
        manager,
        missing.map((target) => ({
          projectId: trigger.projectId,
          ruleId: rule.id,
          channelId: target.channelId,
          issueId: trigger.issueId,
          alertType: trigger.alertType,
          channelType: target.type,
          channelName: target.name,
          status: cooling ? 'skipped' : 'pending',
          error: cooling,
          attempts: 0,
          idempotencyKey: keys.get(target.key)!,
        })),
      );
      if (cooling)
        this.logger.log(`alert ${trigger.alertType} for issue ${trigger.issueId} skipped: ${cooling}`);
      return [...existing, ...created];
    });
  }
}
