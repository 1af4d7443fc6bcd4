/**
 * The cron clock end to end, with time driven by the tests (CronClockService.tick(now)) rather than
 * waited for: missed runs at their expected time plus the margin, catching up after an outage in
 * order and bounded, a tick run twice recording nothing twice, in-progress runs timing out after
 * max_runtime and a late end keeping them timed out, and daylight-saving days in Europe/Berlin.
 */
import { randomUUID } from 'node:crypto';
import { QueueName } from '../src/common/queues';
import { CronClock } from '../src/monitors/crons/cron-clock';
import { CronClockService } from '../src/monitors/crons/cron-clock.service';
import { digestJobId, DigestJobName } from '../src/digest/digest-job';
import { startTestApp, TestApp } from './helpers/app';
import { eventually, openQueue, storedEvent } from './helpers/queues';

interface Project {
  id: number;
  client_key: string;
}

interface CheckIn {
  id: string;
  status: string;
  duration_ms: number | null;
  expected_at: string | null;
  created_at: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const MINUTE = 60_000;

describe('the cron clock', () => {
  let t: TestApp;
  let clock: CronClockService;

  beforeAll(async () => {
    t = await startTestApp();
    clock = t.app.get(CronClockService);
  });

  afterAll(async () => {
    await t.close();
  });

  async function createProject(): Promise<Project> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `clock-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
  }

  async function checkIn(project: Project, slug: string, fields: Record<string, unknown>): Promise<void> {
    await t
      .http()
      .post(`/api/${project.id}/cron/${slug}/${hex(project.client_key)}/`)
      .send(fields)
      .expect(202);
  }

  async function checkIns(project: Project, slug: string): Promise<CheckIn[]> {
    const page = await t.api().get(`/api/projects/${project.id}/monitors/${slug}/check-ins?limit=1000`);
    return page.status === 200 ? (page.body.data as CheckIn[]) : [];
  }

  async function environment(project: Project, slug: string) {
    const monitor = await t.api().get(`/api/projects/${project.id}/monitors/${slug}`).expect(200);
    return monitor.body.environments[0] as {
      status: string;
      next_expected_at: string;
      consecutive_failures: number;
    };
  }

  it('marks missed runs after the margin, catches up in order after an outage, and never twice', async () => {
    const project = await createProject();
    await checkIn(project, 'every-minute', {
      status: 'ok',
      monitor_config: {
        schedule: { type: 'crontab', value: '* * * * *' },
        checkin_margin: 2,
        failure_issue_threshold: 3,
      },
    });
    await eventually(async () => (await checkIns(project, 'every-minute')).length === 1, 30_000);
    const expected = new Date((await environment(project, 'every-minute')).next_expected_at).getTime();

    // Within the margin: nothing is missed yet.
    await clock.tick(new Date(expected + 2 * MINUTE - 1));
    expect(await checkIns(project, 'every-minute')).toHaveLength(1);

    // Ten minutes of outage: the runs expected up to now minus the margin, earliest first.
    const now = new Date(expected + 10 * MINUTE + 30_000);
    await clock.tick(now);
    const missed = (await checkIns(project, 'every-minute'))
      .filter((row) => row.status === 'missed')
      .reverse();
    expect(missed.map((row) => row.expected_at)).toEqual(
      Array.from({ length: 9 }, (_, i) => new Date(expected + i * MINUTE).toISOString()),
    );
    const state = await environment(project, 'every-minute');
    expect(state).toMatchObject({ status: 'missed', consecutive_failures: 9 });
    expect(new Date(state.next_expected_at).getTime()).toBe(expected + 9 * MINUTE);

    // The same tick again, and two at once: nothing more.
    await Promise.all([clock.tick(now), clock.tick(now)]);
    expect((await checkIns(project, 'every-minute')).filter((row) => row.status === 'missed')).toHaveLength(
      9,
    );

    // A check-in puts it right again.
    await checkIn(project, 'every-minute', { status: 'ok' });
    await eventually(async () => (await environment(project, 'every-minute')).status === 'ok', 30_000);
  });

  /** The wall-clock time in words the issue is expected to use, with the date when not on `today`'s day. */
  function inWords(at: number, timezone: string, today: number): string {
    const parts = (instant: number) => {
      const format = new Intl.DateTimeFormat('en-CA', {
        timeZone: timezone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const part = Object.fromEntries(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
      return { date: `${part.year}-${part.month}-${part.day}`, time: `${part.hour}:${part.minute}` };
    };
    const local = parts(at);
    return local.date === parts(today).date
      ? `${local.time} ${timezone}`
      : `${local.date} ${local.time} ${timezone}`;
  }

  it('counts every missed run on the open issue, and names the latest in words in the monitor’s timezone', async () => {
    const project = await createProject();
    for (const [slug, timezone] of [
      ['missed-utc', undefined],
      ['missed-berlin', 'Europe/Berlin'],
    ] as const) {
      await checkIn(project, slug, {
        status: 'ok',
        monitor_config: {
          schedule: { type: 'crontab', value: '* * * * *' },
          checkin_margin: 1,
          ...(timezone ? { timezone } : {}),
        },
      });
      await eventually(async () => (await checkIns(project, slug)).length === 1, 30_000);
      const expected = new Date((await environment(project, slug)).next_expected_at).getTime();
      // Eight ticks a minute apart, each finding the next run missed.
      let now = expected;
      for (let run = 0; run < 8; run++) {
        now = expected + run * MINUTE + MINUTE + 30_000;
        await clock.tick(new Date(now));
      }
      expect((await checkIns(project, slug)).filter((row) => row.status === 'missed')).toHaveLength(8);
      const monitor = await t.api().get(`/api/projects/${project.id}/monitors/${slug}`).expect(200);
      const issueId = monitor.body.environments[0].issue_id as number;
      const issue = await t.api().get(`/api/issues/${issueId}`).expect(200);
      const latest = expected + 7 * MINUTE;
      expect(issue.body).toMatchObject({
        event_count: 8,
        first_seen: new Date(expected).toISOString(),
        last_seen: new Date(latest).toISOString(),
        culprit: `${slug} missed a check-in: No check-in expected at ${inWords(latest, timezone ?? 'UTC', now)}`,
      });
      // A catch-up of several runs at once counts each of them.
      now = expected + 12 * MINUTE + 30_000;
      await clock.tick(new Date(now));
      const caughtUp = await t.api().get(`/api/issues/${issueId}`).expect(200);
      expect(caughtUp.body).toMatchObject({
        event_count: 12,
        last_seen: new Date(expected + 11 * MINUTE).toISOString(),
        culprit: `${slug} missed a check-in: No check-ins for 4 runs expected from ${inWords(expected + 8 * MINUTE, timezone ?? 'UTC', now)}`,
      });
    }
  });

  it('bounds the catch-up of a long outage', async () => {
    const project = await createProject();
    await checkIn(project, 'long-gap', {
      status: 'ok',
      monitor_config: { schedule: { type: 'crontab', value: '* * * * *' } },
    });
    await eventually(async () => (await checkIns(project, 'long-gap')).length === 1, 30_000);
    const expected = new Date((await environment(project, 'long-gap')).next_expected_at).getTime();
    const now = new Date(expected + 24 * 60 * MINUTE);
    await clock.tick(now);
    const missed = (await checkIns(project, 'long-gap')).filter((row) => row.status === 'missed');
    expect(missed).toHaveLength(60);
    const next = new Date((await environment(project, 'long-gap')).next_expected_at).getTime();
    expect(next).toBeGreaterThan(now.getTime() - 2 * MINUTE);
  });

  it('waits for a backed-up digest queue: a check-in still queued at its deadline is not called missed', async () => {
    const project = await createProject();
    await checkIn(project, 'behind-digest', {
      status: 'ok',
      monitor_config: { schedule: { type: 'crontab', value: '* * * * *' }, checkin_margin: 1 },
    });
    await eventually(async () => (await checkIns(project, 'behind-digest')).length === 1, 30_000);
    const expected = new Date((await environment(project, 'behind-digest')).next_expected_at).getTime();
    const digest = openQueue(t, QueueName.Digest);
    const now = jest
      .spyOn(t.app.get(CronClock), 'now')
      .mockReturnValue(new Date(expected + 3 * MINUTE - 30_000));
    try {
      // The digest is ten minutes behind: its oldest waiting job came in before both deadlines passed.
      await digest.pause();
      const eventId = randomUUID();
      await digest.add(
        DigestJobName.Event,
        {
          projectId: project.id,
          eventId,
          receivedAt: Date.now() - 10 * MINUTE,
          payload: JSON.stringify({ event_id: hex(eventId), message: 'queued behind', level: 'error' }),
        },
        {
          jobId: digestJobId(project.id, eventId),
          timestamp: Date.now() - 10 * MINUTE,
          removeOnComplete: true,
        },
      );
      expect(await clock.tickBehindDigest()).toMatchObject({ missed: 0 });
      expect((await checkIns(project, 'behind-digest')).map((row) => row.status)).toEqual(['ok']);

      // Once it has caught up, the runs expected at the two passed deadlines are missed.
      await digest.resume();
      await storedEvent(t, eventId, 30_000);
      await eventually(async () => ((await clock.tickBehindDigest()).missed > 0 ? true : undefined), 30_000);
      const missed = (await checkIns(project, 'behind-digest')).filter((row) => row.status === 'missed');
      expect(missed.map((row) => row.expected_at).sort()).toEqual([
        new Date(expected).toISOString(),
        new Date(expected + MINUTE).toISOString(),
      ]);
    } finally {
      now.mockRestore();
      await digest.resume();
      await digest.close();
    }
  });

  it('times out an in-progress run after max_runtime; a late end keeps it timed out with its duration', async () => {
    const project = await createProject();
    const id = randomUUID();
    await checkIn(project, 'slow-job', {
      status: 'in_progress',
      check_in_id: id,
      monitor_config: { schedule: { type: 'crontab', value: '0 3 * * *' }, max_runtime: 5 },
    });
    const [started] = await eventually(async () => {
      const rows = await checkIns(project, 'slow-job');
      return rows.length === 1 ? rows : undefined;
    }, 30_000);
    const createdAt = new Date(started.created_at).getTime();
    await clock.tick(new Date(createdAt + 5 * MINUTE - 1000));
    expect((await checkIns(project, 'slow-job'))[0].status).toBe('in_progress');
    await clock.tick(new Date(createdAt + 5 * MINUTE + 1000));
    expect((await checkIns(project, 'slow-job'))[0].status).toBe('timeout');
    expect((await environment(project, 'slow-job')).status).toBe('timeout');
    await checkIn(project, 'slow-job', { status: 'ok', check_in_id: id, duration: 400 });
    const [ended] = await eventually(async () => {
      const rows = await checkIns(project, 'slow-job');
      return rows[0]?.duration_ms === 400_000 ? rows : undefined;
    }, 30_000);
    expect(ended.status).toBe('timeout');
  });

  it('follows daylight-saving days in the monitor timezone', async () => {
    const project = await createProject();
    await checkIn(project, 'berlin-night', {
      status: 'ok',
      monitor_config: { schedule: { type: 'crontab', value: '30 2 * * *' }, timezone: 'Europe/Berlin' },
    });
    await eventually(async () => (await checkIns(project, 'berlin-night')).length === 1, 30_000);
    // Skip ahead to the day before spring forward (the gap is bounded, see above).
    await clock.tick(new Date('2027-03-27T12:00:00Z'));
    expect((await environment(project, 'berlin-night')).next_expected_at).toBe('2027-03-28T01:30:00.000Z');
    // 02:30 does not exist on 2027-03-28: the run is expected at 03:30 CEST.
    await clock.tick(new Date('2027-03-28T01:32:00Z'));
    const spring = (await checkIns(project, 'berlin-night')).find(
      (row) => row.expected_at === '2027-03-28T01:30:00.000Z',
    );
    expect(spring?.status).toBe('missed');
    expect((await environment(project, 'berlin-night')).next_expected_at).toBe('2027-03-29T00:30:00.000Z');
    // 02:30 happens twice on 2027-10-31: one run, at the first.
    await clock.tick(new Date('2027-10-30T12:00:00Z'));
    expect((await environment(project, 'berlin-night')).next_expected_at).toBe('2027-10-31T00:30:00.000Z');
    await clock.tick(new Date('2027-10-31T00:32:00Z'));
    expect((await environment(project, 'berlin-night')).next_expected_at).toBe('2027-11-01T01:30:00.000Z');
  });
});

describe('check-ins and the event rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MAX_EVENTS_PER_MINUTE: '2' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('takes check-ins while the project is over its event limit, as Sentry limits them apart', async () => {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `limit-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    const auth = `Sentry sentry_key=${hex(project.client_key)}, sentry_version=7`;
    const event = () =>
      [
        JSON.stringify({}),
        JSON.stringify({ type: 'event' }),
        JSON.stringify({ message: 'over the limit' }),
      ].join('\n');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await t.http().post(`/api/${project.id}/envelope/`).set('X-Sentry-Auth', auth).send(event())).status,
      );
    }
    expect(statuses).toContain(429);
    const limited = await t
      .http()
      .post(`/api/${project.id}/envelope/`)
      .set('X-Sentry-Auth', auth)
      .send(event())
      .expect(429);
    expect(limited.headers['x-sentry-rate-limits']).not.toContain('monitor');
    for (let i = 0; i < 5; i++) {
      const body = [
        JSON.stringify({}),
        JSON.stringify({ type: 'check_in' }),
        JSON.stringify({
          check_in_id: hex(randomUUID()),
          monitor_slug: 'limited',
          status: 'ok',
          monitor_config: { schedule: { type: 'interval', value: 1, unit: 'hour' } },
        }),
      ].join('\n');
      await t.http().post(`/api/${project.id}/envelope/`).set('X-Sentry-Auth', auth).send(body).expect(200);
    }
    await eventually(async () => {
      const page = await t.api().get(`/api/projects/${project.id}/monitors/limited/check-ins`);
      return page.status === 200 && page.body.data.length === 5;
    }, 30_000);
  });
});

describe('monitor issues from cron thresholds', () => {
  let t: TestApp;
  let clock: CronClockService;

  beforeAll(async () => {
    t = await startTestApp();
    clock = t.app.get(CronClockService);
  });

  afterAll(async () => {
    await t.close();
  });

  async function environment(project: Project, slug: string) {
    const monitor = await t.api().get(`/api/projects/${project.id}/monitors/${slug}`).expect(200);
    return monitor.body.environments[0] as {
      status: string;
      issue_id: number | null;
      issue: { id: number; short_id: string; state: string } | null;
      next_expected_at: string;
    };
  }

  it('opens one issue at the failure threshold, however many runs fail, and resolves it at the recovery threshold', async () => {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `issues-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    const url = `/api/${project.id}/cron/thresholds/${hex(project.client_key)}/`;
    const config = {
      schedule: { type: 'crontab', value: '* * * * *' },
      failure_issue_threshold: 2,
      recovery_threshold: 2,
    };
    await t.http().post(url).send({ status: 'error', monitor_config: config }).expect(202);
    await eventually(async () => (await environment(project, 'thresholds')).status === 'error', 30_000);
    expect((await environment(project, 'thresholds')).issue_id).toBeNull();
    await t.http().get(`${url}?status=error`).expect(202);
    const issueId = await eventually(
      async () => (await environment(project, 'thresholds')).issue_id ?? undefined,
      30_000,
    );
    const issue = await t.api().get(`/api/issues/${issueId}`).expect(200);
    expect(issue.body).toMatchObject({ kind: 'cron', state: 'open' });

    // Missed runs while it is open: the same issue, no other.
    const next = new Date((await environment(project, 'thresholds')).next_expected_at).getTime();
    await clock.tick(new Date(next + 5 * MINUTE));
    expect((await environment(project, 'thresholds')).issue_id).toBe(issueId);
    const issues = await t
      .api()
      .get(`/api/projects/${project.id}/issues`)
      .query({ query: 'kind:cron' })
      .expect(200);
    expect(issues.body.data).toHaveLength(1);

    await t.http().get(`${url}?status=ok`).expect(202);
    await eventually(async () => (await environment(project, 'thresholds')).status === 'ok', 30_000);
    expect((await t.api().get(`/api/issues/${issueId}`).expect(200)).body.state).toBe('open');
    await t.http().get(`${url}?status=ok`).expect(202);
    await eventually(
      async () => (await t.api().get(`/api/issues/${issueId}`)).body.state === 'resolved',
      30_000,
    );
    expect((await environment(project, 'thresholds')).issue_id).toBeNull();
    // The issue page lists the failures themselves: the check-ins that counted on it.
    const all = (await t.api().get(`/api/projects/${project.id}/monitors/thresholds/check-ins`).expect(200))
      .body.data as { id: string; status: string }[];
    const failed = (
      await t
        .api()
        .get(`/api/projects/${project.id}/monitors/thresholds/check-ins`)
        .query({ status: 'failed' })
        .expect(200)
    ).body.data as { id: string; status: string }[];
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(failed).toEqual(all.filter((checkIn) => ['error', 'missed', 'timeout'].includes(checkIn.status)));
    const wrong = await t
      .api()
      .get(`/api/projects/${project.id}/monitors/thresholds/check-ins`)
      .query({ status: 'broken' })
      .expect(400);
    expect(wrong.body.error).toMatch(/^status must be one of/);
    // Resolved, the environment still names its last incident, for the monitor page to link.
    expect((await environment(project, 'thresholds')).issue).toEqual({
      id: issueId,
      short_id: issue.body.short_id,
      state: 'resolved',
    });
  });

  it('opens nothing for a muted monitor, and still records its check-ins', async () => {
    const project = (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `muted-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
    await t
      .api()
      .post(`/api/projects/${project.id}/monitors`)
      .send({ name: 'Quiet', schedule: { type: 'crontab', value: '* * * * *' } })
      .expect(201);
    await t.api().patch(`/api/projects/${project.id}/monitors/quiet`).send({ muted: true }).expect(200);
    const url = `/api/${project.id}/cron/quiet/${hex(project.client_key)}/`;
    await t.http().get(`${url}?status=error`).expect(202);
    await t.http().get(`${url}?status=error`).expect(202);
    await eventually(async () => {
      const page = await t.api().get(`/api/projects/${project.id}/monitors/quiet/check-ins`).expect(200);
      return page.body.data.length === 2;
    }, 30_000);
    expect((await environment(project, 'quiet')).issue_id).toBeNull();
    const issues = await t
      .api()
      .get(`/api/projects/${project.id}/issues`)
      .query({ query: 'kind:cron' })
      .expect(200);
    expect(issues.body.data).toHaveLength(0);
  });
});
