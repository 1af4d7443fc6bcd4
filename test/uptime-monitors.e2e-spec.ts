import { DataSource } from 'typeorm';
import { TokensService } from '../src/tokens/tokens.service';
import { UptimeChecksRepository } from '../src/monitors/uptime/uptime-checks.repository';
import { UptimeChecker } from '../src/monitors/uptime/uptime-checker';
import { UptimeClock } from '../src/monitors/uptime/uptime-clock';
import { UptimeFailure, UptimeIncidentRef, UptimeIncidents } from '../src/monitors/uptime/uptime-incidents';
import { UptimeScheduler } from '../src/monitors/uptime/uptime-scheduler.service';
import { startTestApp, TestApp } from './helpers/app';
import { createProject } from './helpers/attachments';
import { as, expectStatus, invitedAccount } from './helpers/members';
import { eventually } from './helpers/queues';
import { startTlsSite, startUptimeSites, UptimeSites } from './helpers/uptime-sites';

const DAY_MS = 86_400_000;
/** Far ahead of the real time: other apps of the test run, on the real clock, never find these checks due. */
const T0 = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 500 * DAY_MS;

describe('uptime monitors', () => {
  let t: TestApp;
  let db: DataSource;
  let sites: UptimeSites;
  let projectId: number;
  let now = T0;
  const incidents: { kind: 'failed' | 'recovered'; monitorId: number; reason?: string; detail?: string }[] =
    [];

  beforeAll(async () => {
    sites = await startUptimeSites();
    t = await startTestApp({ UPTIME_ALLOW_PRIVATE_NETWORKS: 'true' });
    db = t.app.get(DataSource);
    t.app.get(UptimeClock).now = () => new Date(now);
    // What reaches the incidents port, recorded on the way through.
    const port = t.app.get(UptimeIncidents);
    const failed = port.monitorFailed.bind(port);
    const recovered = port.monitorRecovered.bind(port);
    port.monitorFailed = (ref: UptimeIncidentRef, failure: UptimeFailure, manager) => {
      incidents.push({
        kind: 'failed',
        monitorId: ref.monitorId,
        reason: failure.reason,
        detail: failure.detail,
      });
      return failed(ref, failure, manager);
    };
    port.monitorRecovered = (ref: UptimeIncidentRef, at: Date, manager) => {
      incidents.push({ kind: 'recovered', monitorId: ref.monitorId });
      return recovered(ref, at, manager);
    };
    projectId = (await createProject(t, 'uptime')).id;
  });
  afterAll(async () => {
    await t.close();
    await sites.close();
  });

  const base = () => `/api/projects/${projectId}/uptime-monitors`;

  async function createMonitor(
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown> & { id: number }> {
    return (await expectStatus(t.api().post(base()).send(body), 201)).body;
  }

  async function checkCount(monitorId: number): Promise<number> {
    const rows: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM uptime_checks WHERE monitor_id = $1',
      [monitorId],
    );
    return rows[0].n;
  }

  /** Moves the clock to `at`, queues what is due, and waits until `monitorId` has `count` checks. */
  async function checkAt(at: number, monitorId: number, count: number): Promise<Record<string, unknown>> {
    now = at;
    await t.app.get(UptimeScheduler).tick();
    await eventually(async () => (await checkCount(monitorId)) >= count, 30_000);
    return (await expectStatus(t.api().get(`${base()}/${monitorId}`), 200)).body;
  }

  it('shows header values masked to every reader, and keeps a masked value sent back', async () => {
    const secret = 'Bearer s3cret-token-12345';
    const created = await createMonitor({
      name: 'Private API',
      url: `${sites.url}/echo`,
      headers: { Authorization: secret, 'X-Team': 'ops' },
    });
    const masked = { Authorization: 'Bear...****', 'X-Team': '****' };
    expect(created.headers).toEqual(masked);
    const readOnly = (
      await t.app.get(TokensService).create('read-only', { userId: null, readOnly: true, projectIds: null })
    ).token;
    const read = (path: string) => t.http().get(path).set('Authorization', `Bearer ${readOnly}`);
    expect((await expectStatus(read(`${base()}/${created.id}`), 200)).body.headers).toEqual(masked);
    const listed = (await expectStatus(read(base()), 200)).body.data as { id: number; headers: unknown }[];
    expect(listed.find((entry) => entry.id === created.id)?.headers).toEqual(masked);
    const everything = JSON.stringify((await expectStatus(read(base()), 200)).body);
    expect(everything).not.toContain('s3cret');

    // What a form sends back unchanged keeps the stored values; a new value replaces one; a header
    // left out of the object is removed; and the check sends the stored values.
    const patched = await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ headers: { ...masked, 'X-Team': 'sre' }, name: 'Renamed' }),
      200,
    );
    expect(patched.body.headers).toEqual(masked);
    const stored = async () =>
      (
        (await db.query('SELECT headers FROM uptime_monitors WHERE id = $1', [created.id])) as {
          headers: unknown;
        }[]
      )[0].headers;
    expect(await stored()).toEqual({ Authorization: secret, 'X-Team': 'sre' });
    await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ headers: { Authorization: 'Bear...****' } }),
      200,
    );
    expect(await stored()).toEqual({ Authorization: secret });

    // A masked-looking value that is not the stored one's mask is refused.
    const wrongMask = await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ headers: { Authorization: 'Othe...****' } }),
      400,
    );
    expect(wrongMask.body.error).toBe(
      'headers.Authorization is a masked value: send the new value, or the masked value unchanged',
    );
    const newWithMask = await expectStatus(
      t
        .api()
        .post(base())
        .send({ name: 'Copy', url: `${sites.url}/ok`, headers: { Authorization: 'Bear...****' } }),
      400,
    );
    expect(newWithMask.body.error).toBe('headers.Authorization is a masked value: send the value itself');

    // Stored values stay with the URL's origin: moving it elsewhere needs them sent again.
    const elsewhere = sites.url.replace('127.0.0.1', 'localhost');
    const moved = await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ url: `${elsewhere}/echo` }),
      400,
    );
    expect(moved.body.error).toBe(
      'headers.Authorization must be sent again when url moves to another origin',
    );
    await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ url: `${elsewhere}/echo`, headers: { Authorization: 'Bearer new' } }),
      200,
    );
    expect(await stored()).toEqual({ Authorization: 'Bearer new' });
    await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ url: `${elsewhere}/ok` }),
      200,
    );
    await expectStatus(t.api().delete(`${base()}/${created.id}`), 204);
  });

  it('shows the request body masked to every reader, and keeps a masked body sent back', async () => {
    const body = '{"user":"probe","password":"s3cret-body-password"}';
    const created = await createMonitor({
      name: 'Login probe',
      url: `${sites.url}/echo`,
      method: 'POST',
      body,
    });
    const masked = '{"us...****';
    expect(created.body).toBe(masked);
    const readOnly = (
      await t.app
        .get(TokensService)
        .create('read-only body', { userId: null, readOnly: true, projectIds: null })
    ).token;
    const everything = JSON.stringify(
      (await expectStatus(t.http().get(base()).set('Authorization', `Bearer ${readOnly}`), 200)).body,
    );
    expect(everything).not.toContain('s3cret-body-password');
    const storedBody = async () =>
      (
        (await db.query('SELECT body FROM uptime_monitors WHERE id = $1', [created.id])) as {
          body: string | null;
        }[]
      )[0].body;

    // Sent back as shown, or left out, the stored body stays; a new one replaces it; null removes it.
    await expectStatus(
      t.api().patch(`${base()}/${created.id}`).send({ body: masked, name: 'Login probe 2' }),
      200,
    );
    expect(await storedBody()).toBe(body);
    await expectStatus(t.api().patch(`${base()}/${created.id}`).send({ name: 'Login probe 3' }), 200);
    expect(await storedBody()).toBe(body);
    const wrongMask = await expectStatus(
      t.api().patch(`${base()}/${created.id}`).send({ body: 'othe...****' }),
      400,
    );
    expect(wrongMask.body.error).toBe(
      'body is a masked value: send the new body, or the masked value unchanged',
    );
    const copied = await expectStatus(
      t
        .api()
        .post(base())
        .send({ name: 'Copy', url: `${sites.url}/ok`, method: 'POST', body: masked }),
      400,
    );
    expect(copied.body.error).toBe('body is a masked value: send the body itself');
    // The stored body goes only to the origin it was written for.
    const elsewhere = sites.url.replace('127.0.0.1', 'localhost');
    const moved = await expectStatus(
      t
        .api()
        .patch(`${base()}/${created.id}`)
        .send({ url: `${elsewhere}/echo` }),
      400,
    );
    expect(moved.body.error).toBe('body must be sent again when url moves to another origin');
    await expectStatus(t.api().patch(`${base()}/${created.id}`).send({ body: '{"user":"other"}' }), 200);
    expect(await storedBody()).toBe('{"user":"other"}');
    await expectStatus(t.api().patch(`${base()}/${created.id}`).send({ body: null }), 200);
    expect(await storedBody()).toBeNull();
    await expectStatus(t.api().delete(`${base()}/${created.id}`), 204);
  });

  it('creates, reads, changes and deletes a monitor, with defaults, and audits each change', async () => {
    const created = await createMonitor({ name: 'Front page', url: `${sites.url}/ok` });
    expect(created).toMatchObject({
      project_id: projectId,
      name: 'Front page',
      url: `${sites.url}/ok`,
      method: 'GET',
      headers: {},
      body: null,
      expected_status: { min: 200, max: 299 },
      body_contains: null,
      interval_seconds: 60,
      timeout_seconds: 10,
      tls_expiry_days: 14,
      failure_threshold: 1,
      recovery_threshold: 1,
      muted: false,
      status: 'pending',
      last_checked_at: null,
      issue_id: null,
      uptime: { '24h': null, '7d': null, '30d': null },
    });
    const listed = await expectStatus(t.api().get(base()), 200);
    expect(listed.body.data.map((monitor: { id: number }) => monitor.id)).toContain(created.id);
    const changed = await expectStatus(
      t.api().patch(`${base()}/${created.id}`).send({ name: 'Home', interval_seconds: 120, muted: true }),
      200,
    );
    expect(changed.body).toMatchObject({
      name: 'Home',
      interval_seconds: 120,
      muted: true,
      url: `${sites.url}/ok`,
    });
    await expectStatus(t.api().delete(`${base()}/${created.id}`), 204);
    await expectStatus(t.api().get(`${base()}/${created.id}`), 404);
    await expectStatus(t.api().delete(`${base()}/${created.id}`), 404);
    const audit: { action: string }[] = await db.query(
      `SELECT action FROM audit_log WHERE target_type = 'uptime_monitor' AND target_id = $1 ORDER BY id`,
      [String(created.id)],
    );
    expect(audit.map((entry) => entry.action)).toEqual([
      'uptime_monitor.create',
      'uptime_monitor.update',
      'uptime_monitor.delete',
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'credentials in the URL',
      { url: 'https://user:secret@example.com/' },
      'url must not contain credentials',
    ],
    ['a scheme other than http(s)', { url: 'ftp://example.com/' }, 'url must use http or https, not ftp'],
    ['no URL', { url: undefined }, 'url must be a string'],
    ['an interval of 0', { interval_seconds: 0 }, 'interval_seconds must be an integer from 30 to 86400'],
    [
      'an interval below 30 s',
      { interval_seconds: 5 },
      'interval_seconds must be an integer from 30 to 86400',
    ],
    [
      'a timeout as long as the interval',
      { interval_seconds: 60, timeout_seconds: 60 },
      'timeout_seconds must be less than interval_seconds',
    ],
    [
      'a failure threshold of 0',
      { failure_threshold: 0 },
      'failure_threshold must be an integer from 1 to 100',
    ],
    [
      'a recovery threshold over 100',
      { recovery_threshold: 1000 },
      'recovery_threshold must be an integer from 1 to 100',
    ],
    [
      'a status range upside down',
      { expected_status: { min: 300, max: 200 } },
      'expected_status.min must not be greater than expected_status.max',
    ],
    [
      'a status out of HTTP',
      { expected_status: { min: 200, max: 700 } },
      'expected_status.max must be an integer from 100 to 599',
    ],
    [
      'a header with a line break',
      { headers: { 'X-A': 'a\r\nInjected: yes' } },
      'headers: the value of X-A must be one line',
    ],
    ['a method HTTP checks do not use', { method: 'CONNECT' }, 'method must be one of'],
    ['an unknown field', { surprise: true }, 'property surprise should not exist'],
  ])('refuses %s with a 400 that says why', async (_what, changes, message) => {
    const response = await expectStatus(
      t
        .api()
        .post(base())
        .send({ name: 'Bad', url: `${sites.url}/ok`, ...changes }),
      400,
    );
    expect(response.body.error).toContain(message);
  });

  it('opens an incident after failure_threshold failures and resolves it after recovery_threshold successes', async () => {
    const start = T0 + 10 * DAY_MS;
    now = start;
    const monitor = await createMonitor({
      name: 'Flaky',
      url: `${sites.url}/flaky`,
      failure_threshold: 2,
      recovery_threshold: 2,
    });
    const steps: [boolean, string, number, string[]][] = [
      [true, 'up', 0, []],
      [false, 'up', 1, []],
      [false, 'down', 2, ['failed']],
      [false, 'down', 3, ['failed', 'failed']],
      [true, 'down', 0, ['failed', 'failed']],
      [true, 'up', 0, ['failed', 'failed', 'recovered']],
    ];
    for (const [index, [up, status, failures, seen]] of steps.entries()) {
      sites.state.up = up;
      const view = await checkAt(start + index * 60_000, monitor.id, index + 1);
      expect({ index, status: view.status, failures: view.consecutive_failures }).toEqual({
        index,
        status,
        failures,
      });
      expect(incidents.filter((entry) => entry.monitorId === monitor.id).map((entry) => entry.kind)).toEqual(
        seen,
      );
    }
    // The incident was the monitor's issue, of kind uptime, opened once, counting each failure while
    // down, named after the monitor, and resolved on recovery.
    const issues: { kind: string; state: string; event_count: number; last_seen: Date; culprit: string }[] =
      await db.query(
        `SELECT kind, state, event_count, last_seen, culprit FROM issues
          WHERE project_id = $1 AND kind = 'uptime' AND message LIKE 'Flaky%'`,
        [projectId],
      );
    expect(issues).toEqual([
      {
        kind: 'uptime',
        state: 'resolved',
        event_count: 2,
        last_seen: new Date(start + 3 * 60_000),
        culprit: 'Flaky is down: HTTP 503, expected 200–299',
      },
    ]);
    expect(incidents.find((entry) => entry.monitorId === monitor.id)).toMatchObject({
      reason: 'down',
      detail: 'HTTP 503, expected 200–299',
    });
    // Recovered, the monitor still names its last incident, by short id, for its page to link.
    const [issue]: { id: number; number: number }[] = await db.query(
      `SELECT id, number FROM issues WHERE project_id = $1 AND kind = 'uptime' AND message LIKE 'Flaky%'`,
      [projectId],
    );
    const recovered = (await expectStatus(t.api().get(`${base()}/${monitor.id}`), 200)).body;
    expect(recovered.issue_id).toBeNull();
    expect(recovered.issue).toEqual({
      id: issue.id,
      short_id: expect.stringMatching(new RegExp(`-${issue.number}$`)),
      state: 'resolved',
    });
    sites.state.up = true;
    await expectStatus(t.api().delete(`${base()}/${monitor.id}`), 204);
  });

  it('warns once per certificate when the TLS certificate expires within tls_expiry_days', async () => {
    const tls = await startTlsSite(5, 'ca');
    // The expiry is read from a verified certificate only: the checker trusts the site's authority.
    const checker = t.app.get(UptimeChecker);
    checker.extraCertificateAuthorities = [tls.ca!];
    try {
      const start = T0 + 25 * DAY_MS;
      now = start;
      const monitor = await createMonitor({ name: 'Secure', url: `${tls.url}/`, tls_expiry_days: 14 });
      const first = await checkAt(start, monitor.id, 1);
      expect(first).toMatchObject({
        tls_expires_at: tls.expiresAt.toISOString(),
        status: 'up',
        last_error: null,
      });
      await checkAt(start + 60_000, monitor.id, 2);
      const warnings = incidents.filter(
        (entry) => entry.monitorId === monitor.id && entry.reason === 'tls_expiring',
      );
      expect(warnings).toHaveLength(1);
      // The clock is far ahead of the real time: by it, the certificate has expired.
      expect(warnings[0].detail).toBe(
        `TLS certificate expired on ${tls.expiresAt.toISOString().slice(0, 10)}`,
      );
      await expectStatus(t.api().delete(`${base()}/${monitor.id}`), 204);
    } finally {
      checker.extraCertificateAuthorities = [];
      await tls.close();
    }
  });

  it('checks muted monitors but opens no incident', async () => {
    const start = T0 + 20 * DAY_MS;
    now = start;
    const monitor = await createMonitor({ name: 'Muted', url: `${sites.url}/status/500`, muted: true });
    const view = await checkAt(start, monitor.id, 1);
    expect(view).toMatchObject({
      status: 'down',
      last_status_code: 500,
      last_error: 'HTTP 500, expected 200–299',
    });
    expect(incidents.filter((entry) => entry.monitorId === monitor.id)).toEqual([]);
    await expectStatus(t.api().delete(`${base()}/${monitor.id}`), 204);
  });

  it('answers uptime over 24 h, 7 and 30 days exactly, the series, and the public status page', async () => {
    const start = T0 + 30 * DAY_MS;
    now = start;
    const monitor = await createMonitor({ name: 'Shop', url: `${sites.url}/flaky` });
    const hidden = await createMonitor({ name: 'Internal admin', url: `${sites.url}/ok` });
    // Three checks on one day, then four the next: the 24-hour window holds only the last four.
    const plan: [number, boolean][] = [
      [start, false],
      [start + 60_000, false],
      [start + 120_000, true],
      [start + DAY_MS, true],
      [start + DAY_MS + 60_000, false],
      [start + DAY_MS + 120_000, true],
      [start + DAY_MS + 180_000, true],
    ];
    for (const [index, [at, up]] of plan.entries()) {
      sites.state.up = up;
      await checkAt(at, monitor.id, index + 1);
    }
    sites.state.up = true;
    const end = plan.at(-1)![0];
    const percent = (checks: [number, boolean][]) =>
      Math.round((checks.filter(([, ok]) => ok).length * 100_000) / checks.length) / 1000;
    const lastDay = plan.filter(([at]) => at > end - DAY_MS);
    const view = (await expectStatus(t.api().get(`${base()}/${monitor.id}`), 200)).body;
    expect(view.uptime).toEqual({ '24h': percent(lastDay), '7d': percent(plan), '30d': percent(plan) });
    expect(view.uptime['24h']).toBe(75);
    // The list's sparkline, in the view itself: the mean response time of each of the last 24
    // hours, the current one last. The day before's checks fell into the hour just before them.
    expect(view.response_ms_24h).toHaveLength(24);
    expect(view.response_ms_24h.at(-1)).toEqual(expect.any(Number));
    expect(view.response_ms_24h.slice(0, -1)).toEqual(Array(23).fill(null));
    const listed = (await expectStatus(t.api().get(base()), 200)).body.data as { id: number }[];
    expect(listed.find((row) => row.id === monitor.id)).toMatchObject({
      response_ms_24h: view.response_ms_24h,
    });

    // The series: fixed buckets over the period (see uptime-series.e2e-spec.ts), holding every check.
    type Bucket = { checks: number; failures: number };
    const sum = (points: Bucket[]) =>
      points.reduce((total, point) => [total[0] + point.checks, total[1] + point.failures], [0, 0]);
    const dayBuckets = (await expectStatus(t.api().get(`${base()}/${monitor.id}/checks?period=24h`), 200))
      .body.data;
    expect(dayBuckets).toHaveLength(48);
    expect(sum(dayBuckets)).toEqual([lastDay.length, lastDay.filter(([, ok]) => !ok).length]);
    const week = (await expectStatus(t.api().get(`${base()}/${monitor.id}/checks?period=7d`), 200)).body.data;
    expect(week).toHaveLength(168);
    expect(
      week.filter((point: Bucket) => point.checks > 0).map((point: Bucket) => [point.checks, point.failures]),
    ).toEqual([
      [3, 2],
      [4, 1],
    ]);
    const failed = (await expectStatus(t.api().get(`${base()}/${monitor.id}/failures?period=24h`), 200)).body
      .data;
    expect(failed).toEqual([
      expect.objectContaining({
        until: null,
        status_code: 503,
        error: 'HTTP 503, expected 200–299',
        checks: 1,
      }),
    ]);
    await expectStatus(t.api().get(`${base()}/${monitor.id}/checks?period=1y`), 400);

    // The status page: off by default, public once enabled, only the chosen monitors.
    const settings = await expectStatus(t.api().get(`/api/projects/${projectId}/status-page`), 200);
    expect(settings.body).toEqual({
      enabled: false,
      slug: null,
      title: 'Status',
      uptime_monitor_ids: [],
      cron_monitor_ids: [],
    });
    const slug = `shop-${projectId}`;
    await expectStatus(t.http().get(`/api/status/${slug}`), 404);
    const refused = await expectStatus(
      t.api().put(`/api/projects/${projectId}/status-page`).send({ enabled: true }),
      400,
    );
    expect(refused.body.error).toBe('slug is needed to enable the status page');
    const foreign = await expectStatus(
      t
        .api()
        .put(`/api/projects/${projectId}/status-page`)
        .send({ enabled: true, slug, uptime_monitor_ids: [999_999] }),
      400,
    );
    expect(foreign.body.error).toContain('no uptime monitor 999999 in this project');
    await expectStatus(
      t
        .api()
        .put(`/api/projects/${projectId}/status-page`)
        .send({ enabled: false, slug, title: 'Shop status', uptime_monitor_ids: [monitor.id] }),
      200,
    );
    await expectStatus(t.http().get(`/api/status/${slug}`), 404);
    await expectStatus(t.api().put(`/api/projects/${projectId}/status-page`).send({ enabled: true }), 200);

    const page = (await expectStatus(t.http().get(`/api/status/${slug}`), 200)).body;
    expect(Object.keys(page).sort()).toEqual(['monitors', 'title', 'updated_at']);
    expect(page.title).toBe('Shop status');
    expect(page.monitors).toHaveLength(1);
    const [shown] = page.monitors;
    expect(Object.keys(shown).sort()).toEqual(['days', 'kind', 'name', 'status']);
    expect(shown).toMatchObject({ name: 'Shop', kind: 'uptime', status: 'up' });
    expect(shown.days).toHaveLength(90);
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    expect(shown.days.at(-1)).toEqual({ date: day(end), uptime_percent: percent(plan.slice(3)) });
    expect(shown.days.at(-2)).toEqual({ date: day(start), uptime_percent: percent(plan.slice(0, 3)) });
    expect(
      shown.days
        .slice(0, -2)
        .every((entry: { uptime_percent: number | null }) => entry.uptime_percent === null),
    ).toBe(true);
    expect(JSON.stringify(page)).not.toContain(sites.url);
    expect(JSON.stringify(page)).not.toContain(hidden.name as string);

    // Another project may not take the slug.
    const other = await createProject(t, 'uptime-other');
    const taken = await expectStatus(
      t.api().put(`/api/projects/${other.id}/status-page`).send({ enabled: true, slug }),
      409,
    );
    expect(taken.body.error).toContain('taken');
    const audit: { action: string }[] = await db.query(
      `SELECT action FROM audit_log WHERE action = 'status_page.update' AND target_id = $1`,
      [String(projectId)],
    );
    expect(audit).toHaveLength(2);
    // Turned off, it is gone at once (the copy this process kept of it goes with the change).
    await expectStatus(t.api().put(`/api/projects/${projectId}/status-page`).send({ enabled: false }), 200);
    await expectStatus(t.http().get(`/api/status/${slug}`), 404);
  });

  it('retention deletes raw checks past their hours and keeps the hourly totals the longer figures need', async () => {
    const start = T0 + 40 * DAY_MS;
    now = start;
    const monitor = await createMonitor({ name: 'Kept', url: `${sites.url}/ok` });
    await checkAt(start, monitor.id, 1);
    await checkAt(start + 60_000, monitor.id, 2);
    now = start + 3 * DAY_MS;
    const checks = t.app.get(UptimeChecksRepository);
    const hours = t.config.UPTIME_CHECK_RETENTION_HOURS;
    expect(hours).toBe(48);
    // Only this file's checks are this far ahead, and earlier tests' are older still.
    const cutoff = new Date(now - hours * 3_600_000);
    const older: { n: number }[] = await db.query(
      'SELECT count(*)::int AS n FROM uptime_checks WHERE due_at < $1',
      [cutoff],
    );
    expect(older[0].n).toBeGreaterThanOrEqual(2);
    expect(await checks.deleteChecksBefore(cutoff, 1_000)).toBe(older[0].n);
    expect(await checkCount(monitor.id)).toBe(0);
    const view = (await expectStatus(t.api().get(`${base()}/${monitor.id}`), 200)).body;
    expect(view.uptime).toEqual({ '24h': null, '7d': 100, '30d': 100 });
    await expectStatus(t.api().delete(`${base()}/${monitor.id}`), 204);
  });

  it('lets members change monitors but only admins change the status page', async () => {
    const team = (
      await expectStatus(
        t
          .api()
          .post('/api/teams')
          .send({ name: `Uptime team ${projectId}` }),
        201,
      )
    ).body;
    await expectStatus(t.api().put(`/api/teams/${team.id}/projects/${projectId}`), 204);
    const member = await invitedAccount(t, as(t, { token: t.token }), 'member', { teamIds: [team.id] });
    const viewer = await invitedAccount(t, as(t, { token: t.token }), 'viewer', { teamIds: [team.id] });
    const asMember = as(t, { token: member.token });
    const asViewer = as(t, { token: viewer.token });
    const made = await expectStatus(
      asMember.post(base()).send({ name: 'By a member', url: `${sites.url}/ok` }),
      201,
    );
    await expectStatus(asViewer.get(`${base()}/${made.body.id}`), 200);
    await expectStatus(asViewer.patch(`${base()}/${made.body.id}`).send({ name: 'No' }), 403);
    await expectStatus(asMember.get(`/api/projects/${projectId}/status-page`), 200);
    await expectStatus(asMember.put(`/api/projects/${projectId}/status-page`).send({ enabled: false }), 403);
    await expectStatus(asMember.delete(`${base()}/${made.body.id}`), 204);
  });
});

describe('uptime monitors without UPTIME_ALLOW_PRIVATE_NETWORKS', () => {
  let t: TestApp;
  let projectId: number;

  beforeAll(async () => {
    t = await startTestApp();
    projectId = (await createProject(t, 'uptime-ssrf')).id;
  });
  afterAll(() => t.close());

  it.each([
    ['http://127.0.0.1:8080/health', 'url is a loopback address'],
    ['http://169.254.169.254/latest/meta-data', 'url is a link-local address'],
    ['http://10.1.2.3/', 'url is a private address'],
    ['http://[::1]/', 'url is a loopback address'],
    ['http://2130706433/', 'url is a loopback address'],
  ])('refuses %s with a 400', async (url, message) => {
    const response = await expectStatus(
      t.api().post(`/api/projects/${projectId}/uptime-monitors`).send({ name: 'Internal', url }),
      400,
    );
    expect(response.body.error).toContain(message);
    expect(response.body.error).toContain('UPTIME_ALLOW_PRIVATE_NETWORKS');
  });

  it('refuses a name that resolves to a private address without saying which address', async () => {
    const response = await expectStatus(
      t
        .api()
        .post(`/api/projects/${projectId}/uptime-monitors`)
        .send({ name: 'Internal', url: 'http://localhost/' }),
      400,
    );
    expect(response.body.error).toMatch(
      /^url: localhost resolves to a loopback address, which uptime checks may not reach \(UPTIME_ALLOW_PRIVATE_NETWORKS\)$/,
    );
    expect(response.body.error).not.toMatch(/127\.0\.0\.1|::1/);
  });
});
