import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const ISSUE_STATES = ['open', 'resolved', 'muted'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

@Entity('issues')
@Index(['projectId', 'groupingKey'], { unique: true })
@Index(['projectId', 'number'], { unique: true })
@Index(['projectId', 'lastSeen'])
@Index(['projectId', 'state', 'lastSeen'])
export class Issue {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'project_id', type: 'int' })
  projectId: number;

  @Column({ name: 'grouping_key', type: 'text' })
  groupingKey: string;

  @Column({ type: 'int' })
  number: number;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'text', default: '' })
  culprit: string;

  @Column({ type: 'text', default: 'error' })
  level: string;

  @Column({ type: 'text', default: 'open' })
  state: IssueState;

  @Column({ name: 'event_count', type: 'int', default: 0 })
  eventCount: number;

  @Column({ name: 'first_seen', type: 'timestamptz' })
  firstSeen: Date;

  @Column({ name: 'last_seen', type: 'timestamptz' })
  lastSeen: Date;

  @Column({ name: 'resolved_at', type: 'timestamptz', nullable: true })
  resolvedAt: Date | null;

  @Column({ name: 'muted_at', type: 'timestamptz', nullable: true })
  mutedAt: Date | null;

  /** When an event last reopened this issue after it had been resolved. */
  @Column({ name: 'last_regressed_at', type: 'timestamptz', nullable: true })
  lastRegressedAt: Date | null;

  @Column({ name: 'regression_count', type: 'int', default: 0 })
  regressionCount: number;

  /** Distinct users among the issue's events (the `user` tag's distinct values). */
  @Column({ name: 'user_count', type: 'int', default: 0 })
  userCount: number;
}
