import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AlertType } from './alert-trigger';

/**
 * A lifecycle trigger written in the same transaction as the change that caused it, and removed once
 * it is on the alerts queue: a crash or a Redis outage between the commit and the enqueue delays the
 * alert instead of losing it (see AlertTriggerProducer.sweep).
 */
@Entity('alert_trigger_outbox')
@Index(['createdAt'])
export class AlertTriggerOutboxEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'alert_type', type: 'text' })
  alertType: AlertType;

  @Column({ name: 'project_id', type: 'int' })
  projectId: number;

  @Column({ name: 'issue_id', type: 'int' })
  issueId: number;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
