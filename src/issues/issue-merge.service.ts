import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/domain-errors';
import { EventsRepository } from '../events/events.repository';
import { RollupsRepository } from '../rollups/rollups.repository';
import { ActivityActor, IssueActivityRepository } from './issue-activity.repository';
import { IssueCommentsRepository } from './issue-comments.repository';
import { IssueMergesRepository } from './issue-merges.repository';
import { IssuesService } from './issues.service';
import { IssueView } from './issue-view';

/** Issues one merge may fold into another. */
export const MAX_MERGED = 100;

/**
 * Merges issues of a project into one (POST /api/issues/{id}/merge), in one transaction: their
 * events, shared parts and rollups move to the survivor, whose counts, times and releases take
 * them in; the others stay as pointers (`merged_into_id`), so that their ids answer with the
 * survivor's and later events of their groups land there. Unmerging is not supported.
 */
@Injectable()
export class IssueMergeService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly issues: IssuesService,
    private readonly issueRows: IssueMergesRepository,
    private readonly events: EventsRepository,
    private readonly rollups: RollupsRepository,
    private readonly activity: IssueActivityRepository,
    private readonly comments: IssueCommentsRepository,
  ) {}

  async merge(targetId: number, ids: number[], by: ActivityActor | null = null): Promise<IssueView> {
    await this.issues.get(targetId); // 404, or a pointer when the target was merged itself
    const from = [...new Set(ids)].sort((a, b) => a - b);
    if (from.includes(targetId)) throw new InvalidInputError('ids must not include the issue merged into');
    if (from.length > MAX_MERGED)
      throw new InvalidInputError(`at most ${MAX_MERGED} issues can be merged at once`);
    await this.dataSource.transaction(async (manager) => {
      // Every issue involved, locked first (the lock order is in issues.repository.ts).
      const locked = await this.issueRows.lockForMerge(manager, [...from, targetId]);
      const target = locked.find((row) => row.id === targetId);
      if (!target) throw new NotFoundError('issue not found');
      // Merged itself since it was looked up: pointers must stay one hop long.
      if (target.mergedIntoId !== null)
        throw new ConflictError(`issue ${targetId} was merged into issue ${target.mergedIntoId} meanwhile`);
      const mergeable = locked.filter(
        (row) => row.id !== targetId && row.projectId === target.projectId && row.mergedIntoId === null,
      );
      if (mergeable.length !== from.length)
        throw new InvalidInputError('ids must be issues of the same project, not merged already');

      await this.events.moveToIssue(manager, from, targetId);
      await this.rollups.mergeIssues(manager, from, targetId);
      await this.issueRows.recountUsersFromTags(manager, targetId);
      await this.issueRows.foldCountsInto(manager, from, targetId);
      await this.issueRows.pointTo(manager, from, targetId);
      await this.comments.moveToIssue(manager, from, targetId);
      await this.activity.record(manager, [
        { issueId: targetId, kind: 'merged', data: { merged: from }, by },
        ...from.map((id) => ({ issueId: id, kind: 'merged' as const, data: { into: targetId }, by })),
      ]);
    });
    return this.issues.get(targetId);
  }
}
