import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AlertTriggerProducer } from '../src/issues/transitions/alert-trigger.producer';
import { QueueName } from '../src/common/queues';
import { digestJobId, DigestJobName } from '../src/digest/digest-job';
import { fixtureEvent } from './fixtures/fixtures';
import { startTestApp, TestApp } from './helpers/app';
import { enqueueEvent, eventually, openQueue } from './helpers/queues';

function exception(type: string, fn: string, lineno = 10): Record<string, unknown> {
  return {
    platform: 'node',
    exception: {
      values: [
        {
          type,
          value: `${type} in ${fn}`,
          stacktrace: {
            frames: [{ filename: '/srv/app/jobs.js', module: 'jobs', function: fn, lineno, in_app: true }],
          },
        },
      ],
    },
  };
}

describe('digest pipeline', () => {
  let t: TestApp;
  let digest: Queue;
  let alerts: Queue;
  let projectId: number;
  let slug: string;

  beforeAll(async () => {
    t = await startTestApp();
    digest = openQueue(t, QueueName.Digest);
    alerts = openQueue(t, QueueName.Alerts);
    const project = await t.api().post('/api/projects').send({ name: 'Digest Test' }).expect(201);
    projectId = project.body.id;
    slug = project.body.slug;
  });
  afterAll(async () => {
    await digest.close();
    await alerts.close();
    await t.close();
  });

  async function issues(): Promise<Record<string, unknown>[]> {
    const response = await t.api().get(`/api/projects/${projectId}/issues`).expect(200);
    return response.body.data;
  }

  async function issueWhere(
    predicate: (issue: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>> {
    return eventually(async () => (await issues()).find(predicate));
  }

  async function triggersFor(issueId: number): Promise<string[]> {
    const jobs = await alerts.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
    return jobs.filter((job) => job.data.issueId === issueId).map((job) => job.data.alertType as string);
  }

  it('turns a real SDK exception into an issue and a full event', async () => {
    const eventId = await enqueueEvent(digest, projectId, fixtureEvent('exception-event'));
    const issue = await issueWhere((candidate) => candidate.type === 'TypeError');
    expect(issue).toMatchObject({
      short_id: `${slug.toUpperCase()}-1`,
      message: "Cannot read properties of undefined (reading 'x')",
      culprit: 'send in deep',
      state: 'open',
      event_count: 1,
      first_seen: '2026-11-21T02:28:57.970Z',
      last_seen: '2026-11-21T02:28:57.970Z',
    });
    const event = await t.api().get(`/api/events/${eventId}`).expect(200);
    expect(event.body).toMatchObject({
      id: eventId,
      issue_id: issue.id,
      environment: 'production',
      release: 'app@1.2.3',
      user: { id: 'u1', email: 'a@b.c' },
      tags: { region: 'eu' },
      title: "TypeError: Cannot read properties of undefined (reading 'x')",
    });
    expect(event.body.exception.values[0].stacktrace.frames.at(-1)).toMatchObject({
      function: 'deep',
      in_app: true,
    });
    expect(
      await eventually(
        async () => (await triggersFor(issue.id as number)).length > 0 && triggersFor(issue.id as number),
      ),
    ).toEqual(['new_issue']);
  });

  it('counts repeats, ignores line moves and stores a re-sent event once', async () => {
    await enqueueEvent(digest, projectId, exception('JobError', 'runJob', 10));
    const first = await issueWhere((candidate) => candidate.type === 'JobError');
    await enqueueEvent(digest, projectId, exception('JobError', 'runJob', 57));
    await issueWhere((candidate) => candidate.id === first.id && candidate.event_count === 2);

    // Same event id under another job id: BullMQ would run it, the database must not count it twice.
    const eventId = randomUUID();
    const payload = JSON.stringify(exception('JobError', 'runJob'));
    for (const suffix of ['a', 'b']) {
      await digest.add(
        DigestJobName.Event,
        { projectId, eventId, receivedAt: Date.now(), payload },
        { jobId: `${digestJobId(projectId, eventId)}_${suffix}`, removeOnComplete: true },
      );
    }
    await eventually(async () => (await digest.getJobCounts('waiting', 'active')).waiting === 0 && true);
    await issueWhere((candidate) => candidate.id === first.id && candidate.event_count === 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await t.api().get(`/api/issues/${first.id}`).expect(200);
    expect(again.body.event_count).toBe(3);
    const events = await t.api().get(`/api/issues/${first.id}/events`).expect(200);
    expect(events.body.data).toHaveLength(3);

    await enqueueEvent(digest, projectId, exception('JobError', 'otherPath'));
    const other = await issueWhere((candidate) => candidate.type === 'JobError' && candidate.id !== first.id);
    expect(other.event_count).toBe(1);
  });

  it('reopens a resolved issue (regression), keeps a muted one muted, and reports unmute', async () => {
    await enqueueEvent(digest, projectId, exception('LifecycleError', 'cycle'));
    const issue = await issueWhere((candidate) => candidate.type === 'LifecycleError');
    const id = issue.id as number;

    await t.api().patch(`/api/issues/${id}`).send({ state: 'resolved' }).expect(200);
    await enqueueEvent(digest, projectId, exception('LifecycleError', 'cycle'));
    const reopened = await issueWhere((candidate) => candidate.id === id && candidate.event_count === 2);
    expect(reopened).toMatchObject({ state: 'open', regression_count: 1 });
    expect(reopened.last_regressed_at).toEqual(expect.any(String));

    await t.api().patch(`/api/issues/${id}`).send({ state: 'muted' }).expect(200);
    await enqueueEvent(digest, projectId, {
      ...exception('LifecycleError', 'cycle'),
      timestamp: Date.now() / 1000,
    });
    const muted = await issueWhere((candidate) => candidate.id === id && candidate.event_count === 3);
    expect(muted.state).toBe('muted');
    expect(Date.parse(muted.last_seen as string)).toBeGreaterThan(Date.parse(reopened.last_seen as string));

    await t.api().patch(`/api/issues/${id}`).send({ state: 'open' }).expect(200);
    const kinds = await eventually(async () => {
      const found = await triggersFor(id);
      return found.length === 3 && found;
    });
    expect(kinds.sort()).toEqual(['new_issue', 'regression', 'unmute']);
  });

  it('records triggers in the outbox with the data, and publishes what a crash or outage left there', async () => {
    const dataSource = t.app.get(DataSource);
    // Everything published so far has left the outbox. (Other test files' outage tests may leave
    // rows of their own projects there, as they should: they are not this test's to sweep.)
    expect(
      await dataSource.query('SELECT count(*)::int AS n FROM alert_trigger_outbox WHERE project_id = $1', [
        projectId,
      ]),
    ).toEqual([{ n: 0 }]);
    await dataSource.query('DELETE FROM alert_trigger_outbox WHERE project_id <> $1', [projectId]);

    await enqueueEvent(digest, projectId, exception('OrphanedTriggerError', 'left'));
    const issue = await issueWhere((candidate) => candidate.type === 'OrphanedTriggerError');
    // As if the process had died between the commit and the enqueue of a regression trigger:
    await dataSource.query(
      `INSERT INTO alert_trigger_outbox (alert_type, project_id, issue_id, occurred_at, created_at)
       VALUES ('regression', $1, $2, now(), now() - interval '1 minute'),
              ('regression', $1, $2, now(), now())`,
      [projectId, issue.id],
    );
    expect(await t.app.get(AlertTriggerProducer).sweep()).toBe(1);
    expect((await triggersFor(issue.id as number)).sort()).toEqual(['new_issue', 'regression']);
    // The fresh row is still within its grace period: its own producer may yet publish it.
    expect(await dataSource.query('SELECT count(*)::int AS n FROM alert_trigger_outbox')).toEqual([{ n: 1 }]);
    await dataSource.query('DELETE FROM alert_trigger_outbox');
  });

  it('groups message events by their normalised message', async () => {
    await enqueueEvent(digest, projectId, { message: 'cache miss for key 1234', level: 'warning' });
    await enqueueEvent(digest, projectId, { message: 'cache miss for key 98', level: 'warning' });
    const issue = await issueWhere(
      (candidate) => candidate.type === 'Message' && candidate.event_count === 2,
    );
    expect(issue).toMatchObject({ message: 'cache miss for key 1234', level: 'warning' });
  });

  it('puts an event that can never be stored in the failed set without retrying it', async () => {
    const eventId = randomUUID();
    await digest.add(
      DigestJobName.Event,
      { projectId, eventId, receivedAt: Date.now(), payload: '["not an object"]' },
      { jobId: digestJobId(projectId, eventId), attempts: 5, removeOnFail: 100 },
    );
    const failed = await eventually(async () => {
      const job = await digest.getJob(digestJobId(projectId, eventId));
      return job?.failedReason ? job : undefined;
    });
    expect(failed.failedReason).toBe('invalid event: event payload is not a JSON object');
    expect(failed.attemptsMade).toBe(1);
  });
});

describe('parallel workers on one backlog', () => {
  it('store every event once, count right and number issues without gaps or duplicates', async () => {
    const prefix = `test-par-${randomUUID().slice(0, 8)}`;
    const api = await startTestApp({ APP_ROLE: 'api', REDIS_PREFIX: prefix });
    const queue = openQueue(api, QueueName.Digest);
    const project = await api.api().post('/api/projects').send({ name: 'Parallel' }).expect(201);
    const groups = 20;
    const perGroup = 50;
    const jobs = [];
    for (let i = 0; i < groups * perGroup; i++) {
      const eventId = randomUUID();
      jobs.push({
        name: DigestJobName.Event,
        data: {
          projectId: project.body.id,
          eventId,
          receivedAt: Date.now(),
          payload: JSON.stringify(exception(`ParallelError${i % groups}`, 'work')),
        },
        opts: { jobId: digestJobId(project.body.id, eventId), removeOnComplete: true },
      });
    }
    // Every job twice: a redelivery must not be counted again.
    await queue.addBulk(jobs);
    await queue.addBulk(
      jobs.slice(0, 200).map((job) => ({ ...job, opts: { ...job.opts, jobId: `${job.opts.jobId}_again` } })),
    );
    expect(await queue.count()).toBe(groups * perGroup + 200);

    const workers = await Promise.all([
      startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix, DIGEST_CONCURRENCY: '50' }),
      startTestApp({ APP_ROLE: 'worker', REDIS_PREFIX: prefix, DIGEST_CONCURRENCY: '50' }),
    ]);
    try {
      // Nothing waiting and nothing active: count() alone leaves out the jobs still being stored.
      await eventually(async () => {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
        return Object.values(counts).every((count) => count === 0);
      }, 60_000);
      const dataSource = api.app.get(DataSource);
      const [{ events }] = await dataSource.query(
        'SELECT count(*)::int AS events FROM events WHERE project_id = $1',
        [project.body.id],
      );
      expect(events).toBe(groups * perGroup);
      const issues: { number: number; event_count: number }[] = await dataSource.query(
        'SELECT number, event_count FROM issues WHERE project_id = $1 ORDER BY number',
        [project.body.id],
      );
      expect(issues.map((issue) => issue.number)).toEqual(
        Array.from({ length: groups }, (_, index) => index + 1),
      );
      expect(issues.every((issue) => issue.event_count === perGroup)).toBe(true);
      expect(await queue.getFailedCount()).toBe(0);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
      await api.close();
    }
  });
});
