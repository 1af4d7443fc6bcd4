import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import type { AlertTrigger } from '../alerts/alert-trigger';
import { AlertTriggerProducer } from '../alerts/alert-trigger.producer';
import { NotFoundError } from '../common/domain-errors';
import { DEFAULT_PAGE_SIZE, Page, SortKey, toPage } from '../common/pagination';
import type { RowDeletion } from '../events/event-partitions';
import { Project } from '../projects/project.entity';
import { RollupsRepository } from '../rollups/rollups.repository';
import { compareKeys, decodeIssueCursor, encodeIssueCursor, IssueCursor } from './issue-cursor';
import { Issue, IssueState } from './issue.entity';

export interface IssueView {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  culprit: string;
  level: string;
  state: IssueState;
  event_count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
  resolved_at: string | null;
  last_regressed_at: string | null;
  regression_count: number;
}

export interface StateChange {
  issue: IssueView;
  previousState: IssueState;
}

export function shortId(slug: string, number: number): string {
  return `${slug.toUpperCase()}-${number}`;
}

@Injectable()
export class IssuesService {
  constructor(
    @InjectRepository(Issue) private readonly issues: Repository<Issue>,
    private readonly alertTriggers: AlertTriggerProducer,
    private readonly rollups: RollupsRepository,
  ) {}

  /**
   * One page of a project's issues, last_seen desc. An issue that receives an event (or changes
   * state) while a client pages can move above the cursor; such issues are returned again on the
   * next page (see IssueCursor), so every issue is listed at least once. Both reads and the snapshot
   * the next cursor carries come from one REPEATABLE READ transaction, i.e. one consistent view.
   */
  async listForProject(
    projectId: number,
    options: { state?: IssueState; limit?: number; cursor?: string },
  ): Promise<Page<IssueView>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeIssueCursor(options.cursor);
    return this.issues.manager.transaction('REPEATABLE READ', async (manager) => {
      const [{ snapshot }] = await manager.query<Array<{ snapshot: string }>>(
        'SELECT pg_current_snapshot()::text AS snapshot',
      );
      const moved = cursor?.snapshot
        ? await this.movedAbove(manager, projectId, options.state, cursor, limit)
        : [];
      const below = this.listQuery(manager, projectId, options.state);
      if (cursor) {
        below.andWhere('(issue.last_seen, issue.id) < (CAST(:at AS timestamptz), CAST(:id AS int))', {
          at: cursor.key.at.toISOString(),
          id: cursor.key.id,
        });
      }
      // Moved rows sort above the cursor and the others below it: together they are in list order.
      const rows = [...moved, ...(await this.fetchRows(below, limit))];
      return toPage(
        rows,
        limit,
        (last) => encodeIssueCursor(nextCursor(cursor, keyOf(last.issue), snapshot)),
        (row) => toIssueView(row.issue, row.slug),
      );
    });
  }

  /** Rows above the cursor that moved there after the previous page was read (see IssueCursor). */
  private movedAbove(
    manager: EntityManager,
    projectId: number,
    state: IssueState | undefined,
    cursor: IssueCursor,
    limit: number,
  ): Promise<IssueRow[]> {
    // Transactions older than a snapshot's xmin are visible to it: the index narrows the search to
    // the issues changed since, and pg_visible_in_snapshot settles the rest.
    const query = this.listQuery(manager, projectId, state)
      .andWhere('issue.position_xid >= pg_snapshot_xmin(CAST(:snapshot AS pg_snapshot))')
      .andWhere('NOT pg_visible_in_snapshot(issue.position_xid, CAST(:snapshot AS pg_snapshot))')
      .andWhere('(issue.last_seen, issue.id) > (CAST(:at AS timestamptz), CAST(:id AS int))', {
        snapshot: cursor.snapshot,
        at: cursor.key.at.toISOString(),
        id: cursor.key.id,
      });
    if (cursor.catchUp) {
      query.andWhere(
        '((issue.last_seen, issue.id) < (CAST(:catchUpAt AS timestamptz), CAST(:catchUpId AS int))' +
          ' OR NOT pg_visible_in_snapshot(issue.position_xid, CAST(:catchUpSnapshot AS pg_snapshot)))',
        {
          catchUpAt: cursor.catchUp.key.at.toISOString(),
          catchUpId: cursor.catchUp.key.id,
          catchUpSnapshot: cursor.catchUp.snapshot,
        },
      );
    }
    return this.fetchRows(query, limit);
  }

  private listQuery(
    manager: EntityManager,
    projectId: number,
    state: IssueState | undefined,
  ): SelectQueryBuilder<Issue> {
    const query = this.withSlug(manager).where('issue.project_id = :projectId', { projectId });
    if (state) query.andWhere('issue.state = :state', { state });
    return query;
  }

  /** Newest first, one row more than a page to learn whether another page exists. */
  private async fetchRows(query: SelectQueryBuilder<Issue>, limit: number): Promise<IssueRow[]> {
    const { entities, raw } = await query
      .orderBy('issue.last_seen', 'DESC')
      .addOrderBy('issue.id', 'DESC')
      .limit(limit + 1)
      .getRawAndEntities<{ slug: string }>();
    return entities.map((issue, index) => ({ issue, slug: raw[index].slug }));
  }

  async get(id: number): Promise<IssueView> {
    const { entities, raw } = await this.withSlug()
      .where('issue.id = :id', { id })
      .getRawAndEntities<{ slug: string }>();
    if (!entities[0]) throw new NotFoundError('issue not found');
    return toIssueView(entities[0], raw[0].slug);
  }

  /**
   * Sets the state a user chose. The row is locked so that a concurrent digest (which may reopen a
   * resolved issue) and this change are applied one after the other, and the previous state is exact.
   * An `unmute` trigger is recorded in the same transaction and published after it.
   */
  async setState(id: number, state: IssueState): Promise<StateChange> {
    const { previousState, triggers } = await this.issues.manager.transaction(async (manager) => {
      const current = await manager
        .createQueryBuilder(Issue, 'issue')
        .setLock('pessimistic_write')
        .where('issue.id = :id', { id })
        .getOne();
      if (!current) throw new NotFoundError('issue not found');
      if (current.state !== state) {
        const now = new Date();
        await manager.update(
          Issue,
          { id },
          {
            state,
            resolvedAt: state === 'resolved' ? now : current.resolvedAt,
            mutedAt: state === 'muted' ? now : null,
          },
        );
      }
      // Taking an issue out of `muted` is what `unmute` rules react to.
      const unmuted = current.state === 'muted' && state !== 'muted';
      const unmute: AlertTrigger = {
        alertType: 'unmute',
        projectId: current.projectId,
        issueId: id,
        occurredAt: new Date().toISOString(),
      };
      return {
        previousState: current.state,
        triggers: await this.alertTriggers.record(manager, unmuted ? [unmute] : []),
      };
    });
    await this.alertTriggers.publish(triggers);
    return { issue: await this.get(id), previousState };
  }

  /** Its events and rollups go with it (foreign keys); its project's hourly counts drop by its own. */
  async remove(id: number): Promise<void> {
    await this.issues.manager.transaction(async (manager) => {
      const locked: unknown[] = await manager.query('SELECT id FROM issues WHERE id = $1 FOR UPDATE', [id]);
      if (locked.length === 0) throw new NotFoundError('issue not found');
      await this.rollups.subtractIssueFromProject(manager, id);
      await manager.query('DELETE FROM issues WHERE id = $1', [id]);
    });
  }

  /**
   * Deletes up to `limit` issues whose last event is older than the deletion's cutoff and none of
   * whose events is left (retention took them), of the projects it covers; returns how many went.
   * Their rollups go with them (foreign keys).
   */
  async deleteExpired(deletion: RowDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.issues.query(
      `DELETE FROM issues WHERE id = ANY(ARRAY(
         SELECT i.id FROM issues i
          WHERE i.last_seen < $1
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id)
          ORDER BY i.id
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** The stored issue, or null; `projectId` narrows the lookup to one project. */
  findOne(id: number, projectId?: number): Promise<Issue | null> {
    return this.issues.findOne({ where: projectId === undefined ? { id } : { id, projectId } });
  }

  /** The stored issue with what alerts say about its project, or null when either is gone. */
  async findWithProject(id: number): Promise<{ issue: Issue; project: ProjectSummary } | null> {
    const { entities, raw } = await this.issues
      .createQueryBuilder('issue')
      .innerJoin(Project, 'project', 'project.id = issue.project_id')
      .addSelect('project.name', 'project_name')
      .addSelect('project.slug', 'project_slug')
      .where('issue.id = :id', { id })
      .getRawAndEntities<{ project_name: string; project_slug: string }>();
    const issue = entities[0];
    if (!issue) return null;
    return { issue, project: { id: issue.projectId, name: raw[0].project_name, slug: raw[0].project_slug } };
  }

  private withSlug(manager: EntityManager = this.issues.manager): SelectQueryBuilder<Issue> {
    return manager
      .createQueryBuilder(Issue, 'issue')
      .innerJoin(Project, 'project', 'project.id = issue.project_id')
      .addSelect('project.slug', 'slug');
  }
}

interface IssueRow {
  issue: Issue;
  slug: string;
}

export type ProjectSummary = Pick<Project, 'id' | 'name' | 'slug'>;

function keyOf(issue: Issue): SortKey<number> {
  return { at: issue.lastSeen, id: issue.id };
}

/**
 * The cursor after a page that ended on `last`, read under `snapshot`. Ending below the previous key
 * means every moved row was returned: paging goes on from `last` with the new snapshot. Ending among
 * the moved rows keeps the previous key and snapshot for what is still owed below `last`; the older
 * snapshot also stands for any catch-up region already open, which can only repeat rows, never skip.
 */
function nextCursor(
  previous: IssueCursor | undefined,
  last: SortKey<number>,
  snapshot: string,
): IssueCursor & { snapshot: string } {
  if (!previous?.snapshot || compareKeys(last, previous.key) < 0) return { key: last, snapshot };
  return { key: previous.key, snapshot: previous.snapshot, catchUp: { key: last, snapshot } };
}

export function toIssueView(issue: Issue, slug: string): IssueView {
  return {
    id: issue.id,
    project_id: issue.projectId,
    short_id: shortId(slug, issue.number),
    type: issue.type,
    message: issue.message,
    culprit: issue.culprit,
    level: issue.level,
    state: issue.state,
    event_count: issue.eventCount,
    user_count: issue.userCount,
    first_seen: issue.firstSeen.toISOString(),
    last_seen: issue.lastSeen.toISOString(),
    resolved_at: issue.resolvedAt?.toISOString() ?? null,
    last_regressed_at: issue.lastRegressedAt?.toISOString() ?? null,
    regression_count: issue.regressionCount,
  };
}
