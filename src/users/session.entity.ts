import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A dashboard sign-in. Only the hash of the cookie value is stored. */
@Entity('sessions')
export class Session {
  @PrimaryColumn({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  @Index()
  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Where it was started from, for the account's list of sessions. */
  @Column({ name: 'user_agent', type: 'text', nullable: true })
  userAgent: string | null;

  @Column({ type: 'text', nullable: true })
  ip: string | null;
}
