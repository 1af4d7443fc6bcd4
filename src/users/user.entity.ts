import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from '../access/roles';

@Entity('users')
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text', unique: true })
  email: string;

  /** Null for an account that only signs in through single sign-on. */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash: string | null;

  @Column({ type: 'text', default: '' })
  name: string;

  @Column({ type: 'text', default: 'member' })
  role: Role;

  /** A deactivated account's sessions and tokens stop working at once; it cannot sign in. */
  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @Column({ name: 'deactivated_at', type: 'timestamptz', nullable: true })
  deactivatedAt: Date | null;

  /** Personal e-mails (assignment, alerts to the assignee); alert channels are not affected. */
  @Column({ name: 'email_notifications', type: 'boolean', default: true })
  emailNotifications: boolean;

  @Column({ name: 'oidc_issuer', type: 'text', nullable: true })
  oidcIssuer: string | null;

  @Column({ name: 'oidc_subject', type: 'text', nullable: true })
  oidcSubject: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
