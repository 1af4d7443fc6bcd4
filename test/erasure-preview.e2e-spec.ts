/**
 * The preview of erasing a person's data (`GET /api/projects/{id}/users/{identifier}/erasure-preview`):
 * it counts, kind by kind, what the erasure would remove, removes nothing, and its counts are the
 * ones the erasure then reports. An issue the erasure deletes is counted as deleted, not also as
 * updated, in the answer and in the audit log.
 */
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { QueueName } from '../src/common/queues';
import { DigestJobName, digestJobId, QueuedEvent } from '../src/digest/digest-job';
import { SessionFolder } from '../src/releases/health/session-folder';
import { startTestApp, TestApp } from './helpers/app';
import { attachment, createProject, envelope, hex, Item, Project, sendEnvelope } from './helpers/attachments';
import { as, expectStatus, invitedAccount } from './helpers/members';
import { eventually, openQueue, storedEvent } from './helpers/queues';
import { settleRollups } from './helpers/rollups';
import { sessionEnvelope, sessionPayload } from './helpers/sessions';

const RUN = randomUUID().slice(0, 8);
const ANN = { id: `ann-${RUN}`, email: `ann.${RUN}@example.com` };
const BOB = { id: `bob-${RUN}` };

describe('erasure preview', () => {
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

  const count = async (sql: string, parameters: unknown[]) =>
    ((await db.query(sql, parameters)) as Array<{ n: number }>)[0].n;

  async function sendEvent(project: Project, event: Record<string, unknown>, file?: string): Promise<string> {
    const eventId = randomUUID();
    const items: Item[] = [{ header: { type: 'event' }, payload: JSON.stringify({ event_id: hex(eventId), ...event }) }];
    if (file) items.push(attachment('note.txt', file));
    await sendEnvelope(t, project, envelope({ event_id: hex(eventId) }, items)).expect(200);
    return eventId;
  }

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

  it('counts what erasing would remove, removes nothing, and the erasure then reports the same counts', async () => {
    const project = await createProject(t, 'preview');
    const shared = { message: 'shared failure', fingerprint: ['shared'], release: 'shop@1.0' };
    const annOnly = { message: 'ann only failure', fingerprint: ['ann-only'] };
    const annEvents = [
      await sendEvent(project, { ...shared, user: { id: ANN.id } }, 'what ann saw'),
      await sendEvent(project, { ...annOnly, user: { email: ANN.email.toUpperCase() } }),
      await sendEvent(project, { ...annOnly, user: { id: ANN.id } }),
    ];
    const bobEvent = await sendEvent(project, { ...shared, user: BOB });
    for (const id of [...annEvents, bobEvent]) await storedEvent(t, id, 30_000);
    await sendEnvelope(
      t,
      project,
      envelope({}, [
        {
          header: { type: 'user_report' },
          payload: JSON.stringify({ event_id: hex(annEvents[0]), name: 'Ann', email: ANN.email, comments: 'broken' }),
        },
      ]),
    ).expect(200);
    // A session of the person, folded into PostgreSQL: its state stays in Redis.
    const sid = randomUUID();
    await sendEnvelope(
      t,
      project,
      sessionEnvelope([
        {
          type: 'session',
          payload: sessionPayload({
            sid,
            did: ANN.id,
            init: true,
            started: Date.now() - 1_000,
            timestamp: Date.now(),
            status: 'exited',
            attrs: { release: 'shop@1.0', environment: 'production' },
          }),
        },
      ]),
    ).expect(200);
    await t.app.get(SessionFolder).fold();
    const annFailed = await failedJob(project, ANN);
    await eventually(
      async () => (await count('SELECT count(*)::int AS n FROM feedback WHERE project_id = $1', [project.id])) === 1,
      30_000,
    );
    await eventually(async () => {
      const jobs = await digest.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
      return Object.values(jobs).every((jobsOfState) => jobsOfState === 0);
    }, 60_000);
    await settleRollups(t.app);
    const annIssue = (await storedEvent(t, annEvents[1])).issue_id;
    const sharedIssue = (await storedEvent(t, annEvents[0])).issue_id;

    const stored = async () => ({
      events: await count('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [project.id]),
      feedback: await count('SELECT count(*)::int AS n FROM feedback WHERE project_id = $1', [project.id]),
      attachments: await count('SELECT count(*)::int AS n FROM attachments WHERE project_id = $1', [project.id]),
      healthUsers: await count('SELECT count(*)::int AS n FROM release_health_users WHERE project_id = $1', [
        project.id,
      ]),
      hourly: await count('SELECT coalesce(sum(count), 0)::int AS n FROM project_hourly WHERE project_id = $1', [
        project.id,
      ]),
    });
    const before = await stored();
    expect(before).toMatchObject({ events: 4, feedback: 1, attachments: 1, hourly: 4 });
    expect(before.healthUsers).toBeGreaterThan(0);

    const preview = await t
      .api()
      .get(`/api/projects/${project.id}/users/${encodeURIComponent(ANN.email)}/erasure-preview`)
      .expect(200);
    // By e-mail: one event of the issue that keeps the other (the id's), the feedback from the
    // address, and the failed job whose payload holds the address.
    expect(preview.body).toEqual({
      identifier: ANN.email,
      issues_updated: 1,
      issues_deleted: 0,
      erased: {
        events: 1,
        event_attachments: 0,
        feedback: 1,
        feedback_attachments: 0,
        release_health_users: 0,
        session_user_entries: 0,
        session_states: 0,
        failed_jobs: 1,
      },
    });
    const byId = await t
      .api()
      .get(`/api/projects/${project.id}/users/${encodeURIComponent(`id:${ANN.id}`)}/erasure-preview`)
      .expect(200);
    expect(byId.body).toEqual({
      identifier: `id:${ANN.id}`,
      // The shared issue keeps Bob's event; the other keeps the event found by e-mail only.
      issues_updated: 2,
      issues_deleted: 0,
      erased: {
        events: 2,
        event_attachments: 1,
        feedback: 1,
        feedback_attachments: 0,
        release_health_users: before.healthUsers,
        session_user_entries: 0,
        session_states: 1,
        failed_jobs: 1,
      },
    });

    // Nothing was removed or changed: rows, counts, the failed job, the issue.
    expect(await stored()).toEqual(before);
    expect(await (await digest.getJob(annFailed))?.isFailed()).toBe(true);
    expect((await t.api().get(`/api/issues/${annIssue}`).expect(200)).body).toMatchObject({ event_count: 2 });
    expect((await t.api().get(`/api/issues/${sharedIssue}`).expect(200)).body).toMatchObject({ event_count: 2 });
    for (const id of annEvents) await t.api().get(`/api/events/${id}`).expect(200);

    const erased = await t
      .api()
      .delete(`/api/projects/${project.id}/users/${encodeURIComponent(`id:${ANN.id}`)}`)
      .expect(200);
    expect(erased.body).toMatchObject({
      identifier: byId.body.identifier,
      issues_updated: byId.body.issues_updated,
      issues_deleted: byId.body.issues_deleted,
      erased: byId.body.erased,
    });
    // Now the e-mail's last event is the issue's only one: it is deleted, and only counted so.
    const last = await t
      .api()
      .get(`/api/projects/${project.id}/users/${encodeURIComponent(`email:${ANN.email}`)}/erasure-preview`)
      .expect(200);
    expect(last.body).toMatchObject({ issues_updated: 0, issues_deleted: 1, erased: { events: 1 } });
    const lastErased = await t
      .api()
      .delete(`/api/projects/${project.id}/users/${encodeURIComponent(`email:${ANN.email}`)}`)
      .expect(200);
    expect(lastErased.body).toMatchObject({
      issues_updated: 0,
      issues_deleted: 1,
      erased: last.body.erased,
    });
    await t.api().get(`/api/issues/${annIssue}`).expect(404);
    const audit = await db.query(
      `SELECT details FROM audit_log WHERE action = 'project.user_erase' AND target_id = $1 ORDER BY id`,
      [String(project.id)],
    );
    expect(audit.map((entry: { details: Record<string, unknown> }) => entry.details)).toEqual([
      expect.objectContaining({ field: 'id', issues_updated: 2, issues_deleted: 0 }),
      expect.objectContaining({ field: 'email', issues_updated: 0, issues_deleted: 1 }),
    ]);
  }, 180_000);

  it('answers bad identifiers and unknown projects with an error, and needs the right to change the project', async () => {
    const project = await createProject(t, 'preview-bad');
    for (const identifier of ['%20', 'email%3A', `x${'y'.repeat(1_000)}`]) {
      const response = await t.api().get(`/api/projects/${project.id}/users/${identifier}/erasure-preview`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/identifier/);
    }
    const missing = await t.api().get('/api/projects/999999999/users/ann/erasure-preview').expect(404);
    expect(missing.body).toEqual({ error: 'project not found' });
    // A viewer of the project's team sees the project, but may not change it.
    const team = await t.api().post('/api/teams').send({ name: `preview-${RUN}` }).expect(201);
    await t.api().put(`/api/teams/${team.body.id}/projects/${project.id}`).expect(204);
    const viewer = await invitedAccount(t, as(t, { token: t.token }), 'viewer', { teamIds: [team.body.id] });
    await expectStatus(as(t, { token: viewer.token }).get(`/api/projects/${project.id}`), 200);
    const refused = await expectStatus(
      as(t, { token: viewer.token }).get(`/api/projects/${project.id}/users/ann/erasure-preview`),
      403,
    );
    expect(refused.body.error).toMatch(/change projects' settings/);
  }, 60_000);
});
