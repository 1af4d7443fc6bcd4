import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConflictError, InvalidInputError, NotFoundError } from '../common/domain-errors';
import { moveEventsToIssue } from '../events/event-moves';
import { RollupsRepository } from '../rollups/rollups.repository';
import { ActivityActor, IssueActivityRepository } from './issue-activity.repository';
import { IssueCommentsRepository } from './issue-comments.repository';
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
      // Every issue involved, locked in id order (as the digest and the fold lock them). NO KEY UPDATE:
      // it does not wait for the key-share locks that storing events takes on their issues.
      const locked: { id: number; project_id: number; merged_into_id: number | null }[] = await manager.query(
        'SELECT id, project_id, merged_into_id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
        [[...from, targetId]],
      );
      const target = locked.find((row) => row.id === targetId);
      if (!target) throw new NotFoundError('issue not found');
      // Merged itself since it was looked up: pointers must stay one hop long.
      if (target.merged_into_id !== null)
        throw new ConflictError(`issue ${targetId} was merged into issue ${target.merged_into_id} meanwhile`);
      const mergeable = locked.filter(
        (row) => row.id !== targetId && row.project_id === target.project_id && row.merged_into_id === null,
      );
      if (mergeable.length !== from.length)
        throw new InvalidInputError('ids must be issues of the same project, not merged already');

      await moveEventsToIssue(manager, from, targetId);
      await this.rollups.mergeIssues(manager, from, targetId);
      await manager.query(
        `UPDATE issues t
            SET event_count = t.event_count + s.events,
                first_release = CASE WHEN s.first_seen < t.first_seen THEN coalesce(s.first_release, t.first_release)
                                     ELSE t.first_release END,
                last_release = CASE WHEN s.last_seen > t.last_seen THEN coalesce(s.last_release, t.last_release)
                                    ELSE t.last_release END,
                first_seen = LEAST(t.first_seen, s.first_seen),
                last_seen = GREATEST(t.last_seen, s.last_seen)
           FROM (SELECT sum(event_count)::int AS events, min(first_seen) AS first_seen, max(last_seen) AS last_seen,
                        (array_agg(first_release ORDER BY first_seen))[1] AS first_release,
                        (array_agg(last_release ORDER BY last_seen DESC))[1] AS last_release
                   FROM issues WHERE id = ANY($1::int[])) s
          WHERE t.id = $2`,
        [from, targetId],
      );
      // Pointers to a merged issue now point to the survivor: one hop, always.
      await manager.query(
        `UPDATE issues SET merged_into_id = $2, event_count = 0, user_count = 0
          WHERE id = ANY($1::int[]) OR merged_into_id = ANY($1::int[])`,
        [from, targetId],
      );
      await this.comments.moveToIssue(manager, from, targetId);
      await this.activity.record(manager, [
        { issueId: targetId, kind: 'merged', data: { merged: from }, by },
        ...from.map((id) => ({ issueId: id, kind: 'merged' as const, data: { into: targetId }, by })),
      ]);
    });
    return this.issues.get(targetId);
  }
}
