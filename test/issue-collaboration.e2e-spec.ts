/**
 * Working on issues together: assigning them to members and teams (and the e-mail that tells them),
 * searching by assignee, the activity log with who did what, comments in Markdown, and how long the
 * audit log is kept. Real server, digest, PostgreSQL, Redis and SMTP server.
 */
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { RetentionService } from '../src/retention/retention.service';
import { mailBody, mailHeader } from './helpers/mail';
import { startTestApp, TestApp } from './helpers/app';
import { Account, as, Client, expectStatus, invitedAccount } from './helpers/members';
import { enqueueEvent, openQueue, storedEvent } from './helpers/queues';

const PUBLIC_URL = 'https://errors.example.com';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY_MS = 86_400_000;
const unique = () => randomUUID().slice(0, 8);

interface IssueView {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
  state: string;
  first_seen: string;
  regression_count: number;
  assignee: unknown;
}

interface TeamView {
  id: number;
  slug: string;
  name: string;
}

interface ActivityView {
  id: string;
  kind: string;
  data: Record<string, unknown>;
  created_at: string;
  actor: { id: number | null; email: string | null; name: string } | null;
}

interface CommentView {
  id: number;
  issue_id: number;
  author: { id: number; email: string; name: string } | null;
  author_label: string;
  body: string;
  html: string;
  created_at: string;
  updated_at: string;
}

interface ReceivedMail {
  to: string[];
  raw: string;
}

/** Named accounts: names are what the API shows beside e-mails, so each must be its own. */
type Person = Account & { name: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const COMMENT_TAGS = ['p', 'a', 'strong', 'em'];

/**
 * What in some HTML could run or load something: tags other than the few these comments render to,
 * event-handler attributes, and links that are not to the web or mail. Only real tags are looked
 * at: escaped markup may still spell `javascript:` or `onerror=` as harmless text.
 */
function unsafeTags(html: string): string[] {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)]
    .filter(([, name, attributes]) => {
      const href = /\shref\s*=\s*"([^"]*)"/i.exec(attributes)?.[1];
      return (
        !COMMENT_TAGS.includes(name.toLowerCase()) ||
        /\son[a-z]+\s*=/i.test(attributes) ||
        (href !== undefined && !/^(https?|mailto):/i.test(href))
      );
    })
    .map(([tag]) => tag);
}

const userView = (person: Person) => ({
  type: 'user',
  id: person.id,
  email: person.email,
  name: person.name,
});
const teamView = (team: TeamView) => ({ type: 'team', id: team.id, slug: team.slug, name: team.name });
const actorOf = (person: Person) => ({ id: person.id, email: person.email, name: person.name });

describe('issue collaboration: assignment, assignee search, activity, comments', () => {
  let t: TestApp;
  let db: DataSource;
  let digest: Queue;
  let smtp: SMTPServer;
  const mails: ReceivedMail[] = [];
  let operatorTokenId: number;

  let admin: Person;
  /** On Core and Mailers. */
  let alice: Person;
  let bob: Person;
  /** On Mailers only, with personal e-mails turned off. */
  let carol: Person;
  /** On Mailers only. */
  let frank: Person;
  /** A viewer on Core. */
  let viewer: Person;
  /** On Other, which does not have Core's projects. */
  let dave: Person;
  /** Was on Core, deactivated. */
  let eve: Person;

  let core: TeamView;
  let mailers: TeamView;
  let other: TeamView;
  /** Core's project, where most cases work. */
  let mainProjectId: number;
  let issueCounter = 0;

  const operator = () => as(t, { token: t.token });
  const bySession = (person: Pick<Account, 'cookie'>): Client => as(t, { cookie: person.cookie });
  const byToken = (person: Pick<Account, 'token'>): Client => as(t, { token: person.token });

  async function createProject(name: string, teamId: number): Promise<number> {
    const project = await expectStatus(
      operator()
        .post('/api/projects')
        .send({ name: `${name} ${unique()}` }),
      201,
    );
    await expectStatus(operator().put(`/api/teams/${teamId}/projects/${project.body.id}`), 204);
    return project.body.id;
  }

  async function createTeam(name: string): Promise<TeamView> {
    const team = await expectStatus(
      operator()
        .post('/api/teams')
        .send({ name: `${name} ${unique()}` }),
      201,
    );
    return { id: team.body.id, slug: team.body.slug, name: team.body.name };
  }

  async function person(role: Account['role'], name: string, teamIds: number[]): Promise<Person> {
    return { ...(await invitedAccount(t, operator(), role, { teamIds, name })), name };
  }

  /** Sends one event of `type` through the digest; the same `type` again lands on the same issue. */
  async function sendEvent(projectId: number, type: string): Promise<number> {
    const eventId = await enqueueEvent(digest, projectId, {
      exception: { values: [{ type, value: `${type} in checkout`, stacktrace: { frames: [] } }] },
      level: 'error',
    });
    return (await storedEvent(t, eventId, 30_000)).issue_id;
  }

  async function newIssue(projectId: number, label: string): Promise<IssueView> {
    const id = await sendEvent(projectId, `${label}Error${++issueCounter}`);
    return getIssue(id);
  }

  async function getIssue(id: number): Promise<IssueView> {
    return (await expectStatus(operator().get(`/api/issues/${id}`), 200)).body;
  }

  async function listed(projectId: number, issueId: number): Promise<IssueView | undefined> {
    const page = await expectStatus(operator().get(`/api/projects/${projectId}/issues?limit=1000`), 200);
    return (page.body.data as IssueView[]).find((issue) => issue.id === issueId);
  }

  /**
   * The mails matching `match` once there are `count` of them. Assignment e-mails go out after the
   * response, so they are waited for, for a few seconds at most.
   */
  async function mailsMatching(
    match: (mail: ReceivedMail) => boolean,
    count = 1,
    timeoutMs = 5_000,
  ): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(`${found.length} of ${count} expected e-mail(s) within ${timeoutMs} ms`);
      }
      await sleep(50);
    }
  }

  const about = (issue: IssueView) => (mail: ReceivedMail) =>
    (mailHeader(mail.raw, 'Subject') ?? '').startsWith(`${issue.short_id} `);

  /**
   * Absence of an e-mail cannot be waited for: a later assignment that does e-mail someone is, and
   * e-mails of earlier requests would have been handed over by then.
   */
  async function afterLaterMail(projectId: number): Promise<void> {
    const sentinel = await newIssue(projectId, 'Sentinel');
    await expectStatus(
      bySession(alice)
        .patch(`/api/issues/${sentinel.id}`)
        .send({ assignee: `user:${frank.id}` }),
      200,
    );
    await mailsMatching(about(sentinel));
    await sleep(200);
  }

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          mails.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    // Many sign-ins come from one address here; the throttle is tested elsewhere.
    t = await startTestApp({
      PUBLIC_URL,
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'Error Tracker <tracker@errors.example.com>',
    });
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
    operatorTokenId = (await expectStatus(operator().get('/auth/me'), 200)).body.id;

    core = await createTeam('Core');
    mailers = await createTeam('Mailers');
    other = await createTeam('Other');
    mainProjectId = await createProject('Main', core.id);
    await createProject('Elsewhere', other.id);

    admin = await person('admin', 'Ada Admin', []);
    alice = await person('member', 'Alice Liddell', [core.id, mailers.id]);
    bob = await person('member', 'Bob Builder', [core.id, mailers.id]);
    carol = await person('member', 'Carol Quiet', [mailers.id]);
    frank = await person('member', 'Frank Mailer', [mailers.id]);
    viewer = await person('viewer', 'Vera Viewer', [core.id]);
    dave = await person('member', 'Dave Outsider', [other.id]);
    eve = await person('member', 'Eve Gone', [core.id]);
    await expectStatus(bySession(admin).patch(`/api/members/${eve.id}`).send({ is_active: false }), 200);
  }, 120_000);

  afterAll(async () => {
    await digest?.close();
    await t?.close();
    if (smtp) await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  describe('assignment', () => {
    it('assigns a member by id or e-mail and a team by id or slug, unassigns, and shows it everywhere', async () => {
      const issue = await newIssue(mainProjectId, 'Assign');
      expect(issue.assignee).toBeNull();
      const steps: [string | null, object | null][] = [
        [`user:${alice.id}`, userView(alice)],
        // E-mails are matched whatever their case.
        [bob.email.toUpperCase(), userView(bob)],
        [`team:${core.id}`, teamView(core)],
        [null, null],
        [`#${core.slug}`, teamView(core)],
        [bob.email, userView(bob)],
        // An admin sees every project without being on a team.
        [`user:${admin.id}`, userView(admin)],
        [null, null],
      ];
      for (const [assignee, expected] of steps) {
        const changed = await expectStatus(
          bySession(alice).patch(`/api/issues/${issue.id}`).send({ assignee }),
          200,
        );
        expect({ assignee, shown: changed.body.assignee }).toEqual({ assignee, shown: expected });
        // Only the assignee changed.
        expect(changed.body).toMatchObject({ id: issue.id, state: 'open', short_id: issue.short_id });
        expect({ assignee, got: (await getIssue(issue.id)).assignee }).toEqual({ assignee, got: expected });
        expect({ assignee, listed: (await listed(mainProjectId, issue.id))?.assignee }).toEqual({
          assignee,
          listed: expected,
        });
      }
    });

    it('changes the state and the assignee in one request', async () => {
      const issue = await newIssue(mainProjectId, 'Both');
      const resolved = await expectStatus(
        byToken(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ state: 'resolved', assignee: `user:${bob.id}` }),
        200,
      );
      expect(resolved.body).toMatchObject({ id: issue.id, state: 'resolved', assignee: userView(bob) });
      expect(await getIssue(issue.id)).toMatchObject({ state: 'resolved', assignee: userView(bob) });

      const reopened = await expectStatus(
        bySession(alice).patch(`/api/issues/${issue.id}`).send({ state: 'open', assignee: null }),
        200,
      );
      expect(reopened.body).toMatchObject({ state: 'open', assignee: null });
      expect(await getIssue(issue.id)).toMatchObject({ state: 'open', assignee: null });
    });

    it('refuses an assignee who cannot be put on the issue, and leaves the issue as it was', async () => {
      const issue = await newIssue(mainProjectId, 'Refuse');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${alice.id}` }),
        200,
      );
      const nobody = `nobody-${unique()}@example.com`;
      const noTeam = `no-such-team-${unique()}`;
      const notAnAssignee =
        'assignee must be "user:<id>", "team:<id>", a member\'s e-mail, "#<team slug>" or null, not "robot"';
      const cases: [object, string][] = [
        [
          { assignee: `user:${dave.id}` },
          `assignee: ${dave.email} cannot see this project (it is not on their teams)`,
        ],
        [
          { assignee: dave.email },
          `assignee: ${dave.email} cannot see this project (it is not on their teams)`,
        ],
        [{ assignee: `user:${eve.id}` }, `assignee: no active member is user:${eve.id}`],
        [{ assignee: eve.email }, `assignee: no active member is ${eve.email}`],
        [{ assignee: 'user:2147483647' }, 'assignee: no active member is user:2147483647'],
        [{ assignee: nobody }, `assignee: no active member is ${nobody}`],
        [{ assignee: 'team:2147483647' }, 'assignee: no team is team:2147483647'],
        [{ assignee: `#${noTeam}` }, `assignee: no team is #${noTeam}`],
        [{ assignee: `team:${other.id}` }, `assignee: team #${other.slug} does not have this project`],
        [{ assignee: `#${other.slug}` }, `assignee: team #${other.slug} does not have this project`],
        [{ assignee: 'robot' }, notAnAssignee],
        [{ assignee: 'user:abc' }, 'assignee: "user:abc" needs a user id after "user:"'],
        [{ assignee: 42 }, 'assignee must be a string or null'],
        // A bad assignee refuses the state change that comes with it.
        [{ state: 'resolved', assignee: 'robot' }, notAnAssignee],
        // Neither a state nor an assignee: answered as a body without its state always was.
        [{}, 'state must be one of open, resolved, muted'],
      ];
      for (const [body, error] of cases) {
        const response = await bySession(alice).patch(`/api/issues/${issue.id}`).send(body);
        expect({ body, status: response.status, answer: response.body }).toEqual({
          body,
          status: 400,
          answer: { error },
        });
      }
      expect(await getIssue(issue.id)).toMatchObject({ state: 'open', assignee: userView(alice) });
    });

    it('answers 403 to a viewer and 404 to a member of another team', async () => {
      const issue = await newIssue(mainProjectId, 'Forbidden');
      for (const client of [bySession(viewer), byToken(viewer)]) {
        await client
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${alice.id}` })
          .expect(403, { error: 'a viewer cannot triage issues' });
      }
      for (const client of [bySession(dave), byToken(dave)]) {
        await client
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${alice.id}` })
          .expect(404, { error: 'issue not found' });
      }
      expect((await getIssue(issue.id)).assignee).toBeNull();
    });

    it('assigns many issues at once, by ids and by a search', async () => {
      // A project of its own: `is:unassigned` must select only what this case made.
      const projectId = await createProject('Bulk', core.id);
      const [first, second, third] = [
        await newIssue(projectId, 'Bulk'),
        await newIssue(projectId, 'Bulk'),
        await newIssue(projectId, 'Bulk'),
      ];
      const bulk = (body: object) => bySession(alice).patch(`/api/projects/${projectId}/issues`).send(body);

      await bulk({ ids: [first.id, second.id], assignee: `#${core.slug}` }).expect(200, { updated: 2 });
      expect((await getIssue(first.id)).assignee).toEqual(teamView(core));
      expect((await getIssue(second.id)).assignee).toEqual(teamView(core));
      expect((await getIssue(third.id)).assignee).toBeNull();

      await bulk({ query: 'is:unassigned', assignee: `user:${bob.id}` }).expect(200, { updated: 1 });
      expect((await getIssue(first.id)).assignee).toEqual(teamView(core));
      expect((await getIssue(second.id)).assignee).toEqual(teamView(core));
      expect((await getIssue(third.id)).assignee).toEqual(userView(bob));
      await bulk({ query: 'is:unassigned', assignee: `user:${bob.id}` }).expect(200, { updated: 0 });

      await bulk({ ids: [first.id], assignee: `user:${dave.id}` }).expect(400, {
        error: `assignee: ${dave.email} cannot see this project (it is not on their teams)`,
      });
      expect((await getIssue(first.id)).assignee).toEqual(teamView(core));

      await bulk({ query: 'is:assigned', assignee: null }).expect(200, { updated: 3 });
      for (const issue of [first, second, third]) expect((await getIssue(issue.id)).assignee).toBeNull();
    });
  });

  describe('searching by assignee', () => {
    let projectId: number;
    let toAlice: IssueView;
    let toBob: IssueView;
    let toCore: IssueView;
    let toNobody: IssueView;

    async function search(client: Client, query: string): Promise<number[]> {
      const page = await expectStatus(
        client.get(`/api/projects/${projectId}/issues?limit=1000&query=${encodeURIComponent(query)}`),
        200,
      );
      expect(page.body.total).toBe(page.body.data.length);
      return (page.body.data as IssueView[]).map((issue) => issue.id).sort((a, b) => a - b);
    }

    const ids = (...issues: IssueView[]) => issues.map((issue) => issue.id).sort((a, b) => a - b);

    beforeAll(async () => {
      projectId = await createProject('Search', core.id);
      toAlice = await newIssue(projectId, 'Search');
      toBob = await newIssue(projectId, 'Search');
      toCore = await newIssue(projectId, 'Search');
      toNobody = await newIssue(projectId, 'Search');
      for (const [issue, assignee] of [
        [toAlice, `user:${alice.id}`],
        [toBob, bob.email],
        [toCore, `#${core.slug}`],
      ] as const) {
        await expectStatus(operator().patch(`/api/issues/${issue.id}`).send({ assignee }), 200);
      }
    }, 60_000);

    it('assigned:me is the issues of whoever searches, with a session or a personal token', async () => {
      expect(await search(bySession(alice), 'assigned:me')).toEqual(ids(toAlice));
      expect(await search(byToken(alice), 'assigned:me')).toEqual(ids(toAlice));
      expect(await search(bySession(bob), 'assigned:me')).toEqual(ids(toBob));
      expect(await search(bySession(viewer), 'assigned:me')).toEqual([]);
    });

    it('refuses assigned:me from an operator token, which is nobody', async () => {
      await operator()
        .get(`/api/projects/${projectId}/issues?query=${encodeURIComponent('assigned:me')}`)
        .expect(400, { error: 'query: "assigned:me": an operator token has no account to be me' });
    });

    it('finds the issues of a member by e-mail, of a team by slug, and of several at once', async () => {
      expect(await search(operator(), `assigned:${bob.email}`)).toEqual(ids(toBob));
      expect(await search(operator(), `assigned:${alice.email.toUpperCase()}`)).toEqual(ids(toAlice));
      expect(await search(operator(), `assigned:#${core.slug}`)).toEqual(ids(toCore));
      expect(await search(bySession(alice), `assigned:[me,#${core.slug}]`)).toEqual(ids(toAlice, toCore));
      expect(await search(operator(), `assigned:[${alice.email},${bob.email}]`)).toEqual(ids(toAlice, toBob));
    });

    it('finds assigned and unassigned issues, and a negated assignee keeps the unassigned ones', async () => {
      expect(await search(operator(), 'is:unassigned')).toEqual(ids(toNobody));
      expect(await search(operator(), 'is:assigned')).toEqual(ids(toAlice, toBob, toCore));
      expect(await search(bySession(alice), '!assigned:me')).toEqual(ids(toBob, toCore, toNobody));
      expect(await search(operator(), `!assigned:#${core.slug}`)).toEqual(ids(toAlice, toBob, toNobody));
    });

    it('answers 400 naming an e-mail or a team that does not exist', async () => {
      const nobody = `nobody-${unique()}@example.com`;
      await operator()
        .get(`/api/projects/${projectId}/issues?query=${encodeURIComponent(`assigned:${nobody}`)}`)
        .expect(400, { error: `query: no member has the e-mail "${nobody}"` });
      const slug = `no-team-${unique()}`;
      await operator()
        .get(`/api/projects/${projectId}/issues?query=${encodeURIComponent(`assigned:#${slug}`)}`)
        .expect(400, { error: `query: no team has the slug "${slug}"` });
    });
  });

  describe('activity', () => {
    async function activityPage(
      issueId: number,
      query = '',
    ): Promise<{ data: ActivityView[]; next_cursor: string | null }> {
      return (await expectStatus(operator().get(`/api/issues/${issueId}/activity${query}`), 200)).body;
    }

    it('starts with the first event, then says what was done and who did it', async () => {
      const issue = await newIssue(mainProjectId, 'Activity');
      expect(await activityPage(issue.id)).toEqual({
        data: [{ id: '0', kind: 'first_seen', data: {}, created_at: issue.first_seen, actor: null }],
        next_cursor: null,
      });

      await expectStatus(bySession(alice).patch(`/api/issues/${issue.id}`).send({ state: 'resolved' }), 200);
      // The same group again: a regression, which the tracker made, not a person.
      expect(await sendEvent(mainProjectId, issue.type)).toBe(issue.id);
      expect(await getIssue(issue.id)).toMatchObject({ state: 'open', regression_count: 1 });
      await expectStatus(operator().patch(`/api/issues/${issue.id}`).send({ state: 'muted' }), 200);
      await expectStatus(
        byToken(bob)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${bob.id}` }),
        200,
      );
      await expectStatus(bySession(alice).patch(`/api/issues/${issue.id}`).send({ state: 'open' }), 200);
      await expectStatus(bySession(alice).patch(`/api/issues/${issue.id}`).send({ assignee: null }), 200);
      const comment = await expectStatus(
        bySession(alice).post(`/api/issues/${issue.id}/comments`).send({ body: '  Looking\n into   it ' }),
        201,
      );
      const duplicate = await newIssue(mainProjectId, 'ActivityDuplicate');
      await expectStatus(
        bySession(admin)
          .post(`/api/issues/${issue.id}/merge`)
          .send({ ids: [duplicate.id] }),
        200,
      );

      const log = await activityPage(issue.id);
      const firstSeen = (await getIssue(issue.id)).first_seen;
      const entry = (kind: string, data: object, actor: ActivityView['actor']) => ({
        id: expect.stringMatching(/^[1-9]\d*$/),
        kind,
        data,
        created_at: expect.stringMatching(ISO),
        actor,
      });
      expect(log).toEqual({
        data: [
          { id: '0', kind: 'first_seen', data: {}, created_at: firstSeen, actor: null },
          entry('resolved', {}, actorOf(alice)),
          entry('regressed', { releases: [] }, null),
          entry('muted', {}, { id: null, email: null, name: `token ${operatorTokenId}` }),
          // A personal token acts as its owner.
          entry('assigned', { assignee: { type: 'user', id: bob.id, label: bob.email } }, actorOf(bob)),
          entry('unmuted', {}, actorOf(alice)),
          entry('unassigned', {}, actorOf(alice)),
          entry('commented', { comment_id: comment.body.id, excerpt: 'Looking into it' }, actorOf(alice)),
          entry('merged', { merged: [duplicate.id] }, actorOf(admin)),
        ],
        next_cursor: null,
      });
      const times = log.data.map((each) => Date.parse(each.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const ids = log.data.slice(1).map((each) => Number(each.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));

      // The merged issue answers with a pointer to the survivor, whose log tells of the merge.
      const pointer = await operator().get(`/api/issues/${duplicate.id}/activity`).expect(308);
      expect(pointer.headers.location).toBe(`/api/issues/${issue.id}/activity`);
    });

    it('pages oldest first, across the first_seen entry, without repeating or losing an entry', async () => {
      const issue = await newIssue(mainProjectId, 'Paging');
      for (const state of ['resolved', 'open', 'muted', 'open']) {
        await expectStatus(bySession(alice).patch(`/api/issues/${issue.id}`).send({ state }), 200);
      }
      const whole = (await activityPage(issue.id)).data;
      expect(whole.map((each) => each.kind)).toEqual([
        'first_seen',
        'resolved',
        'reopened',
        'muted',
        'unmuted',
      ]);

      const pages: ActivityView[][] = [];
      let cursor: string | null = null;
      do {
        const page: { data: ActivityView[]; next_cursor: string | null } = await activityPage(
          issue.id,
          `?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        pages.push(page.data);
        cursor = page.next_cursor;
      } while (cursor !== null && pages.length < 10);
      expect(pages.map((page) => page.map((each) => each.kind))).toEqual([
        ['first_seen', 'resolved'],
        ['reopened', 'muted'],
        ['unmuted'],
      ]);
      expect(pages.flat()).toEqual(whole);

      // A page of only the first_seen entry: the next one starts with the first stored entry.
      const first = await activityPage(issue.id, '?limit=1');
      expect(first.data).toEqual([whole[0]]);
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await activityPage(
        issue.id,
        `?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`,
      );
      expect(second.data).toEqual([whole[1]]);

      await operator()
        .get(`/api/issues/${issue.id}/activity?cursor=not-a-cursor`)
        .expect(400, { error: 'cursor is not valid' });
    });
  });

  describe('comments', () => {
    const comments = (issueId: number) => `/api/issues/${issueId}/comments`;

    it('adds a comment with its author and its Markdown rendered, and lists comments oldest first', async () => {
      const issue = await newIssue(mainProjectId, 'Comment');
      const created = await expectStatus(
        bySession(alice).post(comments(issue.id)).send({ body: 'this is **b**' }),
        201,
      );
      expect(created.body).toEqual({
        id: expect.any(Number),
        issue_id: issue.id,
        author: actorOf(alice),
        author_label: alice.email,
        body: 'this is **b**',
        html: '<p>this is <strong>b</strong></p>\n',
        created_at: expect.stringMatching(ISO),
        updated_at: created.body.created_at,
      });
      const byBobToken = await expectStatus(
        byToken(bob).post(comments(issue.id)).send({ body: 'second' }),
        201,
      );
      expect(byBobToken.body).toMatchObject({
        author: actorOf(bob),
        author_label: `${bob.email} (token ${bob.tokenId})`,
      });
      const byOperator = await expectStatus(operator().post(comments(issue.id)).send({ body: 'third' }), 201);
      expect(byOperator.body).toMatchObject({ author: null, author_label: `token ${operatorTokenId}` });

      const all = await expectStatus(bySession(viewer).get(comments(issue.id)), 200);
      expect(all.body).toEqual({ data: [created.body, byBobToken.body, byOperator.body], next_cursor: null });

      const first = await expectStatus(bySession(viewer).get(`${comments(issue.id)}?limit=2`), 200);
      expect(first.body.data).toEqual([created.body, byBobToken.body]);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const rest = await expectStatus(
        bySession(viewer).get(
          `${comments(issue.id)}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
        ),
        200,
      );
      expect(rest.body).toEqual({ data: [byOperator.body], next_cursor: null });
    });

    it('renders hostile input harmless: no script, no image, no event handler, no javascript: link', async () => {
      const issue = await newIssue(mainProjectId, 'Hostile');
      const hostile = [
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(1)>',
        '[x](javascript:alert(1))',
        '[y](JaVaScRiPt:alert(1))',
        '[z](&#106;avascript:alert(1))',
        '<a href="javascript:alert(1)" onclick="alert(1)">a</a>',
        '![pixel](https://tracker.example.com/pixel.png)',
        '<javascript:alert(1)>',
        '<svg onload=alert(1)>',
        '[fine](https://example.com/ok) **and bold**',
      ];
      for (const body of hostile) {
        const created = await expectStatus(bySession(alice).post(comments(issue.id)).send({ body }), 201);
        const { html } = created.body as CommentView;
        // The text is kept as written; only the rendering is defused.
        expect(created.body.body).toBe(body);
        expect({ body, html, unsafe: unsafeTags(html) }).toEqual({ body, html, unsafe: [] });
        expect(html).not.toMatch(/<\s*(script|img|svg|iframe)/i);
      }
      const shown = await expectStatus(bySession(viewer).get(comments(issue.id)), 200);
      const htmls = (shown.body.data as CommentView[]).map((comment) => comment.html);
      expect(htmls[0]).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
      expect(htmls[htmls.length - 1]).toBe(
        '<p><a href="https://example.com/ok" rel="noopener noreferrer nofollow" target="_blank">fine</a> <strong>and bold</strong></p>\n',
      );
    });

    it('refuses a blank or too long body, and a viewer, who may still read', async () => {
      const issue = await newIssue(mainProjectId, 'Refused');
      await bySession(alice)
        .post(comments(issue.id))
        .send({ body: ' \n\t ' })
        .expect(400, { error: 'body must not be blank' });
      // Empty fails both rules; the blank one is reported.
      await bySession(alice)
        .post(comments(issue.id))
        .send({ body: '' })
        .expect(400, { error: 'body must not be blank' });
      await bySession(alice)
        .post(comments(issue.id))
        .send({ body: 'x'.repeat(10_001) })
        .expect(400, { error: 'body must be 1 to 10000 characters' });
      await bySession(alice)
        .post(comments(issue.id))
        .send({})
        .expect(400, { error: 'body must be a string' });
      const longest = await expectStatus(
        bySession(alice)
          .post(comments(issue.id))
          .send({ body: 'y'.repeat(10_000) }),
        201,
      );
      expect(longest.body.body).toHaveLength(10_000);

      await bySession(viewer)
        .post(comments(issue.id))
        .send({ body: 'me too' })
        .expect(403, { error: 'a viewer cannot triage issues' });
      await bySession(dave)
        .post(comments(issue.id))
        .send({ body: 'me too' })
        .expect(404, { error: 'issue not found' });
      await bySession(dave).get(comments(issue.id)).expect(404, { error: 'issue not found' });
      const read = await expectStatus(bySession(viewer).get(comments(issue.id)), 200);
      expect((read.body.data as CommentView[]).map((comment) => comment.id)).toEqual([longest.body.id]);
    });

    it('lets its author edit and delete a comment, admins only delete it, and no other member', async () => {
      const issue = await newIssue(mainProjectId, 'Edit');
      const post = async (body: string) =>
        (await expectStatus(bySession(alice).post(comments(issue.id)).send({ body }), 201))
          .body as CommentView;
      const mine = await post('first _draft_');
      const forAdmin = await post('say something regrettable');
      const forAdminDelete = await post('say something worse');

      await sleep(5);
      const edited = await expectStatus(
        bySession(alice)
          .patch(`${comments(issue.id)}/${mine.id}`)
          .send({ body: 'final **version**' }),
        200,
      );
      expect(edited.body).toEqual({
        ...mine,
        body: 'final **version**',
        html: '<p>final <strong>version</strong></p>\n',
        updated_at: expect.stringMatching(ISO),
      });
      expect(Date.parse(edited.body.updated_at)).toBeGreaterThan(Date.parse(mine.updated_at));

      await bySession(bob)
        .patch(`${comments(issue.id)}/${mine.id}`)
        .send({ body: 'hijacked' })
        .expect(403, { error: 'only its author can edit a comment' });
      await bySession(bob)
        .delete(`${comments(issue.id)}/${mine.id}`)
        .expect(403, { error: 'only its author or an admin can delete a comment' });
      await bySession(viewer)
        .delete(`${comments(issue.id)}/${mine.id}`)
        .expect(403, { error: 'a viewer cannot triage issues' });

      // An admin may remove a comment, not put words in its author's mouth.
      await bySession(admin)
        .patch(`${comments(issue.id)}/${forAdmin.id}`)
        .send({ body: '(removed)' })
        .expect(403, { error: 'only its author can edit a comment' });
      await bySession(admin)
        .delete(`${comments(issue.id)}/${forAdminDelete.id}`)
        .expect(204);
      await bySession(alice)
        .delete(`${comments(issue.id)}/${mine.id}`)
        .expect(204);

      const left = await expectStatus(bySession(alice).get(comments(issue.id)), 200);
      expect(left.body).toEqual({ data: [forAdmin], next_cursor: null });

      for (const gone of [mine.id, forAdminDelete.id, 2_147_483_647]) {
        await bySession(alice)
          .patch(`${comments(issue.id)}/${gone}`)
          .send({ body: 'again' })
          .expect(404, { error: 'comment not found' });
        await bySession(alice)
          .delete(`${comments(issue.id)}/${gone}`)
          .expect(404, { error: 'comment not found' });
      }
      // A comment is reached through its own issue only.
      const elsewhere = await newIssue(mainProjectId, 'EditElsewhere');
      await bySession(admin)
        .patch(`${comments(elsewhere.id)}/${forAdmin.id}`)
        .send({ body: 'wrong issue' })
        .expect(404, { error: 'comment not found' });
    });

    it('moves the comments of a merged issue to the one it was merged into', async () => {
      const survivor = await newIssue(mainProjectId, 'Survivor');
      const merged = await newIssue(mainProjectId, 'Merged');
      const onSurvivor = await expectStatus(
        bySession(alice).post(comments(survivor.id)).send({ body: 'on the survivor' }),
        201,
      );
      const onMerged = await expectStatus(
        bySession(bob).post(comments(merged.id)).send({ body: 'on the duplicate' }),
        201,
      );
      await expectStatus(
        bySession(alice)
          .post(`/api/issues/${survivor.id}/merge`)
          .send({ ids: [merged.id] }),
        200,
      );

      const pointer = await bySession(alice).get(comments(merged.id)).expect(308);
      expect(pointer.headers.location).toBe(comments(survivor.id));
      expect(pointer.body).toEqual({
        error: `issue ${merged.id} was merged into issue ${survivor.id}`,
        merged_into_id: survivor.id,
      });
      const moved = await expectStatus(bySession(alice).get(comments(survivor.id)), 200);
      expect(moved.body).toEqual({
        data: [onSurvivor.body, { ...onMerged.body, issue_id: survivor.id }],
        next_cursor: null,
      });
    });
  });

  describe('assignment e-mails', () => {
    let projectId: number;

    beforeAll(async () => {
      projectId = await createProject('Mail', mailers.id);
      const quiet = await expectStatus(
        bySession(carol).patch('/auth/me').send({ email_notifications: false }),
        200,
      );
      expect(quiet.body.email_notifications).toBe(false);
    }, 60_000);

    it('e-mails the member assigned, once, with the short id and the link to the issue', async () => {
      const issue = await newIssue(projectId, 'Mail');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${bob.id}` }),
        200,
      );
      const [mail] = await mailsMatching(about(issue));
      expect(mail.to).toEqual([bob.email]);
      expect(mailHeader(mail.raw, 'Subject')).toBe(`${issue.short_id} was assigned to you: ${issue.type}`);
      const body = mailBody(mail.raw);
      expect(body).toContain(`${alice.email} assigned this issue to you.`);
      expect(body).toContain(`${PUBLIC_URL}/projects/${projectId}/issues/${issue.id}`);
      expect(body).toContain(`${issue.short_id} ${issue.type}: ${issue.message}`);

      // The same assignee again is no news.
      await expectStatus(
        bySession(alice).patch(`/api/issues/${issue.id}`).send({ assignee: bob.email }),
        200,
      );
      await afterLaterMail(projectId);
      expect(mails.filter(about(issue))).toHaveLength(1);
    });

    it('sends nothing to whoever assigns themselves, or to a member who turned e-mails off', async () => {
      const own = await newIssue(projectId, 'Own');
      const muted = await newIssue(projectId, 'Quiet');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${own.id}`)
          .send({ assignee: `user:${alice.id}` }),
        200,
      );
      const assigned = await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${muted.id}`)
          .send({ assignee: `user:${carol.id}` }),
        200,
      );
      expect(assigned.body.assignee).toEqual(userView(carol));
      await afterLaterMail(projectId);
      expect(mails.filter(about(own))).toEqual([]);
      expect(mails.filter(about(muted))).toEqual([]);
      // Her invitation was e-mailed too, at the start: only assignments count here.
      const assignments = mails.filter((mail) =>
        / was assigned to /.test(mailHeader(mail.raw, 'Subject') ?? ''),
      );
      expect(assignments.filter((mail) => mail.to.includes(carol.email))).toEqual([]);
    });

    it('e-mails each member of a team assigned, except the one who assigned it', async () => {
      const issue = await newIssue(projectId, 'Team');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `#${mailers.slug}` }),
        200,
      );
      const sent = await mailsMatching(about(issue), 2);
      expect(sent.map((mail) => mail.to).sort()).toEqual([[bob.email], [frank.email]].sort());
      for (const mail of sent) {
        expect(mailHeader(mail.raw, 'Subject')).toBe(
          `${issue.short_id} was assigned to your team #${mailers.slug}: ${issue.type}`,
        );
        const body = mailBody(mail.raw);
        expect(body).toContain(`${alice.email} assigned this issue to your team #${mailers.slug}.`);
        expect(body).toContain(`${PUBLIC_URL}/projects/${projectId}/issues/${issue.id}`);
      }
      // Neither alice (who assigned it) nor carol (e-mails off) hears of it, nor anyone twice.
      await afterLaterMail(projectId);
      expect(
        mails
          .filter(about(issue))
          .map((mail) => mail.to)
          .sort(),
      ).toEqual([[bob.email], [frank.email]].sort());
    });
  });

  describe('what the log keeps of edited and deleted comments', () => {
    it('quotes the edited text, and nothing of a deleted comment', async () => {
      const issue = await newIssue(mainProjectId, 'Redact');
      const posted = await expectStatus(
        bySession(alice).post(`/api/issues/${issue.id}/comments`).send({ body: 'the key is hunter2' }),
        201,
      );
      const commented = async () =>
        (await expectStatus(operator().get(`/api/issues/${issue.id}/activity`), 200)).body.data.filter(
          (entry: ActivityView) => entry.kind === 'commented',
        );
      expect((await commented())[0].data).toEqual({
        comment_id: posted.body.id,
        excerpt: 'the key is hunter2',
      });

      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}/comments/${posted.body.id}`)
          .send({ body: 'the key is ********' }),
        200,
      );
      expect((await commented())[0].data).toEqual({
        comment_id: posted.body.id,
        excerpt: 'the key is ********',
        edited: true,
      });

      await bySession(alice).delete(`/api/issues/${issue.id}/comments/${posted.body.id}`).expect(204);
      const [entry] = await commented();
      expect(entry.data).toEqual({ comment_id: posted.body.id, deleted: true });
      expect(entry.actor).toEqual(actorOf(alice));
    });
  });

  describe('alert rules that e-mail the assignee', () => {
    it('e-mails the assignee of a regressed issue, and records it in the alert history', async () => {
      const projectId = await createProject('Rules', core.id);
      const rule = await expectStatus(
        bySession(alice).post(`/api/projects/${projectId}/alert-rules`).send({
          name: 'Regressions to the assignee',
          alert_type: 'regression',
          channel_ids: [],
          notify_assignee: true,
        }),
        201,
      );
      expect(rule.body).toMatchObject({ notify_assignee: true, channel_ids: [] });

      const unassigned = await newIssue(projectId, 'Nobody');
      const issue = await newIssue(projectId, 'Rule');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${bob.id}`, state: 'resolved' }),
        200,
      );
      await expectStatus(
        bySession(alice).patch(`/api/issues/${unassigned.id}`).send({ state: 'resolved' }),
        200,
      );
      const assignedMail = await mailsMatching(about(issue));
      expect(assignedMail.map((mail) => mail.to)).toEqual([[bob.email]]);

      // The same group again: a regression of each issue.
      await sendEvent(projectId, issue.type);
      await sendEvent(projectId, unassigned.type);
      const alert = await mailsMatching(
        // An alert's subject: `[<project>] <short id>: <type>: <message>`.
        (mail) => (mailHeader(mail.raw, 'Subject') ?? '').includes(`] ${issue.short_id}: `),
        1,
        20_000,
      );
      expect(alert.map((mail) => mail.to)).toEqual([[bob.email]]);
      expect(mailBody(alert[0].raw)).toContain(`${PUBLIC_URL}/projects/${projectId}/issues/${issue.id}`);

      const history = await expectStatus(operator().get(`/api/projects/${projectId}/alert-history`), 200);
      const rows = (history.body as { issue_id: number; channel_type: string; status: string }[]).filter(
        (row) => row.channel_type === 'assignee',
      );
      // Only the assigned issue has someone to tell.
      expect(rows.map((row) => [row.issue_id, row.status])).toEqual([[issue.id, 'sent']]);
    }, 60_000);
  });

  describe('alert rules that e-mail the assignee, after access is lost', () => {
    it('e-mails nobody who no longer sees the project', async () => {
      const projectId = await createProject('Lost', core.id);
      await expectStatus(
        bySession(alice).post(`/api/projects/${projectId}/alert-rules`).send({
          name: 'To the assignee',
          alert_type: 'regression',
          channel_ids: [],
          notify_assignee: true,
        }),
        201,
      );
      const leaver = await person('member', 'Lee Leaver', [core.id]);
      const issue = await newIssue(projectId, 'Lost');
      await expectStatus(
        bySession(alice)
          .patch(`/api/issues/${issue.id}`)
          .send({ assignee: `user:${leaver.id}`, state: 'resolved' }),
        200,
      );
      await mailsMatching(about(issue));
      await expectStatus(bySession(admin).delete(`/api/teams/${core.id}/members/${leaver.id}`), 204);
      await bySession(leaver).get(`/api/issues/${issue.id}`).expect(404);

      await sendEvent(projectId, issue.type);
      const skipped = await (async () => {
        for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
          const history = await expectStatus(operator().get(`/api/projects/${projectId}/alert-history`), 200);
          const row = (history.body as { channel_type: string; status: string; error: string | null }[]).find(
            (entry) => entry.channel_type === 'assignee' && entry.status !== 'pending',
          );
          if (row) return row;
        }
        throw new Error('no assignee delivery was recorded');
      })();
      expect(skipped).toMatchObject({
        status: 'skipped',
        error: 'the issue has no assignee who takes e-mails',
      });
      // An alert's subject: `[<project>] <short id>: …` (the assignment e-mail before it starts with the id).
      const alerts = mails.filter((mail) =>
        (mailHeader(mail.raw, 'Subject') ?? '').includes(`] ${issue.short_id}: `),
      );
      expect(alerts).toEqual([]);
    }, 60_000);
  });

  describe('audit log retention', () => {
    it('deletes audit entries older than the retention and keeps recent ones', async () => {
      const tag = unique();
      const insert = async (createdAt: Date): Promise<string> => {
        const [row] = await db.query(
          `INSERT INTO audit_log (created_at, actor, action, details) VALUES ($1, $2, 'team.create', $3) RETURNING id`,
          [createdAt, `retention ${tag}`, JSON.stringify({ tag })],
        );
        return String(row.id);
      };
      await insert(new Date(Date.now() - 400 * DAY_MS));
      const recent = await insert(new Date());

      const report = await t.app.get(RetentionService).run();
      expect(report.auditEntriesDeleted).toBeGreaterThanOrEqual(1);
      const left: { id: string }[] = await db.query(
        'SELECT id::text AS id FROM audit_log WHERE actor = $1 ORDER BY id',
        [`retention ${tag}`],
      );
      expect(left.map((row) => row.id)).toEqual([recent]);
    });
  });
});
