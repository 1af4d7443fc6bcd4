import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
}

/**
 * One stored occurrence. The SDK's event_id is the key, so a re-sent event is stored once. The table
 * is partitioned by `received_at` (see the PartitionedEventsAndRollups migration); TypeORM only reads it.
 */
@Entity('events')
@Index(['issueId', 'timestamp'])
export class ErrorEvent {
  @PrimaryColumn({ name: 'project_id', type: 'int' })
  projectId: number;

  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'issue_id', type: 'int' })
  issueId: number;

  @Column({ type: 'timestamptz' })
  timestamp: Date;

  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;

  @Column({ type: 'text', nullable: true })
  environment: string | null;

  @Column({ type: 'text', nullable: true })
  release: string | null;

  @Column({ type: 'text', default: 'error' })
  level: string;

  /** The normalised event minus the fields above (see `fullEvent`, and docs/api.md, "The full event"). */
  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;
}
