import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, SelectQueryBuilder } from 'typeorm';
import { Project } from '../projects/project.entity';
import type { IssueFilter } from '../search/query-language';
import type { IssueCursor, IssueKey } from './issue-cursor';
import { Issue, IssueState } from './issue.entity';
import type { IssueAssignee } from './issue-view';
import { monitorGroupingKey } from './monitor-issue-key';
import { applyIssueFilters, IssueSort, NEXT_RELEASE, SORT_COLUMNS } from './search/issue-search';

/** What a list or a search reads: a project's issues matching filters. */
export interface IssueSearch {
  project: Pick<Project, 'id' | 'slug'>;
  filters: IssueFilter[];
  /** Lists scoped to an environment: its issues, with their counts in it (see listQuery). */
  environment?: string;
}

/** A listed issue, with its project's slug and its assignee's names. */
export interface IssueRow {
  issue: Issue;
  slug: string;
  assignee: IssueAssignee | null;
  /** Its events in the environment the list is scoped to. */
  scopedCount?: number;
}

export type ProjectSummary = Pick<Project, 'id' | 'name' | 'slug'>;

/** Issues counted exactly for a list's `total`; beyond, PostgreSQL's estimate is given. */
export const TOTAL_COUNTED = 10_000;

/** The assignee's names, read with the issue (see withSlug). */
interface AssigneeColumns {
  assignee_email: string | null;
  assignee_user_name: string | null;
  assignee_team_slug: string | null;
  assignee_team_name: string | null;
}

/**
 * The reads of issue lists and searches, and of single issues with what answers show of them. The
 * writes of the `issues` row are in issues.repository.ts and the repositories beside it.
 */
@Injectable()
export class IssueSearchRepository {
  constructor(@InjectRepository(Issue) private readonly issues: Repository<Issue>) {}

  /** The unresolved issues of these monitors, by grouping key (see monitor-issue-key.ts). */
  /**
   * The issue of each of these monitors and environments, in any state (one per monitor and
   * environment, reopened by its next incident): with its number and project slug for its short id.
   */
  async monitorIssues(
    projectId: number,
    kind: 'cron' | 'uptime',
    monitorIds: number[],
  ): Promise<{ id: number; groupingKey: string; number: number; state: IssueState; slug: string }[]> {
    if (monitorIds.length === 0) return [];
    const rows: { id: number; grouping_key: string; number: number; state: IssueState; slug: string }[] =
      await this.issues.query(
        `SELECT i.id, i.grouping_key, i.number, i.state, p.slug FROM issues i
           JOIN projects p ON p.id = i.project_id
          WHERE i.project_id = $1 AND i.kind = $2 AND i.merged_into_id IS NULL
            AND i.grouping_key LIKE ANY($3::text[])`,
        [projectId, kind, monitorIds.map((id) => monitorGroupingKey(kind, id, '%'))],
      );
    return rows.map((row) => ({
      id: row.id,
      groupingKey: row.grouping_key,
      number: row.number,
      state: row.state,
      slug: row.slug,
    }));
  }

  /** The snapshot of the transaction, for a cursor to tell later which rows moved since. */
  async currentSnapshot(manager: EntityManager): Promise<string> {
    const [{ snapshot }] = await manager.query<Array<{ snapshot: string }>>(
      'SELECT pg_current_snapshot()::text AS snapshot',
    );
    return snapshot;
  }

  /** Whether any event of the project's issues has the tag `key`. */
  async projectHasTagKey(manager: EntityManager, projectId: number, key: string): Promise<boolean> {
    const known: unknown[] = await manager.query(
      `SELECT 1 FROM issue_tag_values tv JOIN issues i ON i.id = tv.issue_id
        WHERE tv.key = $1 AND i.project_id = $2 LIMIT 1`,
      [key, projectId],
    );
    return known.length > 0;
  }

  /**
   * In list order, `limit` rows and one more to learn whether another page exists: from `offset`,
   * or below the key `below` (a cursor's).
   */
  rowsBelow(
    manager: EntityManager,
    search: IssueSearch,
    sort: IssueSort,
    limit: number,
    from: { offset?: number; below?: IssueKey },
  ): Promise<IssueRow[]> {
    const query = this.listQuery(manager, search);
    if (from.offset) query.offset(from.offset);
    if (from.below) {
      const { type } = SORT_COLUMNS[sort];
      const column = orderColumn(sort, search);
      query.andWhere(
        `(${column}, issue.id) < (CAST(:value AS ${type}), CAST(:id AS int))`,
        keyParameters(from.below),
      );
    }
    return this.fetchRows(query, sort, search, limit);
  }

  /** Rows above the cursor that moved there after the previous page was read (see IssueCursor). */
  rowsMovedAbove(
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

  /**
   * How many issues match: counted exactly up to TOTAL_COUNTED, beyond which PostgreSQL's estimate
   * of the same query is given (never less than what was counted), flagged `total_is_estimate`.
   */
  async total(
    manager: EntityManager,
    search: IssueSearch,
  ): Promise<{ total: number; total_is_estimate: boolean }> {
    const query = this.listQuery(manager, search);
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

  /**
   * The newest releases at resolution (`resolved_above`, null for none) of the project's issues
   * resolved "in the next release".
   */
  async nextReleaseBases(manager: EntityManager, projectId: number): Promise<(string | null)[]> {
    const rows: { above: string | null }[] = await manager.query(
      `SELECT DISTINCT resolved_above AS above FROM issues
        WHERE project_id = $1 AND resolved_in = $2 AND merged_into_id IS NULL`,
      [projectId, NEXT_RELEASE],
    );
    return rows.map((row) => row.above);
  }

  /** The ids of the issues matching, in id order, at most `limit` of them. */
  async matchingIds(manager: EntityManager, search: IssueSearch, limit: number): Promise<number[]> {
    const rows = await this.listQuery(manager, search)
      .select('issue.id', 'id')
      .orderBy('issue.id')
      .limit(limit)
      .getRawMany<{ id: number }>();
    return rows.map((row) => row.id);
  }

  /** The issue (merged or not) with its project's slug and its assignee, or null. */
  async findRow(id: number): Promise<Omit<IssueRow, 'scopedCount'> | null> {
    const { entities, raw } = await this.withSlug()
      .where('issue.id = :id', { id })
      .getRawAndEntities<{ slug: string } & AssigneeColumns>();
    if (!entities[0]) return null;
    return { issue: entities[0], slug: raw[0].slug, assignee: assigneeOf(entities[0], raw[0]) };
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

/** What a sort orders by; `events` in a list scoped to an environment: the events in it. */
function orderColumn(sort: IssueSort, search: IssueSearch): string {
  return sort === 'events' && search.environment !== undefined ? 'scope.count' : SORT_COLUMNS[sort].column;
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
