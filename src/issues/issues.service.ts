import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { InvalidInputError, MovedError, NotFoundError } from '../common/domain-errors';
import { DEFAULT_PAGE_SIZE, Page, toPage } from '../common/pagination';
import type { RowDeletion } from '../events/event-partitions';
import { Project } from '../projects/project.entity';
import { RollupsRepository } from '../rollups/rollups.repository';
import { BUILT_IN_TAGS } from '../rollups/event-tags';
import { fillBuckets, statsWindow } from '../rollups/stats-period';
import { compareKeys, decodeIssueCursor, encodeIssueCursor, IssueCursor, IssueKey } from './issue-cursor';
import { IssueFilter, parseIssueQuery } from '../search/query-language';
import { applyIssueFilters, IssueSort, SORT_COLUMNS } from './search/issue-search';
import { Issue, IssueState } from './issue.entity';
import { Assignees } from '../members/assignees';
import { IssueAssignee, IssueView, toIssueView } from './issue-view';

/** The assignee's names, read with the issue (see withSlug). */
interface AssigneeColumns {
  assignee_email: string | null;
  assignee_user_name: string | null;
  assignee_team_slug: string | null;
  assignee_team_name: string | null;
}

function assigneeOf(issue: Issue, raw: AssigneeColumns): IssueAssignee | null {
  if (issue.assigneeUserId !== null && raw.assignee_email !== null) {
    return {
      type: 'user',
      id: issue.assigneeUserId,
      email: raw.assignee_email,
      name: raw.assignee_user_name ?? '',
    };
  }
  if (issue.assigneeTeamId !== null && raw.assignee_team_slug !== null) {
    return {
      type: 'team',
      id: issue.assigneeTeamId,
      slug: raw.assignee_team_slug,
      name: raw.assignee_team_name ?? '',
    };
  }
  return null;
}

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

export interface IssuePage extends Page<IssueView> {
  total: number;
  total_is_estimate: boolean;
}

/** Issues counted exactly for a list's `total`; beyond, PostgreSQL's estimate is given. */
export const TOTAL_COUNTED = 10_000;
/** A page jump goes at most as far as `total` is exact; further down, cursors page on. */
export const MAX_LIST_OFFSET = TOTAL_COUNTED;

interface IssueSearch {
  project: Pick<Project, 'id' | 'slug'>;
  filters: IssueFilter[];
  /** Lists scoped to an environment: its issues, with their counts in it (see listQuery). */
  environment?: string;
}

@Injectable()
export class IssuesService {
  constructor(
    @InjectRepository(Issue) private readonly issues: Repository<Issue>,
    private readonly rollups: RollupsRepository,
    private readonly assignees: Assignees,
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
    return this.issues.manager.transaction('REPEATABLE READ', async (manager) => {
      await this.checkTagKeys(manager, project.id, filters);
      const search: IssueSearch = { project, filters, environment: options.environment };
      const [{ snapshot }] = await manager.query<Array<{ snapshot: string }>>(
        'SELECT pg_current_snapshot()::text AS snapshot',
      );
      const moved = cursor?.snapshot ? await this.movedAbove(manager, search, cursor, limit) : [];
      const below = this.listQuery(manager, search);
      if (options.offset) below.offset(options.offset);
      if (cursor) {
        const { type } = SORT_COLUMNS[sort];
        const column = orderColumn(sort, search);
        below.andWhere(
          `(${column}, issue.id) < (CAST(:value AS ${type}), CAST(:id AS int))`,
          keyParameters(cursor.key),
        );
      }
      // Moved rows sort above the cursor and the others below it: together they are in list order.
      const rows = [...moved, ...(await this.fetchRows(below, sort, search, limit))];
      const page = toPage(
        rows,
        limit,
        (last) => encodeIssueCursor(nextCursor(cursor, sort, keyOf(last, sort), snapshot)),
        (row) => scopedView(toIssueView(row.issue, row.slug, row.assignee), row.scopedCount),
      );
      if (options.stats) await this.addHourlyStats(page.data, options.environment);
      return { ...page, ...(await this.total(manager, this.listQuery(manager, search))) };
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

  /**
   * How many issues match: counted exactly up to TOTAL_COUNTED, beyond which PostgreSQL's estimate
   * of the same query is given (never less than what was counted), flagged `total_is_estimate`.
   */
  private async total(
    manager: EntityManager,
    query: SelectQueryBuilder<Issue>,
  ): Promise<{ total: number; total_is_estimate: boolean }> {
    const [sql, parameters] = query
      .select('1')
      .limit(TOTAL_COUNTED + 1)
      .getQueryAndParameters();
    const [{ count }] = await manager.query(
      `SELECT count(*)::int AS count FROM (${sql}) matching`,
      parameters,
    );
    if (count <= TOTAL_COUNTED) return { total: count, total_is_estimate: false };
    const [unlimited, unlimitedParameters] = query.limit(undefined).getQueryAndParameters();
    const [{ 'QUERY PLAN': plan }] = await manager.query(
      `EXPLAIN (FORMAT JSON) ${unlimited}`,
      unlimitedParameters,
    );
    const estimate = Math.round(Number(plan?.[0]?.Plan?.['Plan Rows'] ?? 0));
    return { total: Math.max(count, estimate), total_is_estimate: true };
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
    return this.issues.manager.transaction(async (manager) => {
      await this.checkTagKeys(manager, project.id, filters);
      const rows = await this.listQuery(manager, { project, filters })
        .select('issue.id', 'id')
        .orderBy('issue.id')
        .limit(limit)
        .getRawMany<{ id: number }>();
      return rows.map((row) => row.id);
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

  /** A tag the query names must be one the project's events have (or a built-in one): a typo is a 400. */
  private async checkTagKeys(
    manager: EntityManager,
    projectId: number,
    filters: IssueFilter[],
  ): Promise<void> {
    for (const filter of filters) {
      if (filter.kind !== 'tag' || (BUILT_IN_TAGS as readonly string[]).includes(filter.key)) continue;
      const known: unknown[] = await manager.query(
        `SELECT 1 FROM issue_tag_values tv JOIN issues i ON i.id = tv.issue_id
          WHERE tv.key = $1 AND i.project_id = $2 LIMIT 1`,
        [filter.key, projectId],
      );
      if (known.length === 0)
        throw new InvalidInputError(
          `query: unknown key ${JSON.stringify(filter.key)}: no event of this project has that tag ` +
            '(quote free text that contains a colon)',
        );
    }
  }

  /** Rows above the cursor that moved there after the previous page was read (see IssueCursor). */
  private movedAbove(
    manager: EntityManager,
    search: IssueSearch,
    cursor: IssueCursor,
    limit: number,
  ): Promise<IssueRow[]> {
    const { type, movedBy } = SORT_COLUMNS[cursor.sort];
    const column = orderColumn(cursor.sort, search);
    // Transactions older than a snapshot's xmin are visible to it: the index narrows the search to
    // the issues changed since, and pg_visible_in_snapshot settles the rest.
    const query = this.listQuery(manager, search)
      .andWhere(`${movedBy} >= pg_snapshot_xmin(CAST(:snapshot AS pg_snapshot))`)
      .andWhere(`NOT pg_visible_in_snapshot(${movedBy}, CAST(:snapshot AS pg_snapshot))`)
      .andWhere(`(${column}, issue.id) > (CAST(:value AS ${type}), CAST(:id AS int))`, {
        snapshot: cursor.snapshot,
        ...keyParameters(cursor.key),
      });
    if (cursor.catchUp) {
      const catchUp = keyParameters(cursor.catchUp.key);
      query.andWhere(
        `((${column}, issue.id) < (CAST(:catchUpValue AS ${type}), CAST(:catchUpId AS int))` +
          ` OR NOT pg_visible_in_snapshot(${movedBy}, CAST(:catchUpSnapshot AS pg_snapshot)))`,
        { catchUpValue: catchUp.value, catchUpId: catchUp.id, catchUpSnapshot: cursor.catchUp.snapshot },
      );
    }
    return this.fetchRows(query, cursor.sort, search, limit);
  }

  private listQuery(manager: EntityManager, search: IssueSearch): SelectQueryBuilder<Issue> {
    const query = this.withSlug(manager)
      .where('issue.project_id = :projectId', { projectId: search.project.id })
      .andWhere('issue.merged_into_id IS NULL');
    applyIssueFilters(query, search.filters, shortIdReader(search.project.slug));
    if (search.environment !== undefined) {
      // The environment's issues, with how many of their events came from it (the tag rollups).
      query
        .innerJoin(
          'issue_tag_values',
          'scope',
          "scope.issue_id = issue.id AND scope.key = 'environment' AND scope.value = :scopeEnvironment",
          { scopeEnvironment: search.environment },
        )
        .addSelect('scope.count', 'scope_count');
    }
    return query;
  }

  /** In list order, one row more than a page to learn whether another page exists. */
  private async fetchRows(
    query: SelectQueryBuilder<Issue>,
    sort: IssueSort,
    search: IssueSearch,
    limit: number,
  ): Promise<IssueRow[]> {
    const { entities, raw } = await query
      .orderBy(orderColumn(sort, search), 'DESC')
      .addOrderBy('issue.id', 'DESC')
      .limit(limit + 1)
      .getRawAndEntities<{ slug: string; scope_count?: number } & AssigneeColumns>();
    return entities.map((issue, index) => ({
      issue,
      slug: raw[index].slug,
      assignee: assigneeOf(issue, raw[index]),
      scopedCount: raw[index].scope_count === undefined ? undefined : Number(raw[index].scope_count),
    }));
  }

  /** The issue; one merged into another answers with a pointer to it (MovedError, a 308). */
  async get(id: number): Promise<IssueView> {
    const { entities, raw } = await this.withSlug()
      .where('issue.id = :id', { id })
      .getRawAndEntities<{ slug: string } & AssigneeColumns>();
    if (!entities[0]) throw new NotFoundError('issue not found');
    const into = entities[0].mergedIntoId;
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
    return toIssueView(entities[0], raw[0].slug, assigneeOf(entities[0], raw[0]));
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
            AND i.merged_into_id IS NULL
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
      .addSelect('project.slug', 'slug')
      .leftJoin('users', 'assignee_user', 'assignee_user.id = issue.assignee_user_id')
      .addSelect('assignee_user.email', 'assignee_email')
      .addSelect('assignee_user.name', 'assignee_user_name')
      .leftJoin('teams', 'assignee_team', 'assignee_team.id = issue.assignee_team_id')
      .addSelect('assignee_team.slug', 'assignee_team_slug')
      .addSelect('assignee_team.name', 'assignee_team_name');
  }
}

interface IssueRow {
  issue: Issue;
  slug: string;
  assignee: IssueAssignee | null;
  /** Its events in the environment the list is scoped to. */
  scopedCount?: number;
}

/** What a sort orders by; `events` in a list scoped to an environment: the events in it. */
function orderColumn(sort: IssueSort, search: IssueSearch): string {
  return sort === 'events' && search.environment !== undefined ? 'scope.count' : SORT_COLUMNS[sort].column;
}

/** In a list scoped to an environment, `event_count` is the issue's events there. */
function scopedView(view: IssueView, scopedCount: number | undefined): IssueView {
  return scopedCount === undefined ? view : { ...view, event_count: scopedCount };
}

export type ProjectSummary = Pick<Project, 'id' | 'name' | 'slug'>;

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

function keyParameters(key: IssueKey): { value: string | number; id: number } {
  return { value: key.value instanceof Date ? key.value.toISOString() : key.value, id: key.id };
}

/** The number of `SLUG-12` when that is a short id of the project (any case), else undefined. */
function shortIdReader(slug: string): (text: string) => number | undefined {
  const prefix = `${slug.toUpperCase()}-`;
  return (text) => {
    const upper = text.toUpperCase();
    if (!upper.startsWith(prefix)) return undefined;
    const number = upper.slice(prefix.length);
    return /^[1-9]\d{0,9}$/.test(number) && Number(number) <= 2_147_483_647 ? Number(number) : undefined;
  };
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
