import { Injectable } from '@nestjs/common';
import type { NotificationChannel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { InvalidInputError, NotFoundError } from '../common/domain-errors';
import { shortId } from '../issues/issue-view';
import type { AlertHistoryEntry } from './alert-history.entity';
import { AlertHistoryRepository } from './alert-history.repository';
import type { AlertRule, AlertType } from './alert-rule.entity';
import { DEFAULT_HISTORY_LIMIT } from './dto/history-query.dto';
import type { CreateRuleDto } from './dto/create-rule.dto';
import type { UpdateRuleDto } from './dto/update-rule.dto';
import { validateReleaseHealthConditions } from './release-health-conditions';
import { RuleConditionsError, validateRuleConditions } from './rule-conditions';
import { ReleaseHealthAlertStatesRepository } from './release-health-alert-states.repository';
import { RulesRepository } from './rules.repository';
import type { RuleView, AlertHistoryView } from './dto/rule.response';

export type { RuleView, AlertHistoryView };

/** Each type's own conditions: a release_health rule's are its metric and threshold, not filters. */
function checkedConditions(alertType: AlertType, raw: unknown): Record<string, unknown> {
  try {
    if (alertType === 'spike_protection' || alertType === 'quota_exhausted') return noConditions(alertType, raw);
    return alertType === 'release_health'
      ? { ...validateReleaseHealthConditions(raw) }
      : {
          ...validateRuleConditions(raw, alertType === 'monitor_failed' || alertType === 'monitor_recovered'),
        };
  } catch (error) {
    if (error instanceof RuleConditionsError) throw new InvalidInputError(error.message);
    throw error;
  }
}

/**
 * A spike_protection rule fires on the project's spikes, a quota_exhausted rule once per period a
 * quota refuses its events: neither has conditions of its own.
 */
function noConditions(alertType: AlertType, raw: unknown): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return {};
  throw new RuleConditionsError(`${alertType} rules take no conditions (send {})`);
}

/**
 * Alert rules of a project and the history of what they sent. Callers check that the project
 * exists; every rule lookup is scoped by project, so another project's rule id is a 404.
 */
@Injectable()
export class RulesService {
  constructor(
    private readonly rules: RulesRepository,
    private readonly history: AlertHistoryRepository,
    private readonly channels: ChannelsService,
    private readonly breaches: ReleaseHealthAlertStatesRepository,
  ) {}

  async list(projectId: number): Promise<RuleView[]> {
    const rules = await this.rules.listForProject(projectId);
    return rules.map(toRuleView);
  }

  async get(projectId: number, ruleId: number): Promise<RuleView> {
    return toRuleView(await this.findOrFail(projectId, ruleId));
  }

  async create(projectId: number, body: CreateRuleDto): Promise<RuleView> {
    const conditions = checkedConditions(body.alert_type, body.conditions ?? {});
    const channels = await this.existingChannels(body.channel_ids);
    const saved = await this.rules.insert({
      projectId,
      name: body.name.trim(),
      alertType: body.alert_type,
      isEnabled: body.is_enabled ?? true,
      cooldownMinutes: body.cooldown_minutes ?? 0,
      notifyAssignee: body.notify_assignee ?? false,
      conditions,
      channels,
    });
    return toRuleView(saved);
  }

  async update(projectId: number, ruleId: number, body: UpdateRuleDto): Promise<RuleView> {
    const rule = await this.findOrFail(projectId, ruleId);
    if (body.name !== undefined) rule.name = body.name.trim();
    if (body.is_enabled !== undefined) rule.isEnabled = body.is_enabled;
    if (body.cooldown_minutes !== undefined) rule.cooldownMinutes = body.cooldown_minutes;
    if (body.notify_assignee !== undefined) rule.notifyAssignee = body.notify_assignee;
    if (body.conditions !== undefined) rule.conditions = checkedConditions(rule.alertType, body.conditions);
    if (body.channel_ids !== undefined) rule.channels = await this.existingChannels(body.channel_ids);
    const saved = await this.rules.save(rule);
    // New thresholds or windows judge every release afresh: a breach of the old ones is forgotten.
    if (body.conditions !== undefined && rule.alertType === 'release_health')
      await this.breaches.closeAll(rule.id);
    return toRuleView(saved);
  }

  async remove(projectId: number, ruleId: number): Promise<void> {
    if (!(await this.rules.deleteInProject(projectId, ruleId)))
      throw new NotFoundError('alert rule not found');
  }

  /** Newest first, each with its issue's short id, read in the same query. */
  async listHistory(projectId: number, limit = DEFAULT_HISTORY_LIMIT): Promise<AlertHistoryView[]> {
    const rows = await this.history.listForProject(projectId, limit);
    return rows.map(({ entry, issueNumber, issueSlug }) =>
      toHistoryView(
        entry,
        issueNumber !== null && issueSlug !== null ? shortId(issueSlug, issueNumber) : null,
      ),
    );
  }

  private async findOrFail(projectId: number, ruleId: number): Promise<AlertRule> {
    const rule = await this.rules.findInProject(projectId, ruleId);
    if (!rule) throw new NotFoundError('alert rule not found');
    return rule;
  }

  /** Duplicates collapse; an id that names no channel is the client's mistake, reported by id. */
  private async existingChannels(ids: number[]): Promise<NotificationChannel[]> {
    const unique = [...new Set(ids)];
    const found = await this.channels.findByIds(unique);
    const foundIds = new Set(found.map((channel) => channel.id));
    const missing = unique.find((id) => !foundIds.has(id));
    if (missing !== undefined) throw new InvalidInputError(`channel_ids: channel ${missing} does not exist`);
    return found;
  }
}

export function toRuleView(rule: AlertRule): RuleView {
  return {
    id: rule.id,
    project_id: rule.projectId,
    name: rule.name,
    alert_type: rule.alertType,
    is_enabled: rule.isEnabled,
    conditions: rule.conditions,
    cooldown_minutes: rule.cooldownMinutes,
    notify_assignee: rule.notifyAssignee,
    channel_ids: (rule.channels ?? []).map((channel) => channel.id).sort((a, b) => a - b),
    created_at: rule.createdAt.toISOString(),
  };
}

export function toHistoryView(
  entry: AlertHistoryEntry,
  issueShortId: string | null = null,
): AlertHistoryView {
  return {
    id: entry.id,
    alert_type: entry.alertType,
    channel_type: entry.channelType,
    channel_name: entry.channelName,
    status: entry.status,
    error: entry.error,
    issue_id: entry.issueId,
    issue_short_id: issueShortId,
    release: entry.release,
    rule_id: entry.ruleId,
    channel_id: entry.channelId,
    created_at: entry.createdAt.toISOString(),
    sent_at: entry.sentAt?.toISOString() ?? null,
  };
}
