import { InvalidInputError } from '../common/domain-errors';
import { MAX_TAG_KEY_LENGTH, TAG_KEY_PATTERN } from './tag-keys';

/**
 * The issue search language, close to Sentry's (see docs/api.md, "Searching issues"):
 *
 *   is:unresolved level:[error,fatal] !environment:staging browser.name:"Mobile Safari"
 *   first_seen:-24h last_seen:<2026-01-01 times_seen:>100 "cannot read" TypeError
 *
 * Terms are separated by spaces and all must hold. `key:value` filters, `!key:value` excludes,
 * `key:[a,b]` matches any of the values; values with spaces or commas are quoted ("…", with \" and
 * \\ inside). Everything else is free text, matched against the type, message, culprit and short id.
 * A query is parsed here into filters; turning them into SQL is IssueSearchQuery's job.
 */

export const MAX_QUERY_LENGTH = 2_000;
export const MAX_QUERY_TERMS = 30;
export const MAX_VALUES_PER_TERM = 50;

export const LEVELS = ['fatal', 'error', 'warning', 'info', 'debug'] as const;
/** What opened an issue: events (`error`), or a cron or uptime monitor's failures. */
export const ISSUE_KINDS = ['error', 'cron', 'uptime'] as const;
export type Comparison = '>' | '>=' | '<' | '<=' | '=';

export type IssueFilter =
  | { kind: 'state'; states: SearchState[]; negated: boolean }
  | { kind: 'level'; levels: string[]; negated: boolean }
  /** What opened the issue (`kind:cron`): events, or a monitor's failures. */
  | { kind: 'issue_kind'; kinds: string[]; negated: boolean }
  /** A tag of the events (environment, release, user, any SDK tag), from the tag rollups. */
  | { kind: 'tag'; key: string; values: string[]; negated: boolean }
  | { kind: 'time'; field: 'first_seen' | 'last_seen'; comparison: Comparison; at: Date; until?: Date }
  | { kind: 'count'; field: 'times_seen' | 'users'; comparison: Comparison; value: number }
  | { kind: 'text'; text: string; negated: boolean }
  /** The release of the issue's first event (`first_release:`). */
  | { kind: 'first_release'; versions: string[]; negated: boolean }
  /**
   * Resolved in one of `versions` (`resolved_in:`): named as the version, or resolved "in the next
   * release" when that turned out to be one of them. Which newest releases at resolution that means
   * is worked out by the issue list (`nextReleaseOf`) before the filter reaches SQL.
   */
  | {
      kind: 'resolved_in';
      versions: string[];
      negated: boolean;
      nextReleaseOf?: { above: string[]; noRelease: boolean };
    }
  /**
   * Who the issue is assigned to: any of `targets`. Members and teams are named here as typed; the
   * list resolves them to ids (`resolved`) before the filter reaches SQL.
   */
  | {
      kind: 'assigned';
      targets: AssignedTarget[];
      negated: boolean;
      resolved?: { userIds: number[]; teamIds: number[] };
    };

export type AssignedTarget =
  { me: true } | { email: string } | { teamSlug: string } | { nobody: true } | { anybody: true };

/** `is:` values about assignment rather than state. */
const ASSIGNMENT_STATES: Record<string, AssignedTarget> = {
  unassigned: { nobody: true },
  assigned: { anybody: true },
};

/**
 * The issue states as the language names them (`is:` values), words to states. Declared here, not
 * taken from the issue entity, so that the event list can use the language too; issue-search.ts
 * checks at compile time that these are exactly the issue's states.
 */
export const SEARCH_STATES = ['open', 'resolved', 'muted'] as const;
export type SearchState = (typeof SEARCH_STATES)[number];

/** Keys with a meaning of their own; any other key names a tag. */
const STATE_ALIASES: Record<string, SearchState> = {
  open: 'open',
  unresolved: 'open',
  resolved: 'resolved',
  muted: 'muted',
  ignored: 'muted',
};

/** Keys the language reserves for what this installation does not have yet. */
const RESERVED_KEYS: Record<string, string> = {
  assigned_or_suggested: 'suggested assignees are not supported: use assigned:',
  bookmarks: 'bookmarks are not supported',
};

/** Keys whose values are compared as counts. */
const COUNT_KEYS: Record<string, 'times_seen' | 'users'> = {
  times_seen: 'times_seen',
  'event.count': 'times_seen',
  users: 'users',
  user_count: 'users',
};

/** Keys about the issue's own releases (the `release:` tag is any release its events were seen in). */
const RELEASE_KEYS: Record<string, 'first_release' | 'resolved_in'> = {
  first_release: 'first_release',
  firstRelease: 'first_release',
  resolved_in: 'resolved_in',
};

const TIME_KEYS: Record<string, 'first_seen' | 'last_seen'> = {
  first_seen: 'first_seen',
  firstSeen: 'first_seen',
  last_seen: 'last_seen',
  lastSeen: 'last_seen',
  age: 'first_seen',
};

/** `user.id:42` is the `user` tag `id:42` (see userTagValue); `user.email` is a tag of its own. */
const USER_TAG_PREFIXES: Record<string, string> = {
  'user.id': 'id',
  'user.ip': 'ip',
  'user.username': 'username',
};

const UNITS_MS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

export class QuerySyntaxError extends InvalidInputError {
  constructor(token: string, why: string) {
    super(`query: ${JSON.stringify(token)}: ${why}`);
  }
}

interface Token {
  /** The token as typed, for error messages. */
  raw: string;
  negated: boolean;
  key?: string;
  /** The value part (after `key:`), or the free text, unquoted. */
  value: string;
  /** The value was written `[a,b]`: its parts, unquoted. */
  list?: string[];
  quoted: boolean;
}

/** Splits a query into its terms, honouring quotes and brackets. */
export function tokenize(query: string): Token[] {
  if (query.length > MAX_QUERY_LENGTH)
    throw new QuerySyntaxError(
      `${query.slice(0, 40)}…`,
      `the query is longer than ${MAX_QUERY_LENGTH} characters`,
    );
  const tokens: Token[] = [];
  let index = 0;
  const length = query.length;
  while (index < length) {
    while (index < length && /\s/.test(query[index])) index++;
    if (index >= length) break;
    const start = index;
    let negated = false;
    if (query[index] === '!') {
      negated = true;
      index++;
    }
    // A key: letters, digits and the tag characters, up to the first ':' not in quotes.
    const keyMatch = /^[A-Za-z0-9_.-]+:/.exec(query.slice(index, index + MAX_TAG_KEY_LENGTH + 2));
    let key: string | undefined;
    if (keyMatch) {
      key = keyMatch[0].slice(0, -1);
      index += keyMatch[0].length;
    }
    let value = '';
    let list: string[] | undefined;
    let quoted = false;
    if (key !== undefined && query[index] === '[') {
      list = [];
      index++;
      for (;;) {
        while (index < length && query[index] === ' ') index++;
        let item: string;
        if (query[index] === '"') {
          [item, index] = readQuoted(query, index, start);
        } else {
          const end = query.slice(index).search(/[,\]\s]/);
          if (end === -1) throw new QuerySyntaxError(query.slice(start), 'a list needs its closing ]');
          item = query.slice(index, index + end);
          index += end;
        }
        while (index < length && query[index] === ' ') index++;
        list.push(item);
        if (query[index] === ',') {
          index++;
          continue;
        }
        if (query[index] === ']') {
          index++;
          break;
        }
        throw new QuerySyntaxError(query.slice(start, index + 1), 'a list needs its closing ]');
      }
    } else if (query[index] === '"') {
      [value, index] = readQuoted(query, index, start);
      quoted = true;
    } else {
      const end = query.slice(index).search(/\s/);
      value = end === -1 ? query.slice(index) : query.slice(index, index + end);
      index += value.length;
      if (value.includes('"'))
        throw new QuerySyntaxError(query.slice(start, index), 'quotes go around a whole value');
    }
    if (index < length && !/\s/.test(query[index]))
      throw new QuerySyntaxError(query.slice(start, index + 1), 'put a space between terms');
    tokens.push({ raw: query.slice(start, index), negated, key, value, list, quoted });
    if (tokens.length > MAX_QUERY_TERMS)
      throw new QuerySyntaxError(
        tokens[tokens.length - 1].raw,
        `a query holds at most ${MAX_QUERY_TERMS} terms`,
      );
  }
  return tokens;
}

/** Reads a "…" string starting at `index`; returns its text and the index after its closing quote. */
function readQuoted(query: string, index: number, tokenStart: number): [string, number] {
  let text = '';
  for (let at = index + 1; at < query.length; at++) {
    const char = query[at];
    if (char === '\\' && at + 1 < query.length) {
      text += query[++at];
    } else if (char === '"') {
      return [text, at + 1];
    } else {
      text += char;
    }
  }
  throw new QuerySyntaxError(query.slice(tokenStart), 'a quoted value needs its closing "');
}

/** Parses a query into the filters it stands for; throws QuerySyntaxError naming the bad term. */
export function parseIssueQuery(query: string, now: Date = new Date()): IssueFilter[] {
  return parseQueryTerms(query, now).map((term) => term.filter);
}

/** Each term of a query as typed, with its filter: for callers that accept only some kinds. */
export function parseQueryTerms(
  query: string,
  now: Date = new Date(),
): { raw: string; filter: IssueFilter }[] {
  return tokenize(query).map((token) => ({ raw: token.raw, filter: toFilter(token, now) }));
}

function toFilter(token: Token, now: Date): IssueFilter {
  const { key, raw, negated } = token;
  if (key === undefined) {
    if (token.value === '' && !token.quoted) throw new QuerySyntaxError(raw, 'nothing to search for');
    return { kind: 'text', text: token.value, negated };
  }
  const values = token.list ?? [token.value];
  if (values.length === 0 || values.some((value) => value === ''))
    throw new QuerySyntaxError(raw, `${key}: needs a value`);
  if (values.length > MAX_VALUES_PER_TERM)
    throw new QuerySyntaxError(raw, `at most ${MAX_VALUES_PER_TERM} values in one list`);
  if (key in RESERVED_KEYS) throw new QuerySyntaxError(raw, RESERVED_KEYS[key]);

  if (key === 'is') {
    const assignment = values.filter((value) => value.toLowerCase() in ASSIGNMENT_STATES);
    if (assignment.length > 0) {
      if (assignment.length !== values.length)
        throw new QuerySyntaxError(raw, 'is:assigned and is:unassigned go in a term of their own');
      return {
        kind: 'assigned',
        targets: assignment.map((value) => ASSIGNMENT_STATES[value.toLowerCase()]),
        negated,
      };
    }
    return {
      kind: 'state',
      states: values.map((value) => {
        const state = STATE_ALIASES[value.toLowerCase()];
        if (!state)
          throw new QuerySyntaxError(
            raw,
            `is: takes ${[...Object.keys(STATE_ALIASES), ...Object.keys(ASSIGNMENT_STATES)].join(', ')}, not ${JSON.stringify(value)}`,
          );
        return state;
      }),
      negated,
    };
  }
  if (key === 'assigned')
    return { kind: 'assigned', targets: values.map((value) => assignedTarget(raw, value)), negated };
  if (key in RELEASE_KEYS) return { kind: RELEASE_KEYS[key], versions: values, negated };
  if (key === 'kind') {
    for (const value of values) {
      if (!(ISSUE_KINDS as readonly string[]).includes(value.toLowerCase()))
        throw new QuerySyntaxError(raw, `kind: takes ${ISSUE_KINDS.join(', ')}, not ${JSON.stringify(value)}`);
    }
    return { kind: 'issue_kind', kinds: values.map((value) => value.toLowerCase()), negated };
  }
  if (key === 'level') {
    for (const value of values) {
      if (!(LEVELS as readonly string[]).includes(value.toLowerCase()))
        throw new QuerySyntaxError(raw, `level: takes ${LEVELS.join(', ')}, not ${JSON.stringify(value)}`);
    }
    return { kind: 'level', levels: values.map((value) => value.toLowerCase()), negated };
  }
  if (key in TIME_KEYS || key in COUNT_KEYS) {
    if (negated) throw new QuerySyntaxError(raw, `${key}: cannot be negated; compare the other way`);
    if (token.list) throw new QuerySyntaxError(raw, `${key}: takes one value`);
    if (key in COUNT_KEYS) return countFilter(raw, COUNT_KEYS[key], token.value);
    return withinYears(raw, timeFilter(raw, TIME_KEYS[key], token.value, now, key === 'age'));
  }
  if (key in USER_TAG_PREFIXES) {
    const prefix = USER_TAG_PREFIXES[key];
    return { kind: 'tag', key: 'user', values: values.map((value) => `${prefix}:${value}`), negated };
  }
  if (key.length > MAX_TAG_KEY_LENGTH || !TAG_KEY_PATTERN.test(key))
    throw new QuerySyntaxError(raw, `${key} is not a search key or a tag`);
  return { kind: 'tag', key, values, negated };
}

/** `assigned:me`, `assigned:none`, `assigned:#team`, `assigned:ada@example.com`. */
function assignedTarget(raw: string, value: string): AssignedTarget {
  const lower = value.toLowerCase();
  if (lower === 'me') return { me: true };
  if (lower === 'none') return { nobody: true };
  if (value.startsWith('#') && value.length > 1) return { teamSlug: value.slice(1) };
  if (/^[^\s@]+@[^\s@]+$/.test(value)) return { email: lower };
  throw new QuerySyntaxError(
    raw,
    `assigned: takes me, none, #<team slug> or a member's e-mail, not ${JSON.stringify(value)}`,
  );
}

const COMPARISON = /^(>=|<=|>|<|=)?(.*)$/s;

function countFilter(raw: string, field: 'times_seen' | 'users', text: string): IssueFilter {
  const [, comparison = '=', number] = COMPARISON.exec(text) as RegExpExecArray;
  if (!/^\d{1,10}$/.test(number) || Number(number) > 2_147_483_647)
    throw new QuerySyntaxError(raw, `${field}: takes a whole number, optionally after >, >=, < or <=`);
  return { kind: 'count', field, comparison: comparison as Comparison, value: Number(number) };
}

/**
 * `-24h` means within the last 24 hours and `+7d` longer ago than 7 days (as in Sentry); an
 * absolute time is a date (`2026-01-31`, that whole UTC day when compared with `=`) or an ISO
 * timestamp, after >, >=, < or <=.
 */
function timeFilter(
  raw: string,
  field: 'first_seen' | 'last_seen',
  text: string,
  now: Date,
  age: boolean,
): IssueFilter {
  const relative = /^([-+])(\d{1,6})([smhdw])$/.exec(text);
  if (relative) {
    const at = new Date(now.getTime() - Number(relative[2]) * UNITS_MS[relative[3]]);
    if (Number.isNaN(at.getTime())) throw new QuerySyntaxError(raw, 'that is too far back');
    return { kind: 'time', field, comparison: relative[1] === '-' ? '>=' : '<', at };
  }
  if (age) throw new QuerySyntaxError(raw, 'age: takes a relative time such as -24h or +7d');
  const [, comparison = '=', moment] = COMPARISON.exec(text) as RegExpExecArray;
  const relativeAfter = /^-(\d{1,6})([smhdw])$/.exec(moment);
  if (relativeAfter && comparison !== '=') {
    const at = new Date(now.getTime() - Number(relativeAfter[1]) * UNITS_MS[relativeAfter[2]]);
    return { kind: 'time', field, comparison: comparison as Comparison, at };
  }
  const day = /^\d{4}-\d{2}-\d{2}$/.test(moment);
  const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/.test(moment);
  const at = new Date(
    day ? `${moment}T00:00:00Z` : timestamp && !/(Z|[+-]\d{2}:\d{2})$/.test(moment) ? `${moment}Z` : moment,
  );
  if ((!day && !timestamp) || Number.isNaN(at.getTime()) || !isCalendarDate(moment.slice(0, 10)))
    throw new QuerySyntaxError(
      raw,
      `${field}: takes -24h, +7d (units s, m, h, d, w), or a date or ISO time after >, >=, < or <=`,
    );
  if (comparison === '=') {
    if (!day) return { kind: 'time', field, comparison: '=', at };
    return { kind: 'time', field, comparison: '=', at, until: new Date(at.getTime() + UNITS_MS.d) };
  }
  return { kind: 'time', field, comparison: comparison as Comparison, at };
}

/** PostgreSQL's timestamps, and toISOString's plain form, span the years 1 to 9999. */
function withinYears(raw: string, filter: IssueFilter): IssueFilter {
  if (filter.kind !== 'time') return filter;
  for (const time of [filter.at, filter.until]) {
    const year = time?.getUTCFullYear() ?? 1;
    if (!(year >= 1 && year <= 9999))
      throw new QuerySyntaxError(raw, 'that time is out of range (years 1 to 9999)');
  }
  return filter;
}

/** `2026-02-30` parses (as March 2nd); only a day that exists is accepted. */
function isCalendarDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}
