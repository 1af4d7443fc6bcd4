/**
 * Erasing a person's data (docs/data-protection.md, "Erasing a person's data"): events spread over
 * many days' partitions, with an attachment and feedback, erased through the API and the CLI; the
 * counts of issues, users and rollups checked before and after, other people's data untouched.
 */
import { Queue } from 'bullmq';
import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { DigestJobName, digestJobId, QueuedEvent } from '../src/digest/digest-job';
import { startTestApp, TestApp } from './helpers/app';
import { attachment, createProject, envelope, hex, Project, sendEnvelope } from './helpers/attachments';
import { as, expectStatus, invitedAccount } from './helpers/members';
import { eventually, openQueue, storedEvent } from './helpers/queues';
import { asUuid, dumpDatabase, dumpRedis, foundIn, whereFound } from './helpers/person-traces';
import { settleRollups } from './helpers/rollups';
import { sessionEnvelope, sessionPayload } from './helpers/sessions';
import { SessionFolder } from '../src/releases/health/session-folder';
import { sessionKeys } from '../src/releases/health/session-keys';
import { Redis } from 'ioredis';
import { testDatabaseUrl, TEST_REDIS_URL } from './helpers/test-env';

const DAY = 86_400_000;
// Identifiers of this run alone: the scans below read the whole database, which the other test
// files of the run share, and theirs may well name an Ann at example.com too.
const RUN = randomUUID().slice(0, 8);
const RUN_OCTETS = [1, 2, 3].map(() => Math.floor(Math.random() * 250) + 2).join('.');
const ANN = {
  id: `ann-${RUN}`,
  email: `Ann.${RUN}@Example.com`,
  ip_address: `10.${RUN_OCTETS}`,
  username: `ann.lovelace.${RUN}`,
};
const BOB = { id: `bob-${RUN}`, email: `bob.${RUN}@example.com` };

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'cli', '--', ...args],
      {
        cwd: join(__dirname, '..'),
        env: {
          ...process.env,
          DATABASE_URL: testDatabaseUrl(),
          REDIS_URL: TEST_REDIS_URL,
          CREATE_SUPERUSER: '',
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe("erasing a person's data", () => {
  let t: TestApp;
  let db: DataSource;
  let digest: Queue;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    digest = openQueue(t, QueueName.Digest);
  });
  afterAll(async () => {
    await digest.close();
    await t.close();
  });

  /** Enqueues an event as ingest would, arrived (and happened) `daysAgo` days ago. */
  async function sendOld(
    projectId: number,
    daysAgo: number,
    event: Record<string, unknown>,
  ): Promise<string> {
    const eventId = randomUUID();
    const at = Date.now() - daysAgo * DAY;
    const data: QueuedEvent = {
      projectId,
      eventId,
      receivedAt: at,
      payload: JSON.stringify({ event_id: hex(eventId), timestamp: at / 1000, level: 'error', ...event }),
    };
    await digest.add(DigestJobName.Event, data, {
      jobId: digestJobId(projectId, eventId),
      removeOnComplete: true,
    });
    return eventId;
  }

  const one = async <T>(sql: string, parameters: unknown[]): Promise<T> =>
    (await db.query(sql, parameters))[0] as T;

  async function counts(project: Project, issueIds: number[]) {
    return {
      events: (
        await one<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.id])
      ).n,
      projectHourly: (
        await one<{ n: number }>(
          'SELECT coalesce(sum(count), 0)::int AS n FROM project_hourly WHERE project_id = $1',
          [project.id],
        )
      ).n,
      issueHourly: (
        await one<{ n: number }>(
          'SELECT coalesce(sum(count), 0)::int AS n FROM issue_hourly WHERE issue_id = ANY($1)',
          [issueIds],
        )
      ).n,
      users: await db.query(
        `SELECT issue_id, value, count FROM issue_tag_values WHERE issue_id = ANY($1) AND key = 'user' ORDER BY 1, 2`,
        [issueIds],
      ),
      userKeys: await db.query(
        `SELECT issue_id, total, distinct_values FROM issue_tag_keys WHERE issue_id = ANY($1) AND key = 'user' ORDER BY 1`,
        [issueIds],
      ),
      feedback: (
        await one<{ n: number }>('SELECT count(*)::int AS n FROM feedback WHERE project_id = $1', [
          project.id,
        ])
      ).n,
      attachments: (
        await one<{ n: number }>('SELECT count(*)::int AS n FROM attachments WHERE project_id = $1', [
          project.id,
        ])
      ).n,
      releases: await db.query(
        'SELECT version, event_count::int AS event_count FROM releases WHERE project_id = $1 ORDER BY version',
        [project.id],
      ),
    };
  }

  /** One ended session of `did`, sent through ingest as an SDK sends it. */
  async function sendSession(project: Project, did: string): Promise<string> {
    const sid = randomUUID();
    const now = Date.now();
    const body = sessionEnvelope([
      {
        type: 'session',
        payload: sessionPayload({
          sid,
          did,
          init: true,
          started: now - 1_000,
          timestamp: now,
          status: 'exited',
          attrs: { release: 'shop@1.0', environment: 'production' },
        }),
      },
    ]);
    await sendEnvelope(t, project, body).expect(200);
    // The state key names the session as ingest normalises its id.
    return sid.replace(/-/g, '');
  }

  /** A digest job whose payload can never be stored (cut short), left in the failed set. */
  async function failedJob(project: Project, user: Record<string, string>): Promise<string> {
    const eventId = randomUUID();
    const data: QueuedEvent = {
      projectId: project.id,
      eventId,
      receivedAt: Date.now(),
      payload: `{"event_id":"${hex(eventId)}","user":${JSON.stringify(user)},"message":"cut sho`,
    };
    const jobId = digestJobId(project.id, eventId);
    await digest.add(DigestJobName.Event, data, { jobId, removeOnComplete: true, attempts: 1 });
    await eventually(async () => (await (await digest.getJob(jobId))?.isFailed()) === true, 30_000);
    return jobId;
  }

  /** The keyed hash release health stores a distinct id under, computed here independently. */
  async function userHash(projectId: number, did: string): Promise<string> {
    const [{ key }] = await db.query('SELECT key FROM release_health_key WHERE id = 1');
    return createHmac('sha256', key as Buffer)
      .update(`${projectId}\n${did}`)
      .digest('hex')
      .slice(0, 32);
  }

  it('erases every event, attachment and feedback of one person and corrects the counts exactly', async () => {
    const project = await createProject(t, 'erase');
    const shared = { message: 'shared failure', fingerprint: ['shared'], release: 'shop@1.0' };
    const annOnly = { message: 'ann only failure', fingerprint: ['ann-only'], release: 'shop@2.0' };
    const annOld = [
      await sendOld(project.id, 20, { ...shared, user: ANN }),
      await sendOld(project.id, 5, { ...shared, user: { ip_address: ANN.ip_address } }),
      await sendOld(project.id, 40, { ...annOnly, user: { username: ANN.username } }),
      await sendOld(project.id, 10, { ...annOnly, user: { email: ANN.email.toLowerCase() } }),
    ];
    const bobs = [
      await sendOld(project.id, 20, { ...shared, user: BOB }),
      await sendOld(project.id, 1, { ...shared, user: BOB }),
    ];
    // Today, through ingest: an event with a file attached, and the person's feedback about it.
    const annNow = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(annNow) }, [
        {
          header: { type: 'event' },
          payload: JSON.stringify({ event_id: hex(annNow), ...shared, user: ANN }),
        },
        attachment('screen.txt', 'what ann saw'),
      ]),
    ).expect(200);
    const shared1 = await storedEvent(t, annNow, 30_000);
    await sendEnvelope(
      t,
      project,
      envelope({}, [
        {
          header: { type: 'user_report' },
          payload: JSON.stringify({
            event_id: hex(annNow),
            name: 'Ann',
            email: ANN.email,
            comments: 'it broke',
          }),
        },
      ]),
    ).expect(200);
    for (const id of [...annOld, ...bobs]) await storedEvent(t, id, 30_000);
    // The person's feedback from the widget, with its screenshot (stored under the feedback's id).
    const widgetFeedback = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(widgetFeedback) }, [
        {
          header: { type: 'feedback' },
          payload: JSON.stringify({
            event_id: hex(widgetFeedback),
            type: 'feedback',
            level: 'info',
            contexts: { feedback: { message: 'the page is blank', contact_email: ANN.email, name: 'Ann' } },
          }),
        },
        attachment('screenshot.png', 'pixels of ann'),
      ]),
    ).expect(200);
    // Release health: a session of each person folded into PostgreSQL, then one more of each in Redis.
    const sessions = { ann: [await sendSession(project, ANN.id)], bob: [await sendSession(project, BOB.id)] };
    await t.app.get(SessionFolder).fold();
    sessions.ann.push(await sendSession(project, ANN.id));
    sessions.bob.push(await sendSession(project, BOB.id));
    // Payloads the digest could not store, left in its failed set.
    const annFailed = await failedJob(project, ANN);
    const bobFailed = await failedJob(project, BOB);
    await eventually(async () => (await counts(project, [])).feedback === 2, 30_000);
    // An erasure covers what is stored: a digest job still running (or run again after a stall on a
    // busy machine) would store its event or feedback anew after it. Nothing may be in flight.
    await eventually(async () => {
      const jobs = await digest.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
      return Object.values(jobs).every((count) => count === 0);
    }, 60_000);
    await settleRollups(t.app);
    const sharedIssue = shared1.issue_id;
    const annIssue = (await storedEvent(t, annOld[2])).issue_id;
    const partitions = await db.query(
      'SELECT DISTINCT tableoid::regclass::text AS part FROM events WHERE project_id = $1',
      [project.id],
    );
    expect(partitions.length).toBeGreaterThanOrEqual(6);
    const blob = await one<{ blob_key: string }>('SELECT blob_key FROM attachments WHERE project_id = $1', [
      project.id,
    ]);

    const before = await counts(project, [sharedIssue, annIssue]);
    expect(before).toMatchObject({
      events: 7,
      projectHourly: 7,
      issueHourly: 7,
      feedback: 2,
      attachments: 2,
      releases: [
        { version: 'shop@1.0', event_count: 5 },
        { version: 'shop@2.0', event_count: 2 },
      ],
    });
    expect((await t.api().get(`/api/issues/${sharedIssue}`).expect(200)).body).toMatchObject({
      event_count: 5,
      user_count: 3,
    });
    expect((await t.api().get(`/api/issues/${annIssue}`).expect(200)).body).toMatchObject({
      event_count: 2,
      user_count: 2,
    });

    // `id:` names one field; a bare value matches the id, e-mail (any case), username or IP address.
    const byId = await t
      .api()
      .delete(`/api/projects/${project.id}/users/${encodeURIComponent(`id:${ANN.id}`)}`)
      .expect(200);
    expect(byId.body).toEqual({
      identifier: `id:${ANN.id}`,
      events_deleted: 2,
      issues_updated: 1,
      issues_deleted: 0,
      feedback_deleted: 1,
      attachments_deleted: 1,
      rollup_rows_changed: expect.any(Number),
      erased: {
        events: 2,
        event_attachments: 1,
        feedback: 1,
        feedback_attachments: 0,
        release_health_users: expect.any(Number),
        session_user_entries: expect.any(Number),
        session_states: 2,
        failed_jobs: 1,
      },
    });
    // The session fold may run meanwhile: the person's hash is in PostgreSQL, in Redis, or both.
    expect(byId.body.erased.release_health_users + byId.body.erased.session_user_entries).toBeGreaterThan(0);
    const rest = [];
    for (const value of [ANN.ip_address, ANN.username, ANN.email.toUpperCase()]) {
      const response = await t
        .api()
        .delete(`/api/projects/${project.id}/users/${encodeURIComponent(value)}`)
        .expect(200);
      rest.push(response.body.erased);
    }
    // The e-mail address finds the widget's feedback and its screenshot.
    expect(rest[2]).toMatchObject({ events: 1, feedback: 1, feedback_attachments: 1, failed_jobs: 0 });

    // Nothing of the person is left anywhere: the whole database, every Redis key of the app.
    const annHash = await userHash(project.id, ANN.id);
    const bobHash = await userHash(project.id, BOB.id);
    const annTraces = [ANN.id, ANN.email, ANN.username, ANN.ip_address, annHash, asUuid(annHash)];
    const dump = await dumpDatabase();
    expect(whereFound(dump, annTraces)).toEqual([]);
    expect(foundIn(dump, [BOB.id, BOB.email, asUuid(bobHash)])).toEqual([BOB.id, BOB.email, asUuid(bobHash)]);
    const redisDump = await dumpRedis(t.config.REDIS_PREFIX);
    expect(whereFound(redisDump, annTraces)).toEqual([]);
    expect(foundIn(redisDump, [BOB.id, BOB.email])).toEqual([BOB.id, BOB.email]);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const state = (sid: string) => `${sessionKeys(t.config.REDIS_PREFIX).base}:s:${project.id}:${sid}`;
      expect(await Promise.all(sessions.ann.map((sid) => redis.exists(state(sid))))).toEqual([0, 0]);
      expect(await Promise.all(sessions.bob.map((sid) => redis.exists(state(sid))))).toEqual([1, 1]);
    } finally {
      redis.disconnect();
    }
    expect(await digest.getJob(annFailed)).toBeUndefined();
    expect(await (await digest.getJob(bobFailed))?.isFailed()).toBe(true);

    const after = await counts(project, [sharedIssue, annIssue]);
    expect(after).toMatchObject({ events: 2, projectHourly: 2, issueHourly: 2, feedback: 0, attachments: 0 });
    expect(after.releases).toEqual([
      { version: 'shop@1.0', event_count: 2 },
      { version: 'shop@2.0', event_count: 0 },
    ]);
    expect(after.users).toEqual([{ issue_id: sharedIssue, value: `id:${BOB.id}`, count: 2 }]);
    expect(after.userKeys).toEqual([{ issue_id: sharedIssue, total: 2, distinct_values: 1 }]);
    const issue = (await t.api().get(`/api/issues/${sharedIssue}`).expect(200)).body;
    expect(issue).toMatchObject({ event_count: 2, user_count: 1 });
    expect(new Date(issue.first_seen).getTime()).toBeLessThan(Date.now() - 19 * DAY);
    expect(new Date(issue.last_seen).getTime()).toBeLessThan(Date.now() - 0.5 * DAY);
    await t.api().get(`/api/issues/${annIssue}`).expect(404);
    for (const id of [annNow, ...annOld]) await t.api().get(`/api/events/${id}`).expect(404);
    for (const id of bobs) await t.api().get(`/api/events/${id}`).expect(200);
    expect(await db.query('SELECT 1 FROM pending_blobs WHERE key = $1', [blob.blob_key])).toEqual([]);
    expect(await db.query('SELECT 1 FROM blob_chunks WHERE key = $1', [blob.blob_key])).toEqual([]);

    const audit = await db.query(
      `SELECT actor, details FROM audit_log WHERE action = 'project.user_erase' AND target_id = $1 ORDER BY id`,
      [String(project.id)],
    );
    expect(audit).toHaveLength(4);
    expect(audit[0].details).toMatchObject({ field: 'id', events_deleted: 2, feedback_deleted: 1 });
    expect(JSON.stringify(audit)).not.toContain(ANN.id);

    // Erasing again finds nothing.
    const again = await t.api().delete(`/api/projects/${project.id}/users/${ANN.username}`).expect(200);
    expect(again.body).toMatchObject({ events_deleted: 0, issues_deleted: 0 });

    // The command line erases the other person: the shared issue is left without events and goes.
    const cli = await runCli(['users:erase', '--project', String(project.id), '--identifier', BOB.email]);
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout.trim().split('\n').pop() as string)).toMatchObject({
      identifier: BOB.email,
      events_deleted: 2,
      issues_deleted: 1,
    });
    expect(await counts(project, [sharedIssue])).toMatchObject({
      events: 0,
      projectHourly: 0,
      issueHourly: 0,
      releases: [
        { version: 'shop@1.0', event_count: 0 },
        { version: 'shop@2.0', event_count: 0 },
      ],
    });
    await t.api().get(`/api/issues/${sharedIssue}`).expect(404);
    const cliAudit = await one<{ actor: string }>(
      `SELECT actor FROM audit_log WHERE action = 'project.user_erase' AND target_id = $1 ORDER BY id DESC LIMIT 1`,
      [String(project.id)],
    );
    expect(cliAudit.actor).toBe('command line');
  }, 180_000);

  it('refuses an empty identifier with a reason, and a role below write', async () => {
    const project = await createProject(t, 'erase-bad');
    for (const path of ['users', 'users/%20', 'users/email%3A']) {
      const response = await t.api().delete(`/api/projects/${project.id}/${path}`).expect(400);
      expect(response.body.error).toMatch(/identifier/);
    }
    await t.api().delete(`/api/projects/999999999/users/ann`).expect(404);
    const viewer = await invitedAccount(t, as(t, { token: t.token }), 'viewer');
    // A viewer of no team does not see the project; a read-only token may not change anything.
    await expectStatus(as(t, { token: viewer.token }).delete(`/api/projects/${project.id}/users/ann`), 404);
    const readOnly = await expectStatus(
      t.api().post('/api/tokens').send({ description: 'read only', read_only: true }),
      201,
    );
    const refused = await expectStatus(
      as(t, { token: readOnly.body.token }).delete(`/api/projects/${project.id}/users/ann`),
      403,
    );
    expect(refused.body.error).toMatch(/read-only/);
    await expectStatus(as(t, { token: t.token }).delete(`/api/projects/${project.id}/users/ann`), 200);

    const cli = await runCli(['users:erase', '--project', String(project.id), '--identifier', ' ']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/identifier is empty/);
  }, 120_000);
});
