import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { NotificationChannel } from '../channels/channel.entity';
import { AlertRule, AlertType } from './alert-rule.entity';

/** The alert_rules table and its channels (alert_rule_channels): every statement on rules is here. */
@Injectable()
export class RulesRepository {
  constructor(@InjectRepository(AlertRule) private readonly rules: Repository<AlertRule>) {}

  /** A project's rules with their channels, by id. */
  listForProject(projectId: number): Promise<AlertRule[]> {
    return this.rules.find({ where: { projectId }, relations: { channels: true }, order: { id: 'ASC' } });
  }

  /** A rule of this project with its channels; null when the project has none by that id. */
  findInProject(projectId: number, ruleId: number): Promise<AlertRule | null> {
    return this.rules.findOne({ where: { id: ruleId, projectId }, relations: { channels: true } });
  }

  /** The enabled rules of a project for one kind of trigger, with their channels, by id. */
  listEnabled(projectId: number, alertType: AlertType): Promise<AlertRule[]> {
    return this.rules.find({
      where: { projectId, alertType, isEnabled: true },
      relations: { channels: true },
      order: { id: 'ASC' },
    });
  }

  /** The enabled rules of one type in every project, with their channels: what a schedule evaluates. */
  listEnabledOfType(alertType: AlertType): Promise<AlertRule[]> {
    return this.rules.find({
      where: { alertType, isEnabled: true },
      relations: { channels: true },
      order: { id: 'ASC' },
    });
  }

  insert(rule: {
    projectId: number;
    name: string;
    alertType: AlertType;
    isEnabled: boolean;
    cooldownMinutes: number;
    notifyAssignee: boolean;
    conditions: Record<string, unknown>;
    channels: NotificationChannel[];
  }): Promise<AlertRule> {
    return this.rules.save(this.rules.create(rule));
  }

  /** Saves a rule found here, its channels included. */
  save(rule: AlertRule): Promise<AlertRule> {
    return this.rules.save(rule);
  }

  /** False when the project has no rule by that id. */
  async deleteInProject(projectId: number, ruleId: number): Promise<boolean> {
    const result = await this.rules.delete({ id: ruleId, projectId });
    return Boolean(result.affected);
  }
}
