/**
 * The issue list's search language, sorts and total, against issues the real digest made from
 * events (so that the tag filters read the rollups it wrote).
 */
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { TOTAL_COUNTED } from '../src/issues/issues.service';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';
import { settleRollups } from './helpers/rollups';

interface ListedIssue {
  id: number;
  short_id: string;
  type: string;
  level: string;
  state: string;
  event_count: number;
  user_count: number;
  first_seen: string;
  last_seen: string;
}

interface Listed {
  data: ListedIssue[];
  next_cursor: string | null;
  total: number;
  total_is_estimate: boolean;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('issue search, sorts and totals', () => {
  let t: TestApp;
  let digest: Queue;
  let db: DataSource;
  let project: { id: number; slug: string };
  /** Issue id by the name its events' exception type carries. */
  const ids = new Map<string, number>();

  /** An exception event of the issue `name` (its type), with the given fields. */
  function send(name: string, fields: Record<string, unknown> = {}, at = Date.now()): Promise<string> {
    return enqueueEvent(digest, project.id, {
      exception: {
        values: [{ type: name, value: `${name} happened in checkout`, stacktrace: { frames: [] } }],
      },
      timestamp: new Date(at).toISOString(),
      level: 'error',
      ...fields,
    });
  }

  async function list(query: string, extra = ''): Promise<Listed> {
    const url = `/api/projects/${project.id}/issues?query=${encodeURIComponent(query)}${extra}`;
    return (await t.api().get(url).expect(200)).body as Listed;
  }

  /** The names of the issues a query lists, sorted. */
  async function names(query: string): Promise<string[]> {
    const byId = new Map([...ids].map(([name, id]) => [id, name]));
    return (await list(query)).data.map((issue) => byId.get(issue.id) ?? `#${issue.id}`).sort();
  }

  async function settle(): Promise<void> {
    await eventually(async () => (await digest.getJobCounts('waiting', 'active')).waiting === 0, 30_000);
    await eventually(async () => (await digest.getJobCounts('waiting', 'active')).active === 0, 30_000);
    await settleRollups(t.app);
  }

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    db = t.app.get(DataSource);
    project = (await t.api().post('/api/projects').send({ name: 'Search Shop' }).expect(201)).body;
    const now = Date.now();
    // Five issues with what each filter tells apart.
    for (let n = 0; n < 5; n++)
      await send('CheckoutError', {
        environment: 'production',
        release: 'shop@2.0.0',
        user: { id: `u${n}`, email: `buyer${n}@example.com` },
        tags: { region: 'eu west' },
      });
    await send('CartWarning', {
      level: 'warning',
      environment: 'staging',
      release: 'shop@1.0.0',
      user: { id: 'u9', email: 'tester@example.com' },
      tags: { region: 'us' },
    });
    await send(
      'LoginFatal',
      { level: 'fatal', environment: 'production', release: 'shop@1.0.0' },
      now - 3 * DAY,
    );
    await send(
      'LoginFatal',
      { level: 'fatal', environment: 'production', release: 'shop@1.0.0' },
      now - 2 * DAY,
    );
    await send('SearchInfo', {
      level: 'info',
      environment: 'staging',
      tags: { region: 'eu west', feature: 'search' },
    });
    await send('Quota_100%_Error', { environment: 'production' });
    await settle();
    const rows: { id: number; type: string }[] = await db.query(
      'SELECT id, type FROM issues WHERE project_id = $1',
      [project.id],
    );
    for (const row of rows) ids.set(row.type, row.id);
    expect([...ids.keys()].sort()).toEqual([
      'CartWarning',
      'CheckoutError',
      'LoginFatal',
      'Quota_100%_Error',
      'SearchInfo',
    ]);
    // LoginFatal was first seen three days ago (the digest keeps the event's time).
    await db.query("UPDATE issues SET state = 'resolved' WHERE id = $1", [ids.get('CartWarning')]);
    await db.query("UPDATE issues SET state = 'muted' WHERE id = $1", [ids.get('SearchInfo')]);
  });
  afterAll(async () => {
    await digest.close();
    await t.close();
  });

  it('filters by state, with unresolved for open, negation and lists; the state parameter still works', async () => {
    expect(await names('is:unresolved')).toEqual(['CheckoutError', 'LoginFatal', 'Quota_100%_Error']);
    expect(await names('is:open')).toEqual(await names('is:unresolved'));
    expect(await names('is:resolved')).toEqual(['CartWarning']);
    expect(await names('!is:open')).toEqual(['CartWarning', 'SearchInfo']);
    expect(await names('is:[resolved,muted]')).toEqual(['CartWarning', 'SearchInfo']);
    const byParameter = (await t.api().get(`/api/projects/${project.id}/issues?state=muted`).expect(200))
      .body;
    expect(byParameter.data.map((issue: ListedIssue) => issue.id)).toEqual([ids.get('SearchInfo')]);
    // Both: they must both hold.
    expect((await list('level:info', '&state=open')).data).toEqual([]);
  });

  it('filters by level, environment, release and any tag, quoted values and negation included', async () => {
    expect(await names('level:fatal')).toEqual(['LoginFatal']);
    expect(await names('level:[warning,info]')).toEqual(['CartWarning', 'SearchInfo']);
    expect(await names('environment:staging')).toEqual(['CartWarning', 'SearchInfo']);
    expect(await names('!environment:staging')).toEqual(['CheckoutError', 'LoginFatal', 'Quota_100%_Error']);
    expect(await names('release:shop@1.0.0')).toEqual(['CartWarning', 'LoginFatal']);
    expect(await names('release:"shop@2.0.0" environment:production')).toEqual(['CheckoutError']);
    expect(await names('region:"eu west"')).toEqual(['CheckoutError', 'SearchInfo']);
    expect(await names('region:["eu west",us] !feature:search')).toEqual(['CartWarning', 'CheckoutError']);
    expect(await names('release:shop@9.9.9')).toEqual([]);
  });

  it('filters by user id and e-mail', async () => {
    expect(await names('user.id:u3')).toEqual(['CheckoutError']);
    expect(await names('user.email:tester@example.com')).toEqual(['CartWarning']);
    expect(await names('user.email:[buyer1@example.com,tester@example.com]')).toEqual([
      'CartWarning',
      'CheckoutError',
    ]);
  });

  it('filters by first and last seen, relative and absolute, and by counts', async () => {
    expect(await names('first_seen:+1d')).toEqual(['LoginFatal']);
    expect(await names('first_seen:-1d')).toEqual([
      'CartWarning',
      'CheckoutError',
      'Quota_100%_Error',
      'SearchInfo',
    ]);
    expect(await names('last_seen:+36h')).toEqual(['LoginFatal']);
    const day = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10);
    expect(await names(`first_seen:${day}`)).toEqual(['LoginFatal']);
    expect(await names(`first_seen:>${new Date(Date.now() - HOUR).toISOString()}`)).not.toContain(
      'LoginFatal',
    );
    expect(await names('times_seen:>1')).toEqual(['CheckoutError', 'LoginFatal']);
    expect(await names('times_seen:5')).toEqual(['CheckoutError']);
    expect(await names('times_seen:<=1')).toEqual(['CartWarning', 'Quota_100%_Error', 'SearchInfo']);
    expect(await names('users:>=5')).toEqual(['CheckoutError']);
  });

  it('matches free text in the type, message and culprit, literally, and a short id typed alone', async () => {
    expect(await names('login')).toEqual(['LoginFatal']);
    expect(await names('"happened in checkout" cart')).toEqual(['CartWarning']);
    expect(await names('!happened')).toEqual([]);
    // % and _ are themselves, not wildcards.
    expect(await names('100%')).toEqual(['Quota_100%_Error']);
    expect(await names('Quot_')).toEqual([]);
    expect(await names('Quota%100')).toEqual([]);
    const quota = (await list('Quota')).data[0];
    expect(await names(quota.short_id)).toEqual(['Quota_100%_Error']);
    expect(await names(quota.short_id.toLowerCase())).toEqual(['Quota_100%_Error']);
  });

  it.each([
    ['an unknown key', 'colour:red', 'query: unknown key "colour": no event of this project has that tag'],
    ['an unknown state', 'is:sleeping', 'query: "is:sleeping": is: takes open, unresolved'],
    ['a malformed count', 'times_seen:>many', 'query: "times_seen:>many": times_seen: takes a whole number'],
    ['a malformed time', 'last_seen:last-week', 'query: "last_seen:last-week": last_seen: takes -24h'],
    ['an empty value', 'release:', 'query: "release:": release: needs a value'],
    ['an open quote', 'release:"1.0', 'query: "release:\\"1.0": a quoted value needs its closing "'],
    [
      'assigned:me with an operator token, which has no account',
      'assigned:me',
      'query: "assigned:me": an operator token has no account to be me',
    ],
    [
      'suggested assignees',
      'assigned_or_suggested:me',
      'query: "assigned_or_suggested:me": suggested assignees are not supported',
    ],
  ])('answers 400 naming the term for %s', async (_, query, message) => {
    const response = await t
      .api()
      .get(`/api/projects/${project.id}/issues?query=${encodeURIComponent(query)}`)
      .expect(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toContain(message);
  });

  it('sorts by each key, descending, and refuses a cursor of another sort', async () => {
    const sorted = async (sort: string) => (await list('', `&sort=${sort}`)).data;
    const lastSeen = await sorted('last_seen');
    expect(lastSeen.map((issue) => issue.last_seen)).toEqual(
      lastSeen.map((issue) => issue.last_seen).sort((a, b) => b.localeCompare(a)),
    );
    expect((await sorted('first_seen'))[4].id).toBe(ids.get('LoginFatal'));
    const events = await sorted('events');
    expect(events.map((issue) => issue.event_count)).toEqual([5, 2, 1, 1, 1]);
    expect(events[0].id).toBe(ids.get('CheckoutError'));
    const users = await sorted('users');
    expect(users[0]).toMatchObject({ id: ids.get('CheckoutError'), user_count: 5 });
    expect(users.map((issue) => issue.user_count)).toEqual(
      [...users.map((issue) => issue.user_count)].sort((a, b) => b - a),
    );

    const page = (await t.api().get(`/api/projects/${project.id}/issues?sort=events&limit=2`).expect(200))
      .body;
    expect(page.next_cursor).toEqual(expect.any(String));
    const mismatch = await t
      .api()
      .get(`/api/projects/${project.id}/issues?sort=users&cursor=${page.next_cursor}`)
      .expect(400);
    expect(mismatch.body.error).toBe(
      'cursor belongs to sort=events; ask for that sort, or start without a cursor',
    );
  });

  it.each(['last_seen', 'first_seen', 'events', 'users'])(
    'pages through sort=%s while events arrive, listing every issue at least once, in order within a page',
    async (sort) => {
      const other = (
        await t
          .api()
          .post('/api/projects')
          .send({ name: `Paging ${sort}` })
          .expect(201)
      ).body;
      const sendTo = (n: number, user: string) =>
        enqueueEvent(digest, other.id, {
          message: `paged issue ${n}`,
          fingerprint: [`paged-${n}`],
          user: { id: user },
        });
      for (let n = 0; n < 12; n++) for (let k = 0; k <= n % 4; k++) await sendTo(n, `user-${k}`);
      await eventually(async () => {
        const [{ count }] = await db.query(
          'SELECT count(*)::int AS count FROM issues WHERE project_id = $1',
          [other.id],
        );
        return count === 12;
      });
      await settle();
      const all: number[] = (await db.query('SELECT id FROM issues WHERE project_id = $1', [other.id])).map(
        (row: { id: number }) => row.id,
      );

      const seen = new Set<number>();
      let cursor: string | null = null;
      let pages = 0;
      let extra = 100;
      do {
        const url = `/api/projects/${other.id}/issues?sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const body = (await t.api().get(url).expect(200)).body as Listed;
        const values = body.data.map((issue) =>
          sort === 'events'
            ? issue.event_count
            : sort === 'users'
              ? issue.user_count
              : Date.parse(sort === 'first_seen' ? issue.first_seen : issue.last_seen),
        );
        // Rows returned again (moved above the cursor) come first; each part is in list order.
        expect(body.total).toBe(12);
        for (const issue of body.data) seen.add(issue.id);
        if (values.length > 1 && cursor === null) expect(values).toEqual([...values].sort((a, b) => b - a));
        cursor = body.next_cursor;
        pages++;
        // Between pages, issues low in the list get events (and new users), moving them up.
        if (cursor) {
          for (const n of [0, 1]) for (let k = 0; k < 3; k++) await sendTo(n, `late-${pages}-${extra++}`);
          await settle();
        }
      } while (cursor && pages < 40);
      expect(cursor).toBeNull();
      expect([...seen].sort()).toEqual([...all].sort());
    },
  );

  it('counts the matching issues exactly up to the bound, then estimates, and says so', async () => {
    const many = (await t.api().post('/api/projects').send({ name: 'Many Issues' }).expect(201)).body;
    const count = TOTAL_COUNTED + 500;
    await db.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, event_count,
                           first_seen, last_seen)
       SELECT $1, 'bulk-' || n, n, 'BulkError', 'bulk ' || n, '', CASE WHEN n % 2 = 0 THEN 'error' ELSE 'info' END,
              'open', 1, now() - n * interval '1 second', now() - n * interval '1 second'
         FROM generate_series(1, $2) n`,
      [many.id, count],
    );
    await db.query('UPDATE projects SET next_issue_number = $2 WHERE id = $1', [many.id, count]);
    await db.query('ANALYZE issues');
    const url = (query: string) =>
      `/api/projects/${many.id}/issues?limit=5&query=${encodeURIComponent(query)}`;
    const infos = (await t.api().get(url('level:info')).expect(200)).body as Listed;
    expect(infos).toMatchObject({ total: count / 2, total_is_estimate: false });
    const all = (await t.api().get(url('')).expect(200)).body as Listed;
    expect(all.total_is_estimate).toBe(true);
    expect(all.total).toBeGreaterThan(TOTAL_COUNTED);
    // PostgreSQL's estimate, from fresh statistics: close to the truth.
    expect(Math.abs(all.total - count)).toBeLessThan(count * 0.2);
    expect(all.data).toHaveLength(5);
  });
  it('scopes a list to an environment: its issues, each counted with its events there, sortable by them', async () => {
    // CheckoutError: 5 events in production, then 3 in staging.
    for (let n = 0; n < 3; n++)
      await send('CheckoutError', { environment: 'staging', user: { id: `s${n}` } });
    await settle();
    const scoped = async (environment: string, extra = '') => {
      const url = `/api/projects/${project.id}/issues?environment=${environment}${extra}`;
      return (await t.api().get(url).expect(200)).body as Listed;
    };
    const staging = await scoped('staging', '&sort=events');
    const byId = new Map([...ids].map(([name, id]) => [id, name]));
    expect(staging.data.map((issue) => [byId.get(issue.id), issue.event_count])).toEqual([
      ['CheckoutError', 3],
      ['SearchInfo', 1],
      ['CartWarning', 1],
    ]);
    expect(staging.total).toBe(3);
    const production = await scoped('production', '&sort=events&limit=1');
    expect(production.data.map((issue) => [byId.get(issue.id), issue.event_count])).toEqual([
      ['CheckoutError', 5],
    ]);
    const next = await scoped('production', `&sort=events&limit=5&cursor=${production.next_cursor}`);
    expect(next.data.map((issue) => [byId.get(issue.id), issue.event_count])).toEqual([
      ['LoginFatal', 2],
      ['Quota_100%_Error', 1],
    ]);
    // With a search too; the unscoped list keeps the totals.
    expect((await scoped('production', `&query=${encodeURIComponent('level:fatal')}`)).data).toHaveLength(1);
    const all = await list('CheckoutError');
    expect(all.data[0].event_count).toBe(8);
    expect((await scoped('nowhere')).data).toEqual([]);
    await t.api().get(`/api/projects/${project.id}/issues?environment=`).expect(400, {
      error: 'environment must be 1 to 200 characters',
    });
  });

  it('jumps to a page with offset, from where cursors page on; offset with a cursor is a 400', async () => {
    const everything = (await list('', '&limit=100')).data.map((issue) => issue.id);
    expect(everything.length).toBe(5);
    const third = await list('', '&limit=2&offset=2');
    expect(third.data.map((issue) => issue.id)).toEqual(everything.slice(2, 4));
    expect(third.total).toBe(5);
    const after = await list('', `&limit=2&cursor=${third.next_cursor}`);
    expect(after.data.map((issue) => issue.id)).toEqual(everything.slice(4));
    expect((await list('', '&offset=5')).data).toEqual([]);
    const base = `/api/projects/${project.id}/issues`;
    await t
      .api()
      .get(`${base}?offset=${TOTAL_COUNTED + 1}`)
      .expect(400, {
        error: `offset must be at most ${TOTAL_COUNTED}`,
      });
    await t.api().get(`${base}?offset=-1`).expect(400, { error: 'offset must be 0 or more' });
    await t
      .api()
      .get(`${base}?offset=2&cursor=${third.next_cursor}`)
      .expect(400, { error: 'offset cannot be combined with cursor' });
  });

  it('adds hourly counts over the last 24 hours to each listed issue with stats=24h, scoped too', async () => {
    const withStats = await list('', '&stats=24h');
    const byName = new Map(
      [...ids].map(([name, id]) => [name, withStats.data.find((issue) => issue.id === id)]),
    );
    const stats = (name: string) => (byName.get(name) as ListedIssue & { stats_24h: number[] }).stats_24h;
    expect(stats('CheckoutError')).toHaveLength(24);
    // All eight of its events were sent this hour (or the previous one when the test crossed an hour).
    expect(
      stats('CheckoutError')
        .slice(-2)
        .reduce((a, b) => a + b, 0),
    ).toBe(8);
    expect(
      stats('CheckoutError')
        .slice(0, -2)
        .every((count) => count === 0),
    ).toBe(true);
    // Its events are days old.
    expect(stats('LoginFatal')).toEqual(new Array(24).fill(0));
    const staging = (
      await t
        .api()
        .get(`/api/projects/${project.id}/issues?environment=staging&stats=24h&query=CheckoutError`)
        .expect(200)
    ).body as { data: Array<ListedIssue & { stats_24h: number[] }> };
    expect(staging.data[0].stats_24h.reduce((a, b) => a + b, 0)).toBe(3);
    expect((await list('')).data[0]).not.toHaveProperty('stats_24h');
    await t
      .api()
      .get(`/api/projects/${project.id}/issues?stats=14d`)
      .expect(400, { error: 'stats must be one of 24h' });
  });

  it("suggests the project's tag keys, and a key's most frequent values, by prefix too", async () => {
    const tags = (await t.api().get(`/api/projects/${project.id}/tags`).expect(200)).body as {
      data: Array<{ key: string; total: number }>;
    };
    expect(tags.data.find((tag) => tag.key === 'region')).toEqual({ key: 'region', total: 7 });
    // The busiest first: every event has an environment and a level.
    expect(
      tags.data
        .slice(0, 2)
        .map((tag) => tag.key)
        .sort(),
    ).toEqual(['environment', 'level']);
    const environments = (await t.api().get(`/api/projects/${project.id}/tags/environment`).expect(200))
      .body as { data: Array<{ value: string; count: number }> };
    expect(environments.data[0]).toEqual({ value: 'production', count: 8 });
    const values = (prefix: string) =>
      t
        .api()
        .get(`/api/projects/${project.id}/tags/region?query=${encodeURIComponent(prefix)}`)
        .expect(200)
        .then((response) => (response.body as { data: unknown[] }).data);
    expect(await values('EU')).toEqual([{ value: 'eu west', count: 6 }]);
    expect(await values('')).toHaveLength(2);
    // Wildcards are literal.
    expect(await values('%')).toEqual([]);
    expect(await values('_s')).toEqual([]);
    expect((await t.api().get(`/api/projects/${project.id}/tags/nokey`).expect(200)).body).toEqual({
      data: [],
    });
    await t.api().get(`/api/projects/${project.id}/tags/bad%20key`).expect(400);
    await t.api().get('/api/projects/999999/tags').expect(404);
  });
});
