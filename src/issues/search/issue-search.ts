import { Brackets, SelectQueryBuilder, WhereExpressionBuilder } from 'typeorm';
import type { Issue, IssueState } from '../issue.entity';
import type { IssueFilter, SearchState } from '../../search/query-language';
import { escapeLike } from '../../common/like-pattern';

/** How `resolved_in` records "resolved in the next release". */
export const NEXT_RELEASE = 'next_release';

export const ISSUE_SORTS = ['last_seen', 'first_seen', 'events', 'users'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

/**
 * The column each sort orders by (descending, then by id descending), how its values are typed, and
 * the column stamped with the transaction that last moved an issue in that order (see IssueCursor).
 */
export const SORT_COLUMNS: Record<
  IssueSort,
  { column: string; type: 'timestamptz' | 'int'; movedBy: string }
> = {
  last_seen: { column: 'issue.last_seen', type: 'timestamptz', movedBy: 'issue.position_xid' },
  first_seen: { column: 'issue.first_seen', type: 'timestamptz', movedBy: 'issue.first_seen_position_xid' },
  events: { column: 'issue.event_count', type: 'int', movedBy: 'issue.events_position_xid' },
  users: { column: 'issue.user_count', type: 'int', movedBy: 'issue.users_position_xid' },
};

const COUNT_COLUMNS = { times_seen: 'issue.event_count', users: 'issue.user_count' } as const;
const TIME_COLUMNS = { first_seen: 'issue.first_seen', last_seen: 'issue.last_seen' } as const;

function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * Adds the filters of a parsed query to an issue list query (alias `issue`). Every filter is served
 * by an index of the issues or of the tag rollups (see the IssueSearch migration); parameters are
 * named per filter, so that any number of them can be combined.
 *
 * `shortIdNumber` resolves a free-text term that is a short id of the project (`SLUG-12`) to its
 * number: such a term matches that issue as well as the text.
 */
export function applyIssueFilters(
  query: SelectQueryBuilder<Issue>,
  filters: IssueFilter[],
  shortIdNumber: (text: string) => number | undefined,
): void {
  filters.forEach((filter, index) => {
    const p = (name: string) => `f${index}_${name}`;
    switch (filter.kind) {
      case 'state':
        query.andWhere(`issue.state ${filter.negated ? 'NOT ' : ''}IN (:...${p('states')})`, {
          [p('states')]: filter.states,
        });
        return;
      case 'level':
        query.andWhere(`issue.level ${filter.negated ? 'NOT ' : ''}IN (:...${p('levels')})`, {
          [p('levels')]: filter.levels,
        });
        return;
      case 'issue_kind':
        query.andWhere(`issue.kind ${filter.negated ? 'NOT ' : ''}IN (:...${p('kinds')})`, {
          [p('kinds')]: filter.kinds,
        });
        return;
      case 'tag':
        query.andWhere(
          `${filter.negated ? 'NOT ' : ''}EXISTS (SELECT 1 FROM issue_tag_values tv
             WHERE tv.issue_id = issue.id AND tv.key = :${p('key')} AND tv.value IN (:...${p('values')}))`,
          { [p('key')]: filter.key, [p('values')]: filter.values },
        );
        return;
      case 'time': {
        const column = TIME_COLUMNS[filter.field];
        if (filter.until) {
          query.andWhere(`${column} >= :${p('at')} AND ${column} < :${p('until')}`, {
            [p('at')]: filter.at.toISOString(),
            [p('until')]: filter.until.toISOString(),
          });
        } else {
          query.andWhere(`${column} ${filter.comparison} :${p('at')}`, {
            [p('at')]: filter.at.toISOString(),
          });
        }
        return;
      }
      case 'count':
        query.andWhere(`${COUNT_COLUMNS[filter.field]} ${filter.comparison} :${p('value')}`, {
          [p('value')]: filter.value,
        });
        return;
      case 'assigned': {
        const targets = filter.targets;
        const ids = filter.resolved ?? { userIds: [], teamIds: [] };
        if (!filter.resolved && targets.some((target) => !('nobody' in target) && !('anybody' in target)))
          throw new Error('assigned: filter used before its members and teams were resolved');
        const anyOf: string[] = [];
        // coalesce: so that a negated filter keeps the unassigned issues (NOT (NULL IN …)) is NULL).
        if (ids.userIds.length) anyOf.push(`coalesce(issue.assignee_user_id, 0) IN (:...${p('users')})`);
        if (ids.teamIds.length) anyOf.push(`coalesce(issue.assignee_team_id, 0) IN (:...${p('teams')})`);
        if (targets.some((target) => 'nobody' in target))
          anyOf.push('(issue.assignee_user_id IS NULL AND issue.assignee_team_id IS NULL)');
        if (targets.some((target) => 'anybody' in target))
          anyOf.push('(issue.assignee_user_id IS NOT NULL OR issue.assignee_team_id IS NOT NULL)');
        query.andWhere(`${filter.negated ? 'NOT ' : ''}(${anyOf.join(' OR ') || 'false'})`, {
          [p('users')]: ids.userIds,
          [p('teams')]: ids.teamIds,
        });
        return;
      }
      case 'first_release':
        query.andWhere(matching(`issue.first_release = ANY(:${p('versions')})`, filter.negated), {
          [p('versions')]: filter.versions,
        });
        return;
      case 'resolved_in': {
        if (!filter.nextReleaseOf)
          throw new Error('resolved_in: filter used before its next releases were worked out');
        const test = `issue.resolved_in = ANY(:${p('versions')})
           OR (issue.resolved_in = '${NEXT_RELEASE}'
               AND (issue.resolved_above = ANY(:${p('above')}) OR (:${p('none')} AND issue.resolved_above IS NULL)))`;
        query.andWhere(matching(test, filter.negated), {
          [p('versions')]: filter.versions,
          [p('above')]: filter.nextReleaseOf.above,
          [p('none')]: filter.nextReleaseOf.noRelease,
        });
        return;
      }
      case 'text': {
        const number = filter.negated ? undefined : shortIdNumber(filter.text);
        query.andWhere(
          new Brackets((where: WhereExpressionBuilder) => {
            // issue_search_text holds the type, message and culprit, under a trigram index.
            where.where(
              `${filter.negated ? 'NOT ' : ''}EXISTS (SELECT 1 FROM issue_search_text st
                 WHERE st.issue_id = issue.id AND st.text ILIKE :${p('text')})`,
              { [p('text')]: likePattern(filter.text) },
            );
            if (number !== undefined)
              where.orWhere(`issue.number = :${p('number')}`, { [p('number')]: number });
          }),
        );
        return;
      }
    }
  });
}

/**
 * A condition on nullable columns, or its negation. Negated, NULL counts as not matching (an issue
 * without a release is not in it); plain, it stays bare so that the partial indexes serve it.
 */
function matching(test: string, negated: boolean): string {
  return negated ? `NOT coalesce(${test}, false)` : `(${test})`;
}

/** The tag keys a query's filters name, which must exist among the project's tags. */
export function tagKeysOf(filters: IssueFilter[]): string[] {
  return [...new Set(filters.flatMap((filter) => (filter.kind === 'tag' ? [filter.key] : [])))];
}

/** The language's `is:` states are the issue's states, no more and no fewer. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const STATES_MATCH: Same<SearchState, IssueState> = true;
void STATES_MATCH;
