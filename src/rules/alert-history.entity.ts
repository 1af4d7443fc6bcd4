import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ChannelType } from '../channels/channel.entity';
import type { AlertType } from './alert-rule.entity';
import type { ReleaseHealthMetric } from './release-health-conditions';

/** A release's figure found below a rule's threshold: what its notifications say. */
export interface ReleaseBreach {
  metric: ReleaseHealthMetric;
  /** Percent, not rounded. */
  value: number;
  threshold: number;
  window_hours: number;
  min_sessions: number;
  /** Sessions and distinct users of the release in the window. */
  sessions: number;
  users: number;
  /** The rule's environments; null: every environment. */
  environments: string[] | null;
}

/** A spike protection engagement: what its one alert says. */
export interface SpikeAlert {
  spike_id: number;
  started_at: string;
  limit_per_hour: number;
  /** Events dropped by the time the alert was raised. */
  dropped: number;
}

/** A quota used up: what its one alert per period says. */
export interface QuotaAlert {
  reason: 'daily_quota' | 'monthly_quota';
  limit: number;
  /** The first event refused; null when Redis had lost the moment. */
  since: string | null;
  /** When events are accepted again. */
  until: string;
}

export const ALERT_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/**
 * One notification of one channel by one rule about one issue (or, for `release_health`, one release). Channel name and type are copied so
 * the history still reads well after the channel is renamed or deleted.
 */
@Entity('alert_history')
@Index(['projectId', 'createdAt'])
@Index(['ruleId', 'issueId', 'createdAt'])
export class AlertHistoryEntry {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'project_id', type: 'int' })
  projectId: number;

  @Column({ name: 'rule_id', type: 'int', nullable: true })
  ruleId: number | null;

  @Column({ name: 'channel_id', type: 'int', nullable: true })
  channelId: number | null;

  @Column({ name: 'issue_id', type: 'int', nullable: true })
  issueId: number | null;

  @Column({ name: 'alert_type', type: 'text' })
  alertType: AlertType;

  /** The release a `release_health` alert is about; null for issue alerts. */
  @Column({ type: 'text', nullable: true })
  release: string | null;

  /** What a `release_health` alert measured, for its notification; null for issue alerts. */
  @Column({ name: 'release_breach', type: 'jsonb', nullable: true })
  releaseBreach: ReleaseBreach | null;

  /** What a `spike_protection` alert says; null for the others. */
  @Column({ type: 'jsonb', nullable: true })
  spike: SpikeAlert | null;

  /** What a `quota_exhausted` alert says; null for the others. */
  @Column({ type: 'jsonb', nullable: true })
  quota: QuotaAlert | null;

  /** The channel's type, or `assignee` for the e-mail to the issue's assignee (a rule's notify_assignee). */
  @Column({ name: 'channel_type', type: 'text' })
  channelType: ChannelType | 'assignee';

  @Column({ name: 'channel_name', type: 'text' })
  channelName: string;

  @Column({ type: 'text' })
  status: AlertStatus;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** Sent to receivers so that a retried delivery can be recognised as the same notification. */
  @Column({ name: 'idempotency_key', type: 'text', unique: true })
  idempotencyKey: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;
}
