import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('api_tokens')
export class ApiToken {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text', default: '' })
  description: string;

  /** sha-256 of the token: the token itself is never stored. */
  @Column({ name: 'token_hash', type: 'char', length: 64, unique: true })
  tokenHash: string;

  /** First characters of the token, for the masked listing. */
  @Column({ type: 'text' })
  prefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  /** The account it acts for, with that account's role at the time of each request; null: an operator token (owner). */
  @Column({ name: 'user_id', type: 'int', nullable: true })
  userId: number | null;

  @Column({ name: 'read_only', type: 'boolean', default: false })
  readOnly: boolean;

  /** The projects it is limited to, within those its account sees; null: no limit. */
  @Column({ name: 'project_ids', type: 'int', array: true, nullable: true })
  projectIds: number[] | null;
}
