import { hourStart } from './quota-periods';

/**
 * What an API process last read from Redis of one project's limits and counters: enough to accept
 * events far below every limit without asking Redis again (pure).
 */
export interface QuotaView {
  /** Daily and monthly quotas, -1 for none; the spike limit per hour, 0 for none. */
  daily: number;
  monthly: number;
  spike: number;
  /** Events accepted in the UTC day, month and hour of `readAt`, every process included. */
  today: number;
  thisMonth: number;
  thisHour: number;
  readAt: number;
}

/** A view older than this is read again before an event is accepted on its word. */
export const QUOTA_VIEW_FRESH_MS = 1_000;

/**
 * How far below a limit counting in memory stops and every event is checked in Redis as it comes:
 * the last tenth of the limit, and never less than the last thousand events. Other processes' counts
 * reach Redis within one flush interval, so only a burst that crosses that last stretch within one
 * interval can go over the limit, by at most what the other processes accepted meanwhile.
 */
export function exactStretch(limit: number): number {
  return Math.max(1_000, Math.ceil(limit / 10));
}

function farBelow(limit: number, counted: number): boolean {
  return counted + exactStretch(limit) <= limit;
}

/**
 * Whether one more event (after `unflushed` this process accepted since the view was read) may be
 * accepted without asking Redis: the view is fresh, of the same UTC hour (so of the same day and
 * month too), and every limit the project has is far away.
 */
export function acceptsInMemory(view: QuotaView | undefined, unflushed: number, now: number): boolean {
  if (view === undefined) return false;
  if (now < view.readAt || now - view.readAt > QUOTA_VIEW_FRESH_MS) return false;
  if (hourStart(now) !== hourStart(view.readAt)) return false;
  const next = unflushed + 1;
  if (view.daily >= 0 && !farBelow(view.daily, view.today + next)) return false;
  if (view.monthly >= 0 && !farBelow(view.monthly, view.thisMonth + next)) return false;
  if (view.spike > 0 && !farBelow(view.spike, view.thisHour + next)) return false;
  return true;
}
