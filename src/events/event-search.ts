import { SelectQueryBuilder } from 'typeorm';
import { parseQueryTerms, QuerySyntaxError } from '../search/query-language';
import type { ErrorEvent } from './event.entity';

/** Filters of the issue language that an issue's events can be listed by (alias `event`). */
const COLUMN_TAGS: Record<string, string> = { environment: 'event.environment', release: 'event.release' };
const USER_FIELDS: Record<string, string> = {
  id: 'id',
  email: 'email',
  ip: 'ip_address',
  username: 'username',
};

/**
 * Adds a search to an issue's events: `environment:`, `release:`, `level:`, `user.id:`,
 * `user.email:` and the SDK's own tags (`key:value`), with negation and lists; other terms are a
 * 400 that names them. Environment, release and level are columns; the rest is read from each
 * event's payload while the issue's events are walked in order, so a rare value of a busy issue
 * costs a longer walk.
 */
export function applyEventSearch(query: SelectQueryBuilder<ErrorEvent>, text: string): void {
  parseQueryTerms(text).forEach(({ raw, filter }, index) => {
    const p = (name: string) => `e${index}_${name}`;
    const not = 'negated' in filter && filter.negated ? 'NOT ' : '';
    if (filter.kind === 'level') {
      query.andWhere(`${not}(event.level IN (:...${p('levels')}))`, { [p('levels')]: filter.levels });
      return;
    }
    if (filter.kind !== 'tag')
      throw new QuerySyntaxError(
        raw,
        'events are searched by tags, level, environment, release and user only',
      );
    const column = COLUMN_TAGS[filter.key];
    if (column) {
      query.andWhere(`${not}coalesce(${column} IN (:...${p('values')}), false)`, {
        [p('values')]: filter.values,
      });
      return;
    }
    if (filter.key === 'user' || filter.key === 'user.email') {
      const pairs = filter.values.map((value) =>
        filter.key === 'user.email' ? ['email', value] : userField(value),
      );
      const clauses = pairs.map(
        (_, n) => `event.payload -> 'user' ->> :${p(`field${n}`)} = :${p(`value${n}`)}`,
      );
      const parameters = Object.fromEntries(
        pairs.flatMap(([field, value], n) => [
          [p(`field${n}`), field],
          [p(`value${n}`), value],
        ]),
      );
      query.andWhere(`${not}coalesce(${clauses.join(' OR ')}, false)`, parameters);
      return;
    }
    query.andWhere(
      `${not}coalesce(event.payload -> 'tags' ->> :${p('key')} IN (:...${p('values')}), false)`,
      {
        [p('key')]: filter.key,
        [p('values')]: filter.values,
      },
    );
  });
}

/** A `user` tag value (`id:42`, `email:a@b.c`, …; a bare value is an id) as the payload field it names. */
function userField(value: string): [string, string] {
  const colon = value.indexOf(':');
  if (colon === -1) return ['id', value];
  return [USER_FIELDS[value.slice(0, colon)] ?? 'id', value.slice(colon + 1)];
}
