import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinTable,
  ManyToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { NotificationChannel } from '../channels/channel.entity';

import { ALERT_TYPES, AlertType } from '../issues/transitions/alert-trigger';

export { ALERT_TYPES };
export type { AlertType };

@Entity('alert_rules')
@Index(['projectId', 'alertType'])
export class AlertRule {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'project_id', type: 'int' })
  projectId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'alert_type', type: 'text' })
  alertType: AlertType;

  @Column({ name: 'is_enabled', type: 'boolean', default: true })
  isEnabled: boolean;

  @Column({ type: 'jsonb', default: {} })
  conditions: Record<string, unknown>;

  @Column({ name: 'cooldown_minutes', type: 'int', default: 0 })
  cooldownMinutes: number;

  /** Also e-mail the assignee (the member, or each member of the team), besides the channels. */
  @Column({ name: 'notify_assignee', type: 'boolean', default: false })
  notifyAssignee: boolean;

  @ManyToMany(() => NotificationChannel, { onDelete: 'CASCADE' })
  @JoinTable({
    name: 'alert_rule_channels',
    joinColumn: { name: 'rule_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'channel_id', referencedColumnName: 'id' },
  })
  channels: NotificationChannel[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
