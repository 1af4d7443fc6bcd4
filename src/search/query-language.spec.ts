import fc from 'fast-check';
import { parseIssueQuery, QuerySyntaxError } from './query-language';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const parse = (query: string) => parseIssueQuery(query, NOW);

function errorOf(query: string): string {
  try {
    parse(query);
  } catch (error) {
    expect(error).toBeInstanceOf(QuerySyntaxError);
    return (error as Error).message;
  }
  throw new Error(`${query} parsed`);
}

describe('issue search language', () => {
  it('reads an empty query as no filter', () => {
    expect(parse('')).toEqual([]);
    expect(parse('   ')).toEqual([]);
  });

  it('reads states, with unresolved for open and a negation', () => {
    expect(parse('is:unresolved')).toEqual([{ kind: 'state', states: ['open'], negated: false }]);
    expect(parse('is:unassigned')).toEqual([
      { kind: 'assigned', targets: [{ nobody: true }], negated: false },
    ]);
    expect(parse('!is:assigned')).toEqual([
      { kind: 'assigned', targets: [{ anybody: true }], negated: true },
    ]);
    expect(parse('assigned:[me,#Web-Team,Ada@Example.com,none]')).toEqual([
      {
        kind: 'assigned',
        targets: [{ me: true }, { teamSlug: 'Web-Team' }, { email: 'ada@example.com' }, { nobody: true }],
        negated: false,
      },
    ]);
    expect(parse('!is:resolved is:[open,muted]')).toEqual([
      { kind: 'state', states: ['resolved'], negated: true },
      { kind: 'state', states: ['open', 'muted'], negated: false },
    ]);
  });

  it('reads levels, lower-cased, and refuses a level that does not exist', () => {
    expect(parse('level:[Error,fatal]')).toEqual([
      { kind: 'level', levels: ['error', 'fatal'], negated: false },
    ]);
    expect(errorOf('level:loud')).toBe(
      'query: "level:loud": level: takes fatal, error, warning, info, debug, not "loud"',
    );
  });

  it("reads the issue's own releases: the first one, and the one it was resolved in", () => {
    expect(parse('first_release:"shop@1.2.0" !firstRelease:[a,b] resolved_in:shop@1.3.0')).toEqual([
      { kind: 'first_release', versions: ['shop@1.2.0'], negated: false },
      { kind: 'first_release', versions: ['a', 'b'], negated: true },
      { kind: 'resolved_in', versions: ['shop@1.3.0'], negated: false },
    ]);
  });

  it('reads any tag, quoted values, lists and negation', () => {
    expect(parse('environment:production !release:"1.0 beta" browser.name:[Chrome,"Mobile Safari"]')).toEqual(
      [
        { kind: 'tag', key: 'environment', values: ['production'], negated: false },
        { kind: 'tag', key: 'release', values: ['1.0 beta'], negated: true },
        { kind: 'tag', key: 'browser.name', values: ['Chrome', 'Mobile Safari'], negated: false },
      ],
    );
    expect(parse('custom_tag:"say \\"hi\\" \\\\ bye"')).toEqual([
      { kind: 'tag', key: 'custom_tag', values: ['say "hi" \\ bye'], negated: false },
    ]);
  });

  it('reads user.id as the user tag and user.email as its own tag', () => {
    expect(parse('user.id:42 user.email:a@b.c')).toEqual([
      { kind: 'tag', key: 'user', values: ['id:42'], negated: false },
      { kind: 'tag', key: 'user.email', values: ['a@b.c'], negated: false },
    ]);
  });

  it('reads relative times as Sentry does: -24h within the last day, +7d longer ago than a week', () => {
    expect(parse('first_seen:-24h last_seen:+7d')).toEqual([
      { kind: 'time', field: 'first_seen', comparison: '>=', at: new Date('2026-06-14T12:00:00.000Z') },
      { kind: 'time', field: 'last_seen', comparison: '<', at: new Date('2026-06-08T12:00:00.000Z') },
    ]);
    expect(parse('last_seen:>-30m')).toEqual([
      { kind: 'time', field: 'last_seen', comparison: '>', at: new Date('2026-06-15T11:30:00.000Z') },
    ]);
  });

  it('reads absolute times: a day, a timestamp (UTC unless it says otherwise), with comparisons', () => {
    expect(parse('first_seen:2026-01-31')).toEqual([
      {
        kind: 'time',
        field: 'first_seen',
        comparison: '=',
        at: new Date('2026-01-31T00:00:00.000Z'),
        until: new Date('2026-02-01T00:00:00.000Z'),
      },
    ]);
    expect(parse('last_seen:>=2026-01-31T10:00 first_seen:<2026-01-31T10:00:00+02:00')).toEqual([
      { kind: 'time', field: 'last_seen', comparison: '>=', at: new Date('2026-01-31T10:00:00.000Z') },
      { kind: 'time', field: 'first_seen', comparison: '<', at: new Date('2026-01-31T08:00:00.000Z') },
    ]);
  });

  it('reads counts with comparisons', () => {
    expect(parse('times_seen:>100 users:<=3 times_seen:7')).toEqual([
      { kind: 'count', field: 'times_seen', comparison: '>', value: 100 },
      { kind: 'count', field: 'users', comparison: '<=', value: 3 },
      { kind: 'count', field: 'times_seen', comparison: '=', value: 7 },
    ]);
  });

  it('reads free text, quoted phrases and negated words', () => {
    expect(parse('TypeError "cannot read property" !flaky')).toEqual([
      { kind: 'text', text: 'TypeError', negated: false },
      { kind: 'text', text: 'cannot read property', negated: false },
      { kind: 'text', text: 'flaky', negated: true },
    ]);
  });

  it('names the term in every error', () => {
    expect(errorOf('is:open is:sleeping')).toMatch(/^query: "is:sleeping": is: takes open, unresolved/);
    expect(errorOf('times_seen:>lots')).toBe(
      'query: "times_seen:>lots": times_seen: takes a whole number, optionally after >, >=, < or <=',
    );
    expect(errorOf('first_seen:yesterday')).toMatch(/^query: "first_seen:yesterday": first_seen: takes -24h/);
    expect(errorOf('first_seen:2026-02-30')).toMatch(/^query: "first_seen:2026-02-30"/);
    expect(errorOf('release:')).toBe('query: "release:": release: needs a value');
    expect(errorOf('release:"1.0')).toBe('query: "release:\\"1.0": a quoted value needs its closing "');
    expect(errorOf('env:[a,b')).toBe('query: "env:[a,b": a list needs its closing ]');
    expect(errorOf('assigned_or_suggested:me')).toMatch(
      /^query: "assigned_or_suggested:me": suggested assignees/,
    );
    expect(errorOf('assigned:someone')).toMatch(
      /^query: "assigned:someone": assigned: takes me, none, #<team slug>/,
    );
    expect(errorOf('is:[open,unassigned]')).toBe(
      'query: "is:[open,unassigned]": is:assigned and is:unassigned go in a term of their own',
    );
    expect(errorOf('!times_seen:>3')).toMatch(/cannot be negated/);
    expect(errorOf('tag:"a"b')).toBe('query: "tag:\\"a\\"b": put a space between terms');
    expect(errorOf('half"quoted')).toBe('query: "half\\"quoted": quotes go around a whole value');
    expect(errorOf('first_seen:-999999w')).toBe(
      'query: "first_seen:-999999w": that time is out of range (years 1 to 9999)',
    );
    expect(errorOf('last_seen:<0000-01-01')).toMatch(/out of range/);
    expect(errorOf('first_seen:>-999999w')).toMatch(/out of range/);
  });

  it('bounds the query: length, terms and values per list', () => {
    expect(errorOf('x'.repeat(2_001))).toMatch(/longer than 2000 characters/);
    expect(errorOf(Array.from({ length: 31 }, (_, i) => `w${i}`).join(' '))).toMatch(/at most 30 terms/);
    expect(errorOf(`k:[${Array.from({ length: 51 }, (_, i) => i).join(',')}]`)).toMatch(/at most 50 values/);
  });

  it('never fails with anything but a QuerySyntaxError, whatever it is given', () => {
    const pieces = fc.constantFrom(
      'is:',
      'level:',
      'first_seen:',
      'times_seen:',
      'tag:',
      '!',
      '"',
      '\\',
      '[',
      ']',
      ',',
      ':',
      ' ',
      '>',
      '<=',
      '-24h',
      '+7d',
      '2026-01-01',
      'T10:00',
      'open',
      'error',
      'x',
      'é',
      '\u0000',
      '\ud800',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 6 })), { maxLength: 20 }), (parts) => {
        const query = parts.join('');
        try {
          const filters = parse(query);
          expect(Array.isArray(filters)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(QuerySyntaxError);
          expect((error as Error).message.startsWith('query: ')).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
