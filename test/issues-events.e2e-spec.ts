import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { ErrorEvent } from '../src/events/event.entity';
import { Issue, IssueState } from '../src/issues/issue.entity';
import { Project } from '../src/projects/project.entity';
import { QueueName } from '../src/common/queues';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

/** Deterministic pseudo-random numbers in [0, 1), so a failing run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Ingestion is exercised elsewhere; here issues and events are written straight into the database
 * so that the read and management API can be checked against known data.
 */
describe('issues and events', () => {
  let t: TestApp;
  let projects: Repository<Project>;
  let issues: Repository<Issue>;
  let events: Repository<ErrorEvent>;
  const base = Date.parse('2031-05-01T12:00:00.000Z');

  async function createProject(name: string): Promise<Project> {
    const response = await t.api().post('/api/projects').send({ name }).expect(201);
    return projects.findOneByOrFail({ id: response.body.id });
  }

  async function createIssue(project: Project, values: Partial<Issue> & { lastSeen: Date }): Promise<Issue> {
    project.nextIssueNumber += 1;
    await projects.update({ id: project.id }, { nextIssueNumber: project.nextIssueNumber });
    return issues.save(
      issues.create({
        projectId: project.id,
        groupingKey: randomUUID(),
        number: project.nextIssueNumber,
        type: 'TypeError',
        message: `boom ${project.nextIssueNumber}`,
        culprit: 'app.js in handler',
        level: 'error',
        state: 'open',
        eventCount: 1,
        firstSeen: new Date(values.lastSeen.getTime() - 60_000),
        ...values,
      }),
    );
  }

  async function createEvent(
    issue: Issue,
    values: Partial<ErrorEvent> & { timestamp: Date; user?: Record<string, unknown> | null },
  ): Promise<ErrorEvent> {
    const { user = { id: '42', email: 'jane@example.com', ip_address: '10.0.0.1' }, ...columns } = values;
    // The rows are written directly, not through the digest: their day's partition may not exist yet.
    await events.query('SELECT events_ensure_partition($1::date)', [
      values.timestamp.toISOString().slice(0, 10),
    ]);
    return events.save(
      events.create({
        projectId: issue.projectId,
        issueId: issue.id,
        id: randomUUID(),
        receivedAt: values.timestamp,
        environment: 'production',
        release: 'web@1.2.3',
        level: 'error',
        payload: {
          user,
          exception: {
            values: [
              {
                type: 'TypeError',
                value: 'boom',
                stacktrace: { frames: [{ filename: 'app.js', lineno: 3 }] },
              },
            ],
          },
          breadcrumbs: [{ category: 'ui.click', message: 'button' }],
          tags: { browser: 'Firefox' },
          contexts: { os: { name: 'Linux' } },
          request: { url: 'https://shop.example.com/cart', method: 'GET' },
        },
        ...columns,
      }),
    );
  }

  beforeAll(async () => {
    t = await startTestApp();
    const dataSource = t.app.get(DataSource);
    projects = dataSource.getRepository(Project);
    issues = dataSource.getRepository(Issue);
    events = dataSource.getRepository(ErrorEvent);
  });
  afterAll(() => t.close());

  describe('issue list', () => {
    let project: Project;
    const created: Issue[] = [];
    const states: IssueState[] = ['open', 'resolved', 'muted'];

    beforeAll(async () => {
      project = await createProject('Issue Shop');
      // 25 issues with distinct last_seen in shuffled order, and two sharing one timestamp.
      const order = Array.from({ length: 25 }, (_, i) => (i * 7) % 25);
      for (const minute of order) {
        created.push(
          await createIssue(project, {
            lastSeen: new Date(base + minute * 60_000),
            state: states[minute % 3],
          }),
        );
      }
      created.push(await createIssue(project, { lastSeen: new Date(base + 10 * 60_000 + 30_000) }));
      created.push(await createIssue(project, { lastSeen: new Date(base + 10 * 60_000 + 30_000) }));
    });

    const sorted = () =>
      [...created]
        .sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime() || b.id - a.id)
        .map((issue) => issue.id);

    it('wraps issues in {data, next_cursor, total}, sorted by last_seen, newest first', async () => {
      const response = await t.api().get(`/api/projects/${project.id}/issues`).expect(200);
      expect(Object.keys(response.body).sort()).toEqual([
        'data',
        'next_cursor',
        'total',
        'total_is_estimate',
      ]);
      expect(response.body.total).toBe(response.body.data.length);
      expect(response.body.total_is_estimate).toBe(false);
      expect(response.body.next_cursor).toBeNull();
      expect(response.body.data.map((issue: { id: number }) => issue.id)).toEqual(sorted());
      const newest = created.find((issue) => issue.id === sorted()[0])!;
      expect(response.body.data[0]).toEqual({
        id: newest.id,
        project_id: project.id,
        short_id: `ISSUE-SHOP-${newest.number}`,
        type: 'TypeError',
        message: newest.message,
        culprit: 'app.js in handler',
        level: 'error',
        kind: 'error',
        monitor: null,
        state: newest.state,
        event_count: 1,
        user_count: 0,
        first_seen: newest.firstSeen.toISOString(),
        last_seen: newest.lastSeen.toISOString(),
        resolved_at: null,
        last_regressed_at: null,
        regression_count: 0,
        first_release: null,
        last_release: null,
        resolved_in: null,
        mute_until: null,
        mute_until_count: null,
        mute_until_users: null,
        assignee: null,
      });
    });

    it.each(states)('filters by state=%s', async (state) => {
      const response = await t.api().get(`/api/projects/${project.id}/issues?state=${state}`).expect(200);
      const expected = sorted().filter((id) => created.find((issue) => issue.id === id)!.state === state);
      expect(expected.length).toBeGreaterThan(0);
      expect(response.body.data.map((issue: { id: number }) => issue.id)).toEqual(expected);
      expect(response.body.data.every((issue: { state: string }) => issue.state === state)).toBe(true);
    });

    it('rejects an unknown state and bad paging parameters', async () => {
      await t
        .api()
        .get(`/api/projects/${project.id}/issues?state=closed`)
        .expect(400, { error: 'state must be one of open, resolved, muted' });
      await t.api().get(`/api/projects/${project.id}/issues?limit=0`).expect(400);
      await t
        .api()
        .get(`/api/projects/${project.id}/issues?limit=abc`)
        .expect(400, { error: 'limit must be an integer' });
      await t
        .api()
        .get(`/api/projects/${project.id}/issues?cursor=nonsense`)
        .expect(400, { error: 'cursor is not valid' });
      await t
        .api()
        .get(`/api/projects/${project.id}/issues?sort=asc`)
        .expect(400, { error: 'sort must be one of last_seen, first_seen, events, users' });
    });

    it('pages with limit and cursor without duplicates or gaps, ties included', async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `limit=4&cursor=${encodeURIComponent(cursor)}` : 'limit=4';
        const response = await t.api().get(`/api/projects/${project.id}/issues?${query}`).expect(200);
        expect(response.body.data.length).toBeLessThanOrEqual(4);
        seen.push(...response.body.data.map((issue: { id: number }) => issue.id));
        cursor = response.body.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(pages).toBe(7);
      expect(seen).toEqual(sorted());
    });

    it('pages a state filter too', async () => {
      const first = await t.api().get(`/api/projects/${project.id}/issues?state=open&limit=3`).expect(200);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await t
        .api()
        .get(`/api/projects/${project.id}/issues?state=open&limit=3&cursor=${first.body.next_cursor}`)
        .expect(200);
      const ids = [...first.body.data, ...second.body.data].map((issue: { id: number }) => issue.id);
      const open = sorted().filter((id) => created.find((issue) => issue.id === id)!.state === 'open');
      expect(ids).toEqual(open.slice(0, ids.length));
    });

    it('answers 404 for an unknown project and 400 for a malformed id', async () => {
      await t.api().get('/api/projects/99999999/issues').expect(404, { error: 'project not found' });
      for (const bad of ['abc', '1.5', '-1']) {
        await t
          .api()
          .get(`/api/projects/${bad}/issues`)
          .expect(400, { error: 'project_id must be a positive integer' });
      }
    });
  });

  describe('single issue', () => {
    let project: Project;

    beforeAll(async () => {
      project = await createProject('Issues API');
    });

    it('gets an issue with its short id', async () => {
      const issue = await createIssue(project, { lastSeen: new Date(base) });
      const response = await t.api().get(`/api/issues/${issue.id}`).expect(200);
      expect(response.body).toMatchObject({
        id: issue.id,
        short_id: `ISSUES-API-${issue.number}`,
        state: 'open',
        event_count: 1,
      });
    });

    it('changes the state, and only the state', async () => {
      const issue = await createIssue(project, { lastSeen: new Date(base) });
      const url = `/api/issues/${issue.id}`;
      const resolved = await t.api().patch(url).send({ state: 'resolved' }).expect(200);
      expect(resolved.body).toMatchObject({
        id: issue.id,
        state: 'resolved',
        resolved_at: expect.any(String),
      });
      const muted = await t.api().patch(url).send({ state: 'muted' }).expect(200);
      expect(muted.body.state).toBe('muted');
      const reopened = await t.api().patch(url).send({ state: 'open' }).expect(200);
      expect(reopened.body.state).toBe('open');
      await t.api().get(url).expect(200, reopened.body);

      await t
        .api()
        .patch(url)
        .send({ state: 'closed' })
        .expect(400, { error: 'state must be one of open, resolved, muted' });
      await t.api().patch(url).send({}).expect(400, { error: 'state must be one of open, resolved, muted' });
      await t
        .api()
        .patch(url)
        .send({ state: 'open', message: 'edited' })
        .expect(400, { error: 'property message should not exist' });
      await t.api().patch(url).send({ event_count: 0 }).expect(400);
      await t
        .api()
        .patch('/api/issues/99999999')
        .send({ state: 'open' })
        .expect(404, { error: 'issue not found' });
    });

    it('deletes an issue together with its events', async () => {
      const issue = await createIssue(project, { lastSeen: new Date(base) });
      const event = await createEvent(issue, { timestamp: new Date(base) });
      await t.api().delete(`/api/issues/${issue.id}`).expect(204, '');
      await t.api().get(`/api/issues/${issue.id}`).expect(404, { error: 'issue not found' });
      await t.api().get(`/api/issues/${issue.id}/events`).expect(404, { error: 'issue not found' });
      await t.api().get(`/api/events/${event.id}`).expect(404, { error: 'event not found' });
      expect(await events.countBy({ issueId: issue.id })).toBe(0);
      await t.api().delete(`/api/issues/${issue.id}`).expect(404, { error: 'issue not found' });
    });

    it('answers 404 for unknown issues and 400 for malformed ids', async () => {
      await t.api().get('/api/issues/99999999').expect(404, { error: 'issue not found' });
      await t.api().delete('/api/issues/99999999').expect(404, { error: 'issue not found' });
      for (const bad of ['abc', '1.5', '-1', '0', '2147483648']) {
        await t.api().get(`/api/issues/${bad}`).expect(400, { error: 'id must be a positive integer' });
        await t
          .api()
          .patch(`/api/issues/${bad}`)
          .send({ state: 'open' })
          .expect(400, { error: 'id must be a positive integer' });
        await t.api().delete(`/api/issues/${bad}`).expect(400, { error: 'id must be a positive integer' });
        await t
          .api()
          .get(`/api/issues/${bad}/events`)
          .expect(400, { error: 'issue_id must be a positive integer' });
      }
    });
  });

  describe('events', () => {
    let issue: Issue;
    const stored: ErrorEvent[] = [];

    beforeAll(async () => {
      const project = await createProject('Event List');
      issue = await createIssue(project, { lastSeen: new Date(base) });
      for (const minute of [3, 0, 4, 1, 2]) {
        stored.push(await createEvent(issue, { timestamp: new Date(base + minute * 60_000) }));
      }
      stored.push(
        await createEvent(issue, {
          timestamp: new Date(base + 5 * 60_000),
          environment: null,
          release: null,
          user: null,
        }),
      );
    });

    const newestFirst = () =>
      [...stored].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime()).map((event) => event.id);

    it('lists events newest first with the list-item fields', async () => {
      const response = await t.api().get(`/api/issues/${issue.id}/events`).expect(200);
      expect(response.body.next_cursor).toBeNull();
      expect(response.body.data.map((event: { id: string }) => event.id)).toEqual(newestFirst());
      expect(response.body.data[0]).toEqual({
        id: stored[5].id,
        issue_id: issue.id,
        timestamp: stored[5].timestamp.toISOString(),
        received_at: stored[5].receivedAt.toISOString(),
        level: 'error',
        environment: null,
        release: null,
        user: null,
        attachment_count: 0,
      });
      expect(response.body.data[1]).toEqual({
        id: stored[2].id,
        issue_id: issue.id,
        timestamp: new Date(base + 4 * 60_000).toISOString(),
        received_at: new Date(base + 4 * 60_000).toISOString(),
        level: 'error',
        environment: 'production',
        release: 'web@1.2.3',
        user: { id: '42', email: 'jane@example.com' },
        attachment_count: 0,
      });
      expect(response.body.data[1]).not.toHaveProperty('exception');
    });

    it('pages events', async () => {
      const first = await t.api().get(`/api/issues/${issue.id}/events?limit=4`).expect(200);
      expect(first.body.data).toHaveLength(4);
      const second = await t
        .api()
        .get(`/api/issues/${issue.id}/events?limit=4&cursor=${first.body.next_cursor}`)
        .expect(200);
      expect(second.body.next_cursor).toBeNull();
      expect([...first.body.data, ...second.body.data].map((event: { id: string }) => event.id)).toEqual(
        newestFirst(),
      );
    });

    it('gets the full event by UUID, with or without dashes, in any case', async () => {
      const event = stored[0];
      const response = await t.api().get(`/api/events/${event.id}`).expect(200);
      expect(response.body).toMatchObject({
        id: event.id,
        project_id: issue.projectId,
        issue_id: issue.id,
        timestamp: event.timestamp.toISOString(),
        environment: 'production',
        release: 'web@1.2.3',
        user: { id: '42', email: 'jane@example.com' },
        exception: {
          values: [
            { type: 'TypeError', value: 'boom', stacktrace: { frames: [{ filename: 'app.js', lineno: 3 }] } },
          ],
        },
        breadcrumbs: [{ category: 'ui.click', message: 'button' }],
        tags: { browser: 'Firefox' },
        contexts: { os: { name: 'Linux' } },
        request: { url: 'https://shop.example.com/cart', method: 'GET' },
      });
      await t
        .api()
        .get(`/api/events/${event.id.replace(/-/g, '')}`)
        .expect(200, response.body);
      await t.api().get(`/api/events/${event.id.toUpperCase()}`).expect(200, response.body);
    });

    it('answers 400 for a non-UUID and 404 for an unknown event', async () => {
      for (const bad of ['abc', '123', `${randomUUID()}0`, 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) {
        await t.api().get(`/api/events/${bad}`).expect(400, { error: 'id must be a UUID' });
      }
      await t.api().get(`/api/events/${randomUUID()}`).expect(404, { error: 'event not found' });
      await t.api().get('/api/issues/99999999/events').expect(404, { error: 'issue not found' });
    });
  });

  describe('malformed cursors', () => {
    let issuesUrl: string;
    let eventsUrl: string;
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const at = '2031-05-01T12:00:00.000Z';
    const uuid = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

    beforeAll(async () => {
      const project = await createProject('Cursor Checks');
      const issue = await createIssue(project, { lastSeen: new Date(base) });
      await createEvent(issue, { timestamp: new Date(base) });
      issuesUrl = `/api/projects/${project.id}/issues`;
      eventsUrl = `/api/issues/${issue.id}/events`;
    });

    /** Cursors no list accepts; `id` is a well-formed id of the list under test. */
    const anyList = (id: string): Array<[string, string]> => [
      ['an empty cursor', ''],
      ['characters outside base64url', '!!!***'],
      ['standard base64 with padding', Buffer.from(`${at}|${id}`).toString('base64')],
      ['base64url with a stray character', `${b64(`${at}|${id}`)}!`],
      ['valid base64 of garbage', b64('garbage')],
      ['valid base64 of binary', Buffer.from([0xff, 0xfe, 0x00, 0x7c, 0x31]).toString('base64url')],
      ['a date without an id', b64(at)],
      ['an empty id', b64(`${at}|`)],
      ['an id without a date', b64(`|${id}`)],
      ['a date in another format', b64(`2031-05-01 12:00:00|${id}`)],
      ['a date before PostgreSQL time', b64(`-271821-04-20T00:00:00.000Z|${id}`)],
      ['a date past year 9999', b64(`+275760-09-13T00:00:00.000Z|${id}`)],
      ['year zero', b64(`0000-01-01T00:00:00.000Z|${id}`)],
      ['an impossible day', b64(`2031-02-30T00:00:00.000Z|${id}`)],
      ['a very long cursor', 'A'.repeat(10_000)],
    ];

    it.each([
      ...anyList('1'),
      ['a UUID as an issue id', b64(`${at}|${uuid}`)],
      ['a word as an issue id', b64(`${at}|abc`)],
      ['hex as an issue id', b64(`${at}|ff`)],
      ['an issue id past int4', b64(`${at}|2147483648`)],
      ['a huge issue id', b64(`${at}|99999999999999999999999`)],
      ['a negative issue id', b64(`${at}|-1`)],
      ['issue id zero', b64(`${at}|0`)],
      ['an exponent as an issue id', b64(`${at}|1e3`)],
      ['a snapshot that is not one', b64(`${at}|1|garbage`)],
      ['a snapshot with xmin above xmax', b64(`${at}|1|5:3:`)],
      ['a snapshot with xmin zero', b64(`${at}|1|0:3:`)],
      ['a snapshot with an in-progress id past xmax', b64(`${at}|1|3:10:10`)],
      ['a snapshot with unordered in-progress ids', b64(`${at}|1|3:10:5,4`)],
      ['a snapshot past xid8', b64(`${at}|1|1:18446744073709551616:`)],
      ['a catch-up region without its snapshot', b64(`${at}|1|3:10:|${at}|2`)],
      ['too many fields', b64(`${at}|1|3:10:|${at}|2|3:10:|x`)],
    ])('answers 400 to an issue cursor with %s', async (_, cursor) => {
      await t
        .api()
        .get(`${issuesUrl}?cursor=${encodeURIComponent(cursor)}`)
        .expect(400, { error: 'cursor is not valid' });
    });

    it.each([
      ...anyList(uuid),
      ['an integer as an event id', b64(`${at}|123`)],
      ['a huge integer as an event id', b64(`${at}|99999999999999999999999`)],
      ['a UUID without dashes', b64(`${at}|${uuid.replace(/-/g, '')}`)],
      ['a UUID with a bad digit', b64(`${at}|${uuid.slice(0, -1)}g`)],
      ['an issue cursor', b64(`${at}|${uuid}|3:10:`)],
    ])('answers 400 to an event cursor with %s', async (_, cursor) => {
      await t
        .api()
        .get(`${eventsUrl}?cursor=${encodeURIComponent(cursor)}`)
        .expect(400, { error: 'cursor is not valid' });
    });

    it('accepts the cursors it hands out, and a bare sort key for issues', async () => {
      await t
        .api()
        .get(`${issuesUrl}?cursor=${b64(`${at}|1`)}`)
        .expect(200);
      await t
        .api()
        .get(`${eventsUrl}?cursor=${b64(`${at}|${uuid}`)}`)
        .expect(200);
    });
  });

  describe('paging while issues move', () => {
    type Listed = { body: { data: Array<{ id: number }>; next_cursor: string | null } };

    async function pageAll(
      url: string,
      limit: number,
      betweenPages: (page: number, cursor: string) => Promise<void>,
    ): Promise<{ seen: number[]; pages: number }> {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `limit=${limit}&cursor=${cursor}` : `limit=${limit}`;
        const response = (await t.api().get(`${url}?${query}`).expect(200)) as Listed;
        expect(response.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...response.body.data.map((issue) => issue.id));
        cursor = response.body.next_cursor;
        pages++;
        if (cursor) await betweenPages(pages, cursor);
      } while (cursor && pages < 200);
      expect(cursor).toBeNull();
      return { seen, pages };
    }

    it('returns an issue that an event moves above the cursor, even with an old timestamp', async () => {
      const project = await createProject('Paging Digest');
      const digest = openQueue(t, QueueName.Digest);
      try {
        const start = Date.now() - 3_600_000;
        const minute = (n: number) => new Date(start + n * 60_000);
        const send = (n: number, at: Date) =>
          enqueueEvent(digest, project.id, {
            message: `paging issue ${n}`,
            fingerprint: [`paging-${n}`],
            timestamp: at.toISOString(),
          });
        for (let n = 0; n < 9; n++) await send(n, minute(n));
        const all = await eventually(async () => {
          const rows = await issues.findBy({ projectId: project.id });
          return rows.length === 9 && rows;
        });
        const issueOf = (n: number) => all.find((issue) => issue.message === `paging issue ${n}`)!;

        const { seen } = await pageAll(`/api/projects/${project.id}/issues`, 3, async (page) => {
          if (page !== 1) return;
          // Page 1 held issues 8, 7 and 6. Issue 1 gets an event that happened before page 1 was
          // read but is digested after it: it now sorts between issues 7 and 6, above the cursor.
          await send(1, minute(6.5));
          await eventually(
            async () =>
              (await issues.findOneByOrFail({ id: issueOf(1).id })).lastSeen.getTime() ===
              minute(6.5).getTime(),
          );
        });
        expect(new Set(seen)).toEqual(new Set(all.map((issue) => issue.id)));
      } finally {
        await digest.close();
      }
    });

    it.each([20_240_501, 7, 99])(
      'returns every issue at least once while many move between pages (seed %d)',
      async (seed) => {
        const project = await createProject(`Paging Churn ${seed}`);
        const start = Date.parse('2030-01-01T00:00:00.000Z');
        const all: Issue[] = [];
        for (let n = 0; n < 40; n++) {
          all.push(await createIssue(project, { lastSeen: new Date(start + n * 60_000) }));
        }
        const random = seededRandom(seed);
        const dataSource = t.app.get(DataSource);
        // The digest's own update of an issue that receives an event.
        const receiveEvent = (issue: Issue, at: number) =>
          dataSource.query(
            'UPDATE issues SET event_count = event_count + 1, last_seen = GREATEST(last_seen, $2) WHERE id = $1',
            [issue.id, new Date(at)],
          );

        const { seen, pages } = await pageAll(`/api/projects/${project.id}/issues`, 3, async (page) => {
          // Several pages see more issues move above the cursor than one page holds.
          const moves = page % 4 === 1 ? 8 : 2;
          for (let m = 0; m < moves; m++) {
            const issue = all[Math.floor(random() * all.length)];
            await receiveEvent(issue, start + Math.floor(random() * 60) * 60_000 + 30_000);
          }
        });
        expect(new Set(seen)).toEqual(new Set(all.map((issue) => issue.id)));
        expect(pages).toBeLessThan(100);
      },
    );

    it('pages without duplicates when nothing moves', async () => {
      const project = await createProject('Paging Still');
      const all: Issue[] = [];
      for (let n = 0; n < 10; n++) {
        all.push(await createIssue(project, { lastSeen: new Date(base + n * 60_000) }));
      }
      const { seen } = await pageAll(`/api/projects/${project.id}/issues`, 3, async () => undefined);
      expect(seen).toEqual(all.map((issue) => issue.id).reverse());
    });
  });

  it('serves no management routes on a worker-only instance', async () => {
    const project = await createProject('Worker Routes');
    const issue = await createIssue(project, { lastSeen: new Date(base) });
    const worker = await startTestApp({ APP_ROLE: 'worker' });
    try {
      for (const path of [`/api/issues/${issue.id}`, `/api/issues/${issue.id}/events`]) {
        const response = await worker.http().get(path).expect(404);
        expect(response.body).toEqual({ error: `Cannot GET ${path}` });
      }
    } finally {
      await worker.close();
    }
  });

  it('deleting a project removes its issues and events', async () => {
    const project = await createProject('Doomed');
    const issue = await createIssue(project, { lastSeen: new Date(base) });
    const event = await createEvent(issue, { timestamp: new Date(base) });
    await t.api().delete(`/api/projects/${project.id}`).expect(204);
    await t.api().get(`/api/issues/${issue.id}`).expect(404, { error: 'issue not found' });
    await t.api().get(`/api/events/${event.id}`).expect(404, { error: 'event not found' });
    await t.api().get(`/api/projects/${project.id}/issues`).expect(404, { error: 'project not found' });
    expect(await issues.countBy({ projectId: project.id })).toBe(0);
    expect(await events.countBy({ projectId: project.id })).toBe(0);
  });
});
