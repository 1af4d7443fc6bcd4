import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const ISSUE_STATES = ['open', 'resolved', 'muted'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

/** What opened the issue: events, or the failures of a cron or an uptime monitor (src/monitors). */
export type IssueKind = 'error' | 'cron' | 'uptime';

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

  @Column({ type: 'text', default: 'error' })
  kind: IssueKind;

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

  /** The release of its first event, and of its latest. */
  @Column({ name: 'first_release', type: 'text', nullable: true })
  firstRelease: string | null;

  @Column({ name: 'last_release', type: 'text', nullable: true })
  lastRelease: string | null;

  /** `next_release` or a version, when resolved in a release (see IssueResolution). */
  @Column({ name: 'resolved_in', type: 'text', nullable: true })
  resolvedIn: string | null;

  /** Events of releases newer than this one reopen it; null with `next_release`: any release does. */
  @Column({ name: 'resolved_above', type: 'text', nullable: true })
  resolvedAbove: string | null;

  @Column({ name: 'mute_until', type: 'timestamptz', nullable: true })
  muteUntil: Date | null;

  @Column({ name: 'mute_until_count', type: 'int', nullable: true })
  muteUntilCount: number | null;

  @Column({ name: 'mute_until_users', type: 'int', nullable: true })
  muteUntilUsers: number | null;

  /** Its event and user counts when it was muted, from which the snooze's counts start. */
  @Column({ name: 'muted_event_count', type: 'int', nullable: true })
  mutedEventCount: number | null;

  @Column({ name: 'muted_user_count', type: 'int', nullable: true })
  mutedUserCount: number | null;

  /** Set when merged into another issue: this row only points there. */
  @Column({ name: 'merged_into_id', type: 'int', nullable: true })
  mergedIntoId: number | null;

  /** Who is on it: a member or a team (never both), or nobody. */
  @Column({ name: 'assignee_user_id', type: 'int', nullable: true })
  assigneeUserId: number | null;

  @Column({ name: 'assignee_team_id', type: 'int', nullable: true })
  assigneeTeamId: number | null;
}
