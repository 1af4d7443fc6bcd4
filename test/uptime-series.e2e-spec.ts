/**
 * An uptime monitor's charts and failed checks, on a real time axis: every period cut into fixed
 * buckets (empty time shown empty), each bucket with its share of failures, and the failed checks
 * at their own times (hours with failures where only hourly totals are kept). Real checks of a
 * local site, on the uptime clock.
 */
import { DataSource } from 'typeorm';
import { UptimeClock } from '../src/monitors/uptime/uptime-clock';
import { UptimeScheduler } from '../src/monitors/uptime/uptime-scheduler.service';
import { startTestApp, TestApp } from './helpers/app';
import { createProject } from './helpers/attachments';
import { expectStatus } from './helpers/members';
import { eventually } from './helpers/queues';
import { startUptimeSites, UptimeSites } from './helpers/uptime-sites';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** Far ahead of the real time, on an hour: other apps of the test run never find these checks due. */
const T0 = Math.ceil(Date.now() / DAY_MS) * DAY_MS + 700 * DAY_MS;

interface Point {
  t: string;
  ok: boolean;
  checks: number;
  failures: number;
  response_ms: number | null;
}

interface FailedCheck {
  at: string;
  until: string | null;
  checks: number;
  failures: number;
  status_code: number | null;
  error: string | null;
}

describe('uptime charts and failed checks', () => {
  let t: TestApp;
  let db: DataSource;
  let sites: UptimeSites;
  let projectId: number;
  let monitorId: number;
  let now = T0;
  /** How many checks were made (each tick makes one). */
  let made = 0;
  // One hour three days ago with 11 failures in 20 checks, one failure 2 hours ago, one 20 minutes ago.
  const badHour = T0 - 3 * DAY_MS + 14 * HOUR_MS;
  const recentFailure = T0 + DAY_MS - 2 * HOUR_MS + 5 * MINUTE_MS;
  const lastFailure = T0 + DAY_MS - 20 * MINUTE_MS;
  const end = T0 + DAY_MS - 10 * MINUTE_MS;

  const base = () => `/api/projects/${projectId}/uptime-monitors/${monitorId}`;

  async function checkAt(at: number, up: boolean): Promise<void> {
    now = at;
    sites.state.up = up;
    await t.app.get(UptimeScheduler).tick();
    made++;
    await eventually(async () => {
      const rows: { n: number }[] = await db.query(
        'SELECT count(*)::int AS n FROM uptime_checks WHERE monitor_id = $1',
        [monitorId],
      );
      return rows[0].n >= made;
    }, 30_000);
  }

  beforeAll(async () => {
    sites = await startUptimeSites();
    t = await startTestApp({ UPTIME_ALLOW_PRIVATE_NETWORKS: 'true' });
    db = t.app.get(DataSource);
    t.app.get(UptimeClock).now = () => new Date(now);
    projectId = (await createProject(t, 'uptime-series')).id;
    now = badHour;
    monitorId = (
      await expectStatus(
        t
          .api()
          .post(`/api/projects/${projectId}/uptime-monitors`)
          .send({
            name: 'Shop API',
            url: `${sites.url}/flaky`,
            interval_seconds: 180,
            failure_threshold: 100,
          }),
        201,
      )
    ).body.id;
    for (let index = 0; index < 20; index++) await checkAt(badHour + index * 3 * MINUTE_MS, index >= 11);
    for (const at of [recentFailure - 10 * MINUTE_MS, recentFailure, lastFailure, end]) {
      await checkAt(at, at !== recentFailure && at !== lastFailure);
    }
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    await sites?.close();
  });

  /** The checks as stored: [when due (what buckets count by), passed]. */
  async function stored(): Promise<[number, boolean][]> {
    const rows: { due_at: Date; ok: boolean }[] = await db.query(
      'SELECT due_at, ok FROM uptime_checks WHERE monitor_id = $1 ORDER BY due_at',
      [monitorId],
    );
    return rows.map((row) => [row.due_at.getTime(), row.ok]);
  }

  const series = async (period: string) =>
    (await expectStatus(t.api().get(`${base()}/checks?period=${period}`), 200)).body.data as Point[];

  it.each([
    ['24h', 48, 30 * MINUTE_MS],
    ['7d', 168, HOUR_MS],
    ['30d', 120, 6 * HOUR_MS],
  ])(
    'cuts %s into %i fixed buckets ending with the one now falls in, empty ones empty',
    async (period, count, size) => {
      const points = await series(period);
      const checks = await stored();
      expect(checks).toHaveLength(24);
      expect(points).toHaveLength(count);
      const starts = points.map((point) => Date.parse(point.t));
      for (let index = 1; index < starts.length; index++)
        expect(starts[index] - starts[index - 1]).toBe(size);
      expect(starts.at(-1)).toBe(Math.floor(end / size) * size);
      // Every check of the period is in exactly one bucket, and the buckets hold nothing else.
      const from = starts[0];
      const inPeriod = checks.filter(([at]) => at >= from);
      expect(points.reduce((sum, point) => sum + point.checks, 0)).toBe(inPeriod.length);
      expect(points.reduce((sum, point) => sum + point.failures, 0)).toBe(
        inPeriod.filter(([, up]) => !up).length,
      );
      for (const point of points) {
        const start = Date.parse(point.t);
        const inBucket = checks.filter(([at]) => at >= start && at < start + size);
        expect({ t: point.t, checks: point.checks, failures: point.failures }).toEqual({
          t: point.t,
          checks: inBucket.length,
          failures: inBucket.filter(([, up]) => !up).length,
        });
        expect(point.ok).toBe(point.failures === 0);
        if (point.checks === 0) expect(point.response_ms).toBeNull();
      }
    },
  );

  it('shows the partly failed hour as one bucket of its week with its share, not as the week', async () => {
    const week = await series('7d');
    const withChecks = week.filter((point) => point.checks > 0);
    const bad = week.find((point) => Date.parse(point.t) === badHour)!;
    expect(bad).toMatchObject({ checks: 20, failures: 11, ok: false });
    // Most of the week had no checks at all: drawn empty, not as failures.
    expect(week.filter((point) => point.checks === 0).length).toBeGreaterThan(150);
    expect(withChecks.length).toBeLessThan(10);
  });

  it('lists each failed check at its own time, and hours with failures beyond the raw checks kept', async () => {
    const day = (await expectStatus(t.api().get(`${base()}/failures?period=24h`), 200)).body
      .data as FailedCheck[];
    expect(day.map((failure) => [failure.at, failure.until, failure.checks, failure.failures])).toEqual([
      [new Date(lastFailure).toISOString(), null, 1, 1],
      [new Date(recentFailure).toISOString(), null, 1, 1],
    ]);
    expect(day[0]).toMatchObject({ status_code: 503, error: 'HTTP 503, expected 200–299' });

    // Three days back the raw checks may be gone (48 h are kept): the hour's totals say it.
    const week = (await expectStatus(t.api().get(`${base()}/failures?period=7d`), 200)).body
      .data as FailedCheck[];
    expect(week.slice(0, 2).map((failure) => failure.at)).toEqual([
      new Date(lastFailure).toISOString(),
      new Date(recentFailure).toISOString(),
    ]);
    expect(week.slice(2)).toEqual([
      {
        at: new Date(badHour).toISOString(),
        until: new Date(badHour + HOUR_MS).toISOString(),
        checks: 20,
        failures: 11,
        status_code: null,
        error: '11 of 20 checks failed',
        response_ms: expect.any(Number),
      },
    ]);
    await expectStatus(t.api().get(`${base()}/failures?period=1y`), 400);
  });
});
