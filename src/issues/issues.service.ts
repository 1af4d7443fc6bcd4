import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InvalidInputError, MovedError, NotFoundError } from '../common/domain-errors';
import { DEFAULT_PAGE_SIZE, toPage } from '../common/pagination';
import { Project } from '../projects/project.entity';
import { RollupsRepository } from '../rollups/rollups.repository';
import { BUILT_IN_TAGS } from '../rollups/event-tags';
import { fillBuckets, statsWindow } from '../rollups/stats-period';
import { compareKeys, decodeIssueCursor, encodeIssueCursor, IssueCursor, IssueKey } from './issue-cursor';
import { IssueFilter, parseIssueQuery } from '../search/query-language';
import { IssueSort, NEXT_RELEASE } from './search/issue-search';
import { nextReleaseAfter } from '../releases/release-order';
import { ReleasesRepository } from '../releases/releases.repository';
import { Issue, IssueState } from './issue.entity';
import { Assignees } from '../members/assignees';
import { IssueView, toIssueView } from './issue-view';
import type { IssuePage } from './dto/issue.response';
import {
  IssueRow,
  IssueSearch,
  IssueSearchRepository,
  ProjectSummary,
  TOTAL_COUNTED,
} from './issue-search.repository';
import { IssueRemovalRepository } from './issue-removal.repository';

export type { IssuePage, ProjectSummary };
export { TOTAL_COUNTED };

/** What an issue list is asked for (GET /api/projects/{id}/issues). */
export interface IssueListOptions {
  state?: IssueState;
  environment?: string;
  query?: string;
  sort?: IssueSort;
  limit?: number;
  cursor?: string;
  /** Rows of the list to skip: a jump to a page, where a cursor only goes to the next one. */
  offset?: number;
  stats?: IssueListStats;
  /** The account searching, for `assigned:me` (null: an operator token, which has none). */
  viewerId?: number | null;
}

export const ISSUE_LIST_STATS = ['24h'] as const;
export type IssueListStats = (typeof ISSUE_LIST_STATS)[number];

/** A page jump goes at most as far as `total` is exact; further down, cursors page on. */
export const MAX_LIST_OFFSET = TOTAL_COUNTED;

@Injectable()
export class IssuesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly issues: IssueRemovalRepository,
    private readonly search: IssueSearchRepository,
    private readonly rollups: RollupsRepository,
    private readonly assignees: Assignees,
    private readonly releases: ReleasesRepository,
  ) {}

  /**
   * One page of a project's issues matching a search, in the order of `sort` (descending, then by id
   * descending), with the number of issues that match. An issue that receives an event (or changes
   * state) while a client pages can move above the cursor; such issues are returned again on the
   * next page (see IssueCursor), so every issue is listed at least once. The reads and the snapshot
   * the next cursor carries come from one REPEATABLE READ transaction, i.e. one consistent view.
   */
  async listForProject(project: Pick<Project, 'id' | 'slug'>, options: IssueListOptions): Promise<IssuePage> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const sort = options.sort ?? 'last_seen';
    const cursor = decodeIssueCursor(options.cursor, sort);
    if (cursor && options.offset) throw new InvalidInputError('offset cannot be combined with cursor');
    const filters = parseIssueQuery(options.query ?? '');
    if (options.state) filters.unshift({ kind: 'state', states: [options.state], negated: false });
    await this.resolveAssigned(filters, options.viewerId ?? null);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      await this.checkTagKeys(manager, project.id, filters);
      await this.resolveNextReleases(manager, project.id, filters);
      const search: IssueSearch = { project, filters, environment: options.environment };
      const snapshot = await this.search.currentSnapshot(manager);
      const moved = cursor?.snapshot ? await this.search.rowsMovedAbove(manager, search, cursor, limit) : [];
      const below = await this.search.rowsBelow(manager, search, sort, limit, {
        offset: options.offset,
        below: cursor?.key,
      });
      // Moved rows sort above the cursor and the others below it: together they are in list order.
      const rows = [...moved, ...below];
      const page = toPage(
        rows,
        limit,
        (last) => encodeIssueCursor(nextCursor(cursor, sort, keyOf(last, sort), snapshot)),
        (row) => scopedView(toIssueView(row.issue, row.slug, row.assignee), row.scopedCount),
      );
      if (options.stats) await this.addHourlyStats(page.data, options.environment);
      return { ...page, ...(await this.search.total(manager, search)) };
    });
  }

  /** The sparkline of each listed issue, from the hourly rollups (of the list's environment if scoped). */
  private async addHourlyStats(issues: IssueView[], environment: string | undefined): Promise<void> {
    if (issues.length === 0) return;
    const window = statsWindow('24h', new Date());
    const counts = await this.rollups.countsOfIssues(
      issues.map((issue) => issue.id),
      window,
      environment,
    );
    for (const issue of issues) {
      issue.stats_24h = fillBuckets(window, counts.get(issue.id) ?? []).map((bucket) => bucket.count);
    }
  }

  /** The ids of a project's issues that a search query matches, at most `limit` of them. */
  async matchingIds(
    project: Pick<Project, 'id' | 'slug'>,
    query: string,
    limit: number,
    viewerId: number | null = null,
  ): Promise<number[]> {
    const filters = parseIssueQuery(query);
    await this.resolveAssigned(filters, viewerId);
    return this.dataSource.transaction(async (manager) => {
      await this.checkTagKeys(manager, project.id, filters);
      await this.resolveNextReleases(manager, project.id, filters);
      return this.search.matchingIds(manager, { project, filters }, limit);
    });
  }

  /** The members and teams `assigned:` names, as ids; one that does not exist is a 400. */
  private async resolveAssigned(filters: IssueFilter[], viewerId: number | null): Promise<void> {
    for (const filter of filters) {
      if (filter.kind !== 'assigned') continue;
      const resolved = { userIds: [] as number[], teamIds: [] as number[] };
      for (const target of filter.targets) {
        if ('me' in target) {
          if (viewerId === null)
            throw new InvalidInputError('query: "assigned:me": an operator token has no account to be me');
          resolved.userIds.push(viewerId);
        } else if ('email' in target) {
          resolved.userIds.push(await this.assignees.userIdOf(target.email));
        } else if ('teamSlug' in target) {
          resolved.teamIds.push(await this.assignees.teamIdOf(target.teamSlug));
        }
      }
      filter.resolved = resolved;
    }
  }

  /**
   * For `resolved_in:`: the newest releases at resolution whose next release is one of the versions
   * named, among those of the project's issues resolved "in the next release" (a handful of values).
   */
  private async resolveNextReleases(
    manager: EntityManager,
    projectId: number,
    filters: IssueFilter[],
  ): Promise<void> {
    const wanted = filters.filter((filter) => filter.kind === 'resolved_in');
    if (wanted.length === 0) return;
    const aboves = await this.search.nextReleaseBases(manager, projectId);
    const known = aboves.length > 0 ? await this.releases.known(manager, projectId) : [];
    const nextOf = aboves.map((above) => ({ above, next: nextReleaseAfter(known, above) }));
    for (const filter of wanted) {
      const matching = nextOf.filter(({ next }) => next !== null && filter.versions.includes(next));
      filter.nextReleaseOf = {
        above: matching.flatMap(({ above }) => (above === null ? [] : [above])),
        noRelease: matching.some(({ above }) => above === null),
      };
    }
  }

  /** A tag the query names must be one the project's events have (or a built-in one): a typo is a 400. */
  private async checkTagKeys(
    manager: EntityManager,
    projectId: number,
    filters: IssueFilter[],
  ): Promise<void> {
    for (const filter of filters) {
      if (filter.kind !== 'tag' || (BUILT_IN_TAGS as readonly string[]).includes(filter.key)) continue;
      if (!(await this.search.projectHasTagKey(manager, projectId, filter.key)))
        throw new InvalidInputError(
          `query: unknown key ${JSON.stringify(filter.key)}: no event of this project has that tag ` +
            '(quote free text that contains a colon)',
        );
    }
  }

  /** The issue; one merged into another answers with a pointer to it (MovedError, a 308). */
  async get(id: number): Promise<IssueView> {
    const row = await this.search.findRow(id);
    if (!row) throw new NotFoundError('issue not found');
    const into = row.issue.mergedIntoId;
    if (into !== null) {
      throw new MovedError(
        `issue ${id} was merged into issue ${into}`,
        `/api/issues/${id}`,
        `/api/issues/${into}`,
        {
          merged_into_id: into,
        },
      );
    }
    const view = toIssueView(row.issue, row.slug, row.assignee);
    if (row.issue.resolvedIn === NEXT_RELEASE) {
      const known = await this.releases.known(this.dataSource.manager, row.issue.projectId);
      view.next_release = nextReleaseAfter(known, row.issue.resolvedAbove);
    }
    return view;
  }

  /** Its events and rollups go with it (foreign keys); its project's hourly counts drop by its own. */
  async remove(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (!(await this.issues.lockForDeletion(manager, id))) throw new NotFoundError('issue not found');
      await this.rollups.subtractIssueFromProject(manager, id);
      await this.issues.delete(manager, id);
    });
  }

  /** The stored issue, or null; `projectId` narrows the lookup to one project. */
  findOne(id: number, projectId?: number): Promise<Issue | null> {
    return this.search.findOne(id, projectId);
  }

  /** The stored issue with what alerts say about its project, or null when either is gone. */
  findWithProject(id: number): Promise<{ issue: Issue; project: ProjectSummary } | null> {
    return this.search.findWithProject(id);
  }
}

/** In a list scoped to an environment, `event_count` is the issue's events there. */
function scopedView(view: IssueView, scopedCount: number | undefined): IssueView {
  return scopedCount === undefined ? view : { ...view, event_count: scopedCount };
}

function keyOf(row: IssueRow, sort: IssueSort): IssueKey {
  const { issue } = row;
  if (sort === 'events' && row.scopedCount !== undefined) return { value: row.scopedCount, id: issue.id };
  const value = {
    last_seen: issue.lastSeen,
    first_seen: issue.firstSeen,
    events: issue.eventCount,
    users: issue.userCount,
  }[sort];
  return { value, id: issue.id };
}

/**
 * The cursor after a page that ended on `last`, read under `snapshot`. Ending below the previous key
 * means every moved row was returned: paging goes on from `last` with the new snapshot. Ending among
 * the moved rows keeps the previous key and snapshot for what is still owed below `last`; the older
 * snapshot also stands for any catch-up region already open, which can only repeat rows, never skip.
 */
function nextCursor(
  previous: IssueCursor | undefined,
  sort: IssueSort,
  last: IssueKey,
  snapshot: string,
): IssueCursor & { snapshot: string } {
  if (!previous?.snapshot || compareKeys(last, previous.key) < 0) return { sort, key: last, snapshot };
  return { sort, key: previous.key, snapshot: previous.snapshot, catchUp: { key: last, snapshot } };
}
