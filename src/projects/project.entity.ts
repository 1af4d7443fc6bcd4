import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', unique: true })
  slug: string;

  @Column({ name: 'client_key', type: 'uuid', unique: true })
  clientKey: string;

  /** The key the last rotation replaced, accepted by ingest until `previousClientKeyExpiresAt`. */
  @Column({ name: 'previous_client_key', type: 'uuid', nullable: true })
  previousClientKey: string | null;

  @Column({ name: 'previous_client_key_expires_at', type: 'timestamptz', nullable: true })
  previousClientKeyExpiresAt: Date | null;

  /** Last issue number handed out; short ids are `<SLUG>-<number>`. */
  @Column({ name: 'next_issue_number', type: 'int', default: 0 })
  nextIssueNumber: number;

  /** Days its events are kept, 1 to 3650; null follows EVENT_RETENTION_DAYS. */
  @Column({ name: 'retention_days', type: 'int', nullable: true })
  retentionDays: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
