/**
 * The slot a claimed check runs for, and the next one: the latest due time not after `now` (a
 * monitor that fell behind, while every worker was down, runs once, not once per missed interval),
 * and the one after it.
 */
export function dueSlots(
  nextDueAt: Date,
  now: Date,
  intervalSeconds: number,
): { dueAt: Date; nextDueAt: Date } {
  const interval = intervalSeconds * 1000;
  const behind = Math.max(0, Math.floor((now.getTime() - nextDueAt.getTime()) / interval));
  const dueAt = nextDueAt.getTime() + behind * interval;
  return { dueAt: new Date(dueAt), nextDueAt: new Date(dueAt + interval) };
}
