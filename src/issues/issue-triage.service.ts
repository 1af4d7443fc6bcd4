import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AlertTrigger } from './transitions/alert-trigger';
import { AlertTriggerProducer } from './transitions/alert-trigger.producer';
import { InvalidInputError, NotFoundError } from '../common/domain-errors';
import type { Project } from '../projects/project.entity';
import { compareReleases } from '../releases/release-order';
import { ReleasesRepository } from '../releases/releases.repository';
import type { Assignee } from '../members/assignees';
import { ActivityActor, ActivityEntry, IssueActivityRepository } from './issue-activity.repository';
import { Issue, ISSUE_STATES, IssueState } from './issue.entity';
import { IssueStateColumns, IssuesRepository } from './issues.repository';
import { IssuesService } from './issues.service';
import { IssueView } from './issue-view';
import { NEXT_RELEASE } from './search/issue-search';

/** What a user asks of an issue's state (PATCH /api/issues/{id}, and in bulk). */
export interface IssueChange {
  state: IssueState;
  /** With `resolved`: `next_release`, or the version the fix ships in. */
  resolvedIn?: string;
  /** With `muted`: until a time, until this many more events, until this many more users. */
  muteUntil?: Date;
  muteUntilCount?: number;
  muteUntilUsers?: number;
}

/**
 * What a user changes of an issue: its state, who is on it, or both. `assignee` undefined leaves
 * the assignee as it is; null unassigns.
 */
export interface IssueEdit {
  change?: IssueChange;
  assignee?: Assignee | null;
}

/** What an edit did beyond the issues' new state: the issues it assigned to someone new. */
export interface EditOutcome {
  newlyAssigned: number[];
}

export { NEXT_RELEASE };

/** Issues one bulk change may touch: far above a screenful, bounded so one request stays one short transaction. */
export const MAX_BULK_ISSUES = 10_000;

/**
 * Changes of issues' states that users make (one issue, or many in one transaction), and the end of
 * snoozes that no event triggers (a time passed, enough users affected), each with what it implies:
 * the activity entry, and the `unmute` alert when an issue leaves `muted`.
 */
@Injectable()
export class IssueTriageService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly issues: IssuesService,
    private readonly issueRows: IssuesRepository,
    private readonly releases: ReleasesRepository,
    private readonly activity: IssueActivityRepository,
    private readonly alertTriggers: AlertTriggerProducer,
  ) {}

  /** Sets one issue's state and/or assignee; returns it as it is now. */
  async update(
    id: number,
    edit: IssueEdit,
    by: ActivityActor | null = null,
    now = new Date(),
  ): Promise<{ issue: IssueView } & EditOutcome> {
    checkEdit(edit, now);
    await this.issues.get(id); // 404, or a pointer to the issue it was merged into
    const { recorded, newlyAssigned } = await this.dataSource.transaction(async (manager) => {
      const [issue] = await this.issueRows.lockUnmerged(manager, id);
      // Deleted or merged since it was looked up: the same answer as if it had been so before.
      if (!issue) await this.issues.get(id);
      if (!issue) throw new NotFoundError('issue not found');
      return this.applyEdit(manager, [issue], edit, by, now);
    });
    if (recorded) await this.alertTriggers.publish(recorded);
    return { issue: await this.issues.get(id), newlyAssigned };
  }

  /**
   * Sets the state of a project's issues, chosen by id or by a search query, in one transaction.
   * Ids of other projects' issues, or unknown ones, are a 400: nothing is changed then.
   */
  async updateMany(
    project: Pick<Project, 'id' | 'slug'>,
    selection: { ids?: number[]; query?: string; viewerId?: number | null },
    edit: IssueEdit,
    by: ActivityActor | null = null,
    now = new Date(),
  ): Promise<{ updated: number } & EditOutcome> {
    checkEdit(edit, now);
    if ((selection.ids === undefined) === (selection.query === undefined))
      throw new InvalidInputError('give either ids or query');
    const ids =
      selection.ids ??
      (await this.issues.matchingIds(
        project,
        selection.query as string,
        MAX_BULK_ISSUES + 1,
        selection.viewerId ?? null,
      ));
    if (ids.length > MAX_BULK_ISSUES)
      throw new InvalidInputError(`the query matches more than ${MAX_BULK_ISSUES} issues: narrow it`);
    if (ids.length === 0) return { updated: 0, newlyAssigned: [] };
    const { updated, recorded, newlyAssigned } = await this.dataSource.transaction(async (manager) => {
      const locked = await this.issueRows.lockUnmergedOfProject(manager, ids, project.id);
      if (selection.ids && locked.length !== new Set(ids).size)
        throw new InvalidInputError('ids must be issues of this project');
      return { updated: locked.length, ...(await this.applyEdit(manager, locked, edit, by, now)) };
    });
    if (recorded) await this.alertTriggers.publish(recorded);
    return { updated, newlyAssigned };
  }

  /**
   * Opens the muted issues whose snooze ended without an event to notice it: `mute_until` passed,
   * or `mute_until_users` more users affected (user counts come with the rollup fold, not with the
   * events). Run every minute by the maintenance worker; returns how many issues it opened.
   */
  async endSnoozes(now = new Date()): Promise<number> {
    const { ended, recorded } = await this.dataSource.transaction(async (manager) => {
      const due = await this.issueRows.lockEndedSnoozes(manager, now);
      if (due.length === 0) return { ended: 0, recorded: undefined };
      return {
        ended: due.length,
        recorded: await this.apply(manager, due, { state: 'open' }, now, { by: 'snooze' }),
      };
    });
    if (recorded) await this.alertTriggers.publish(recorded);
    return ended;
  }

  private async applyEdit(
    manager: EntityManager,
    issues: Issue[],
    edit: IssueEdit,
    by: ActivityActor | null,
    now: Date,
  ) {
    const newlyAssigned =
      edit.assignee === undefined ? [] : await this.assign(manager, issues, edit.assignee, by);
    const recorded = edit.change ? await this.apply(manager, issues, edit.change, now, {}, by) : undefined;
    return { recorded, newlyAssigned };
  }

  /** Puts the issues on `assignee` (or nobody); returns those that got someone new. */
  private async assign(
    manager: EntityManager,
    issues: Issue[],
    assignee: Assignee | null,
    by: ActivityActor | null,
  ): Promise<number[]> {
    const userId = assignee && 'userId' in assignee ? assignee.userId : null;
    const teamId = assignee && 'teamId' in assignee ? assignee.teamId : null;
    const changed = issues.filter(
      (issue) => issue.assigneeUserId !== userId || issue.assigneeTeamId !== teamId,
    );
    if (changed.length === 0) return [];
    await this.issueRows.assign(
      manager,
      changed.map((issue) => issue.id),
      userId,
      teamId,
    );
    await this.activity.record(
      manager,
      changed.map((issue) => ({
        issueId: issue.id,
        kind: assignee ? 'assigned' : 'unassigned',
        data: assignee
          ? {
              assignee: {
                type: userId !== null ? 'user' : 'team',
                id: userId ?? teamId,
                label: assignee.label,
              },
            }
          : {},
        by,
      })),
    );
    return assignee ? changed.map((issue) => issue.id) : [];
  }

  private async apply(
    manager: EntityManager,
    issues: Issue[],
    change: IssueChange,
    now: Date,
    why: Record<string, unknown> = {},
    by: ActivityActor | null = null,
  ) {
    const columns = await this.columnsOf(manager, issues, change);
    const changed = issues.filter((issue) => differs(issue, columns));
    if (changed.length > 0) {
      await this.issueRows.setState(
        manager,
        changed.map((issue) => issue.id),
        columns,
        now,
      );
    }
    const entries: ActivityEntry[] = changed.map((issue) => ({
      issueId: issue.id,
      kind: activityKind(issue.state, columns.state),
      data: { ...why, ...activityData(columns) },
      by,
    }));
    await this.activity.record(manager, entries);
    // Taking an issue out of `muted` is what `unmute` rules react to.
    const triggers: AlertTrigger[] = changed
      .filter((issue) => issue.state === 'muted' && columns.state !== 'muted')
      .map((issue) => ({
        alertType: 'unmute',
        projectId: issue.projectId,
        issueId: issue.id,
        occurredAt: now.toISOString(),
      }));
    return this.alertTriggers.record(manager, triggers);
  }

  /** `next_release` resolves above the newest release the project has seen; no release yet: any release reopens. */
  private async columnsOf(
    manager: EntityManager,
    issues: Issue[],
    change: IssueChange,
  ): Promise<IssueStateColumns> {
    let resolvedAbove: string | null = null;
    if (change.state === 'resolved' && change.resolvedIn !== undefined) {
      resolvedAbove = change.resolvedIn;
      if (change.resolvedIn === NEXT_RELEASE) {
        const projectIds = [...new Set(issues.map((issue) => issue.projectId))];
        // A bulk change is of one project; a single issue's is too.
        const known = projectIds.length === 1 ? await this.releases.known(manager, projectIds[0]) : [];
        resolvedAbove =
          known.reduce<(typeof known)[number] | null>(
            (newest, release) => (newest === null || compareReleases(release, newest) > 0 ? release : newest),
            null,
          )?.version ?? null;
      }
    }
    return {
      state: change.state,
      resolvedIn: change.state === 'resolved' ? (change.resolvedIn ?? null) : null,
      resolvedAbove,
      muteUntil: change.state === 'muted' ? (change.muteUntil ?? null) : null,
      muteUntilCount: change.state === 'muted' ? (change.muteUntilCount ?? null) : null,
      muteUntilUsers: change.state === 'muted' ? (change.muteUntilUsers ?? null) : null,
    };
  }
}

function checkEdit(edit: IssueEdit, now: Date): void {
  // The spec's answer to a body without a state, which an assignee alone now also satisfies.
  if (edit.change === undefined && edit.assignee === undefined)
    throw new InvalidInputError(`state must be one of ${ISSUE_STATES.join(', ')}`);
  if (edit.change) checkChange(edit.change, now);
}

/** The rules the API documents, whoever calls: conditions only with the state they belong to. */
function checkChange(change: IssueChange, now: Date): void {
  if (change.resolvedIn !== undefined && change.state !== 'resolved')
    throw new InvalidInputError('resolved_in goes with state "resolved"');
  const muting = [change.muteUntil, change.muteUntilCount, change.muteUntilUsers].some(
    (value) => value !== undefined,
  );
  if (muting && change.state !== 'muted')
    throw new InvalidInputError('mute_until, mute_until_count and mute_until_users go with state "muted"');
  if (change.muteUntil !== undefined && change.muteUntil.getTime() <= now.getTime())
    throw new InvalidInputError('mute_until must be in the future');
}

function differs(issue: Issue, columns: IssueStateColumns): boolean {
  return (
    issue.state !== columns.state ||
    issue.resolvedIn !== columns.resolvedIn ||
    issue.resolvedAbove !== columns.resolvedAbove ||
    (issue.muteUntil?.getTime() ?? null) !== (columns.muteUntil?.getTime() ?? null) ||
    issue.muteUntilCount !== columns.muteUntilCount ||
    issue.muteUntilUsers !== columns.muteUntilUsers
  );
}

function activityKind(from: IssueState, to: IssueState): ActivityEntry['kind'] {
  if (to === 'resolved') return 'resolved';
  if (to === 'muted') return 'muted';
  return from === 'muted' ? 'unmuted' : 'reopened';
}

function activityData(columns: IssueStateColumns): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (columns.resolvedIn !== null) data.resolved_in = columns.resolvedIn;
  if (columns.resolvedAbove !== null) data.resolved_above = columns.resolvedAbove;
  if (columns.muteUntil !== null) data.mute_until = columns.muteUntil.toISOString();
  if (columns.muteUntilCount !== null) data.mute_until_count = columns.muteUntilCount;
  if (columns.muteUntilUsers !== null) data.mute_until_users = columns.muteUntilUsers;
  return data;
}
