import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotificationChannel } from '../channels/channel.entity';
import { ChannelsService } from '../channels/channels.service';
import { InvalidInputError, NotFoundError } from '../common/domain-errors';
import { shortId } from '../issues/issue-view';
import { AlertHistoryEntry, AlertStatus } from './alert-history.entity';
import { AlertRule, AlertType } from './alert-rule.entity';
import { DEFAULT_HISTORY_LIMIT } from './dto/history-query.dto';
import type { CreateRuleDto } from './dto/create-rule.dto';
import type { UpdateRuleDto } from './dto/update-rule.dto';
import { RuleConditionsError, validateRuleConditions } from './rule-conditions';

export interface RuleView {
  id: number;
  project_id: number;
  name: string;
  alert_type: AlertType;
  is_enabled: boolean;
  conditions: Record<string, unknown>;
  cooldown_minutes: number;
  notify_assignee: boolean;
  channel_ids: number[];
  created_at: string;
}

export interface AlertHistoryView {
  id: number;
  alert_type: AlertType;
  channel_type: string;
  channel_name: string;
  status: AlertStatus;
  error: string | null;
  issue_id: number | null;
  /** `<SLUG>-<n>` of the issue, for people; null once the issue is deleted. */
  issue_short_id: string | null;
  rule_id: number | null;
  channel_id: number | null;
  created_at: string;
  sent_at: string | null;
}

function checkedConditions(raw: unknown): Record<string, unknown> {
  try {
    return { ...validateRuleConditions(raw) };
  } catch (error) {
    if (error instanceof RuleConditionsError) throw new InvalidInputError(error.message);
    throw error;
  }
}

/**
 * Alert rules of a project and the history of what they sent. Callers check that the project
 * exists; every rule lookup is scoped by project, so another project's rule id is a 404.
 */
@Injectable()
export class RulesService {
  constructor(
    @InjectRepository(AlertRule) private readonly rules: Repository<AlertRule>,
    @InjectRepository(AlertHistoryEntry) private readonly history: Repository<AlertHistoryEntry>,
    private readonly channels: ChannelsService,
  ) {}

  async list(projectId: number): Promise<RuleView[]> {
    const rules = await this.rules.find({
      where: { projectId },
      relations: { channels: true },
      order: { id: 'ASC' },
    });
    return rules.map(toRuleView);
  }

  async get(projectId: number, ruleId: number): Promise<RuleView> {
    return toRuleView(await this.findOrFail(projectId, ruleId));
  }

  async create(projectId: number, body: CreateRuleDto): Promise<RuleView> {
    const conditions = checkedConditions(body.conditions ?? {});
    const channels = await this.existingChannels(body.channel_ids);
    const saved = await this.rules.save(
      this.rules.create({
        projectId,
        name: body.name.trim(),
        alertType: body.alert_type,
        isEnabled: body.is_enabled ?? true,
        cooldownMinutes: body.cooldown_minutes ?? 0,
        notifyAssignee: body.notify_assignee ?? false,
        conditions,
        channels,
      }),
    );
    return toRuleView(saved);
  }

  async update(projectId: number, ruleId: number, body: UpdateRuleDto): Promise<RuleView> {
    const rule = await this.findOrFail(projectId, ruleId);
    if (body.name !== undefined) rule.name = body.name.trim();
    if (body.is_enabled !== undefined) rule.isEnabled = body.is_enabled;
    if (body.cooldown_minutes !== undefined) rule.cooldownMinutes = body.cooldown_minutes;
    if (body.notify_assignee !== undefined) rule.notifyAssignee = body.notify_assignee;
    if (body.conditions !== undefined) rule.conditions = checkedConditions(body.conditions);
    if (body.channel_ids !== undefined) rule.channels = await this.existingChannels(body.channel_ids);
    return toRuleView(await this.rules.save(rule));
  }

  async remove(projectId: number, ruleId: number): Promise<void> {
    const result = await this.rules.delete({ id: ruleId, projectId });
    if (!result.affected) throw new NotFoundError('alert rule not found');
  }

  /** Newest first, each with its issue's short id, read in the same query. */
  async listHistory(projectId: number, limit = DEFAULT_HISTORY_LIMIT): Promise<AlertHistoryView[]> {
    const { entities, raw } = await this.history
      .createQueryBuilder('h')
      .leftJoin('issues', 'i', 'i.id = h.issue_id')
      .leftJoin('projects', 'p', 'p.id = i.project_id')
      .addSelect('i.number', 'issue_number')
      .addSelect('p.slug', 'issue_slug')
      .where('h.project_id = :projectId', { projectId })
      .orderBy('h.created_at', 'DESC')
      .addOrderBy('h.id', 'DESC')
      .limit(limit)
      .getRawAndEntities<{ h_id: number; issue_number: number | null; issue_slug: string | null }>();
    const shortIds = new Map(
      raw
        .filter((row) => row.issue_number !== null && row.issue_slug !== null)
        .map((row) => [Number(row.h_id), shortId(row.issue_slug!, Number(row.issue_number))]),
    );
    return entities.map((entry) => toHistoryView(entry, shortIds.get(entry.id) ?? null));
  }

  private async findOrFail(projectId: number, ruleId: number): Promise<AlertRule> {
    const rule = await this.rules.findOne({
      where: { id: ruleId, projectId },
      relations: { channels: true },
    });
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
    rule_id: entry.ruleId,
    channel_id: entry.channelId,
    created_at: entry.createdAt.toISOString(),
    sent_at: entry.sentAt?.toISOString() ?? null,
  };
}
