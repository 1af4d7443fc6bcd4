import type { ReleaseHealthConditions } from '../rules/release-health-conditions';
import { alertWindow, judgeReleases, ReleaseCounts } from './release-health-judge';

const HOUR = 3_600_000;
const SESSIONS: ReleaseHealthConditions = {
  metric: 'crash_free_sessions',
  threshold: 95,
  window_hours: 24,
  min_sessions: 10,
};

function counts(
  release: string,
  sessions: number,
  crashed: number,
  users = 0,
  crashedUsers = 0,
): ReleaseCounts {
  return { release, sessions, errored: 0, abnormal: 0, crashed, users, crashed_users: crashedUsers };
}

/**
 * The evaluation's state as the service keeps it (a row per release in breach), driven by a clock
 * that the test moves: each step's window is the rule's last hours at that time.
 */
class Evaluation {
  readonly inBreach = new Set<string>();
  readonly alerts: Array<{ at: number; release: string; value: number }> = [];
  now = Date.UTC(2026, 10, 26, 12, 30);

  constructor(
    private readonly conditions: ReleaseHealthConditions,
    /** Sessions per release and hour start: what the hourly rows hold. */
    private readonly hourly: Map<string, Map<number, { sessions: number; crashed: number }>>,
  ) {}

  add(release: string, hoursAgo: number, sessions: number, crashed: number): void {
    const hour = Math.floor(this.now / HOUR) * HOUR - hoursAgo * HOUR;
    const rows = this.hourly.get(release) ?? new Map<number, { sessions: number; crashed: number }>();
    const row = rows.get(hour) ?? { sessions: 0, crashed: 0 };
    rows.set(hour, { sessions: row.sessions + sessions, crashed: row.crashed + crashed });
    this.hourly.set(release, rows);
  }

  advance(ms: number): void {
    this.now += ms;
  }

  run(): void {
    const { from, to } = alertWindow(this.conditions.window_hours, new Date(this.now));
    const rows = [...this.hourly].map(([release, hours]) => {
      let sessions = 0;
      let crashed = 0;
      for (const [hour, row] of hours) {
        if (hour >= from.getTime() && hour < to.getTime()) {
          sessions += row.sessions;
          crashed += row.crashed;
        }
      }
      return counts(release, sessions, crashed);
    });
    const judgement = judgeReleases(this.conditions, rows, this.inBreach);
    for (const release of judgement.recoveries) this.inBreach.delete(release);
    for (const { release, breach } of judgement.breaches) {
      this.inBreach.add(release);
      this.alerts.push({ at: this.now, release, value: breach.value });
    }
  }
}

describe('alertWindow', () => {
  it('covers the last whole hours, the current one included', () => {
    const now = new Date(Date.UTC(2026, 0, 2, 10, 15));
    expect(alertWindow(1, now)).toEqual({
      from: new Date(Date.UTC(2026, 0, 2, 10)),
      to: new Date(Date.UTC(2026, 0, 2, 11)),
    });
    expect(alertWindow(24, now).from).toEqual(new Date(Date.UTC(2026, 0, 1, 11)));
  });
});

describe('judgeReleases', () => {
  it('alerts on a release below the threshold with enough sessions, with what it measured', () => {
    const judgement = judgeReleases(
      { ...SESSIONS, environments: ['production'] },
      [counts('a@1', 20, 2, 7), counts('b@1', 20, 0), counts('c@1', 9, 9)],
      new Set(),
    );
    expect(judgement).toEqual({
      breaches: [
        {
          release: 'a@1',
          breach: {
            metric: 'crash_free_sessions',
            value: 90,
            threshold: 95,
            window_hours: 24,
            min_sessions: 10,
            sessions: 20,
            users: 7,
            environments: ['production'],
          },
        },
      ],
      recoveries: [],
    });
  });

  it('is below, not at: a figure equal to the threshold is healthy', () => {
    expect(judgeReleases(SESSIONS, [counts('a@1', 20, 1)], new Set()).breaches).toEqual([]);
    expect(judgeReleases(SESSIONS, [counts('a@1', 20, 1)], new Set(['a@1'])).recoveries).toEqual(['a@1']);
  });

  it('judges crash-free users by users, and leaves a release without users as it is', () => {
    const users: ReleaseHealthConditions = { ...SESSIONS, metric: 'crash_free_users', threshold: 90 };
    // Sessions are 95% crash-free, users only 50%.
    const rows = [counts('a@1', 20, 1, 2, 1), counts('b@1', 20, 10, 0, 0)];
    const judgement = judgeReleases(users, rows, new Set(['b@1']));
    expect(judgement.breaches.map((b) => [b.release, b.breach.value])).toEqual([['a@1', 50]]);
    expect(judgement.recoveries).toEqual([]);
  });

  it('alerts once per breach, again only after a recovery (a clock moved by the test, no waiting)', () => {
    const run = new Evaluation(SESSIONS, new Map());
    run.add('a@1', 0, 20, 4); // 80%
    run.run();
    expect(run.alerts).toEqual([{ at: run.now, release: 'a@1', value: 80 }]);
    const first = run.now;

    // Still below, minute after minute, even getting worse: no new alert.
    for (let minute = 0; minute < 5; minute++) {
      run.advance(60_000);
      run.add('a@1', 0, 5, 5);
      run.run();
    }
    expect(run.alerts).toHaveLength(1);

    // Healthy sessions bring it back to the threshold: the state clears without an alert.
    run.advance(60_000);
    run.add('a@1', 0, 1000, 0); // 29 crashed of 1045: 97.2%
    run.run();
    expect(run.inBreach.size).toBe(0);
    expect(run.alerts).toHaveLength(1);

    // A new breach alerts again.
    run.advance(60_000);
    run.add('a@1', 0, 100, 100);
    run.run();
    expect(run.alerts.map((alert) => alert.at)).toEqual([first, run.now]);
  });

  it('never alerts on a release under the minimum of sessions, however bad', () => {
    const run = new Evaluation(SESSIONS, new Map());
    for (let i = 0; i < 9; i++) {
      run.add('small@1', 0, 1, 1);
      run.run();
      run.advance(60_000);
    }
    expect(run.alerts).toEqual([]);
    run.add('small@1', 0, 1, 1); // the tenth session
    run.run();
    expect(run.alerts.map((alert) => alert.release)).toEqual(['small@1']);
  });

  it('forgets a breach whose sessions left the window, and judges the window as the clock moves', () => {
    const run = new Evaluation({ ...SESSIONS, window_hours: 2 }, new Map());
    run.add('a@1', 0, 10, 10);
    run.run();
    expect(run.alerts).toHaveLength(1);
    run.advance(HOUR);
    run.run();
    expect(run.inBreach.has('a@1')).toBe(true); // the crashes are still in the last two hours
    run.advance(HOUR);
    run.run();
    expect(run.inBreach.has('a@1')).toBe(false);
    run.add('a@1', 0, 10, 10);
    run.run();
    expect(run.alerts).toHaveLength(2);
  });
});
