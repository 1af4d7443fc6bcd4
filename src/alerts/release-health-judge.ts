/**
 * Which releases a `release_health` rule alerts about, and which have recovered (pure): the figures
 * are release health's own (crash-free sessions and users, docs/release-health.md), computed from
 * the release's counts over the rule's window.
 */
import { crashFree, HealthCounts } from '../releases/health/health-figures';
import type { ReleaseBreach } from '../rules/alert-history.entity';
import type { ReleaseHealthConditions } from '../rules/release-health-conditions';

const HOUR_MS = 3_600_000;

/** The rule's window: its last `window_hours` whole hours, the one holding `now` included. */
export function alertWindow(windowHours: number, now: Date): { from: Date; to: Date } {
  const to = (Math.floor(now.getTime() / HOUR_MS) + 1) * HOUR_MS;
  return { from: new Date(to - windowHours * HOUR_MS), to: new Date(to) };
}

export interface ReleaseCounts extends HealthCounts {
  release: string;
}

export interface Judgement {
  /** Releases below the threshold with enough sessions that are not in breach yet: alert. */
  breaches: Array<{ release: string; breach: ReleaseBreach }>;
  /** Releases in breach that are back at or above the threshold, or have no sessions left in the window. */
  recoveries: string[];
}

/** The figure the rule watches; null when it has nothing to count (no sessions, or no users). */
export function figureOf(conditions: ReleaseHealthConditions, counts: HealthCounts): number | null {
  return conditions.metric === 'crash_free_users'
    ? crashFree(counts.crashed_users, counts.users)
    : crashFree(counts.crashed, counts.sessions);
}

/**
 * A release is in breach when it has at least `min_sessions` sessions in the window and its figure
 * is below the threshold. One in breach stays so (no new alert) until its figure is back at or above
 * the threshold, or no session of it is left in the window; with too few sessions to judge, or no
 * users for the users metric, it is left as it is.
 */
export function judgeReleases(
  conditions: ReleaseHealthConditions,
  counts: ReleaseCounts[],
  inBreach: ReadonlySet<string>,
): Judgement {
  const judgement: Judgement = { breaches: [], recoveries: [] };
  const seen = new Set<string>();
  for (const row of counts) {
    if (row.sessions <= 0) continue;
    seen.add(row.release);
    const value = figureOf(conditions, row);
    if (value === null) continue;
    if (value >= conditions.threshold) {
      if (inBreach.has(row.release)) judgement.recoveries.push(row.release);
      continue;
    }
    if (row.sessions < conditions.min_sessions || inBreach.has(row.release)) continue;
    judgement.breaches.push({
      release: row.release,
      breach: {
        metric: conditions.metric,
        value,
        threshold: conditions.threshold,
        window_hours: conditions.window_hours,
        min_sessions: conditions.min_sessions,
        sessions: row.sessions,
        users: row.users,
        environments: conditions.environments ?? null,
      },
    });
  }
  for (const release of inBreach) if (!seen.has(release)) judgement.recoveries.push(release);
  judgement.breaches.sort((a, b) => (a.release < b.release ? -1 : 1));
  judgement.recoveries.sort();
  return judgement;
}
