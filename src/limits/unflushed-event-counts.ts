import { Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { LimitKeys } from './limit-keys';
import { acceptsInMemory, QuotaView } from './quota-headroom';
import { DAY_MS, dayStart, HOUR_MS, hourStart, nextMonthStart } from './quota-periods';
import { RedisClient } from '../redis/redis.module';
import { WINDOW_LUA } from '../redis/window-counters';

/**
 * Adds a process's accepted events to the project's day, month and hour counters and reads them back
 * with its limits. KEYS: day, month, hour counters, limits hash. ARGV: events (below zero when more
 * counts were given back than taken since the last flush: given back, never below zero), the three
 * TTLs. Returns { today, this month, this hour, daily quota, monthly quota, spike limit }.
 */
const FLUSH_SCRIPT = `${WINDOW_LUA}
local added = tonumber(ARGV[1])
local counts = {}
for i = 1, 3 do
  if added >= 0 then
    counts[i] = window_add(KEYS[i], added, ARGV[i + 1])
  else
    window_give_back(KEYS[i], -added)
    counts[i] = tonumber(redis.call('GET', KEYS[i])) or 0
  end
end
local limits = redis.call('HMGET', KEYS[4], 'd', 'mo', 'sp')
return {counts[1], counts[2], counts[3], tonumber(limits[1]) or -1, tonumber(limits[2]) or -1, tonumber(limits[3]) or 0}
`;

type FlushCommand = (...args: Array<string | number>) => Promise<number[]>;

/** A project's events accepted in memory in one UTC hour that Redis has not counted yet. */
interface Unflushed {
  projectId: number;
  /** When the latest of them was accepted (the hour's counters are those of this time). */
  lastAt: number;
  /**
   * Not handed to Redis yet; below zero when counts handed over already were given back (the next
   * flush subtracts them).
   */
  count: number;
  /** In a flush or a check under way: Redis has them once it answers (or gets them back on failure). */
  inFlight: number;
}

export const FLUSH_INTERVAL_MS = 100;

/**
 * The per-project counts of a process that accepts events far below every quota and spike limit
 * without a Redis round trip each: they are added to Redis every FLUSH_INTERVAL_MS (and at
 * shutdown), one script call per project sent together, which also reads each project's counters
 * and limits back. Nearer a limit, or
 * with a view older than a second, the caller checks in Redis as before and hands this process's
 * unflushed count of the hour to that check, so that it counts them.
 */
export class UnflushedEventCounts {
  private readonly logger = new Logger('EventCounts');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private readonly views = new Map<number, QuotaView>();
  private readonly entries = new Map<string, Unflushed>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: LimitKeys,
  ) {
    if (!('ingestCountFlush' in this.redis)) {
      this.redis.defineCommand('ingestCountFlush', { numberOfKeys: 4, lua: FLUSH_SCRIPT });
    }
  }

  /** Accepts one event in memory when the project is far below its limits; false: check in Redis. */
  tryTake(projectId: number, now: number): boolean {
    const entry = this.entries.get(entryKey(projectId, now));
    const uncounted = entry ? entry.count + entry.inFlight : 0;
    if (!acceptsInMemory(this.views.get(projectId), uncounted, now)) return false;
    this.entry(projectId, now).count += 1;
    this.schedule();
    return true;
  }

  /** Hands the hour's unflushed events of the project to a check in Redis; settle or restore them after. */
  handOver(projectId: number, now: number): number {
    const entry = this.entries.get(entryKey(projectId, now));
    // A debit (below zero) waits for the flush: the check only adds.
    if (!entry || entry.count <= 0) return 0;
    const events = entry.count;
    entry.count = 0;
    entry.inFlight += events;
    return events;
  }

  /** Redis counted `events` handed over, and answered with the project's counters and limits. */
  settle(projectId: number, at: number, events: number, view: QuotaView | undefined): void {
    const key = entryKey(projectId, at);
    const entry = this.entries.get(key);
    if (entry) {
      entry.inFlight -= events;
      if (entry.count === 0 && entry.inFlight === 0) this.entries.delete(key);
    }
    const known = this.views.get(projectId);
    if (view && (!known || view.readAt >= known.readAt)) this.views.set(projectId, view);
  }

  /** Redis did not take the events handed over: they wait for the next flush. */
  restore(projectId: number, at: number, events: number): void {
    if (events === 0) return;
    const entry = this.entry(projectId, at);
    entry.inFlight -= events;
    entry.count += events;
    this.schedule();
  }

  /**
   * Gives back one event counted at `takenAt` while this process still has counts of that hour in
   * hand (unflushed or in a flush under way): taken off them, or owed to the next flush when they
   * are all in flight. False when it has none: the caller decrements Redis itself.
   */
  giveBack(projectId: number, takenAt: number): boolean {
    const key = entryKey(projectId, takenAt);
    const entry = this.entries.get(key);
    if (!entry) return false;
    entry.count -= 1;
    if (entry.count === 0 && entry.inFlight === 0) this.entries.delete(key);
    else if (entry.count < 0) this.schedule();
    return true;
  }

  /** Adds every unflushed count to Redis (one call per project, sent together) and reads the views back. */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = undefined;
      if ([...this.entries.values()].some((entry) => entry.count !== 0)) this.schedule();
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  /** Hands a flush the entry's whole count, a debit included. */
  private handOverAll(entry: Unflushed): number {
    const events = entry.count;
    entry.count = 0;
    entry.inFlight += events;
    return events;
  }

  private entry(projectId: number, at: number): Unflushed {
    const key = entryKey(projectId, at);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { projectId, lastAt: at, count: 0, inFlight: 0 };
      this.entries.set(key, entry);
    }
    entry.lastAt = Math.max(entry.lastAt, at);
    return entry;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  private async flushOnce(): Promise<void> {
    const batch = [...this.entries.values()]
      .filter((entry) => entry.count !== 0)
      .map((entry) => ({ projectId: entry.projectId, at: entry.lastAt, events: this.handOverAll(entry) }));
    if (batch.length === 0) return;
    // One call per project, all sent at once (ioredis writes them back to back): a pipeline would
    // have to keep to one slot on a Redis Cluster, and the projects' keys are spread over slots.
    const command = (this.redis as unknown as { ingestCountFlush: FlushCommand }).ingestCountFlush;
    const replies = await Promise.allSettled(
      batch.map(({ projectId, at, events }) =>
        command.call(
          this.redis,
          this.keys.acceptedToday(projectId, at),
          this.keys.acceptedThisMonth(projectId, at),
          this.keys.acceptedThisHour(projectId, at),
          this.keys.limits(projectId),
          events,
          dayStart(at) + DAY_MS - at + HOUR_MS,
          nextMonthStart(at) - at + HOUR_MS,
          hourStart(at) + 2 * HOUR_MS - at,
        ),
      ),
    );
    batch.forEach(({ projectId, at, events }, index) => {
      const reply = replies[index];
      if (reply.status === 'fulfilled') {
        this.settle(projectId, at, events, viewOf(reply.value, at));
        return;
      }
      this.restore(projectId, at, events);
      this.failures.warn(
        'flush',
        `event counts not added to Redis, kept for the next try: ${(reply.reason as Error).message}`,
      );
    });
  }
}

function entryKey(projectId: number, at: number): string {
  return `${projectId}:${hourStart(at)}`;
}

/** A view from the counters and limits a script returned, read at `readAt`. */
export function viewOf(reply: number[], readAt: number): QuotaView {
  const [today, thisMonth, thisHour, daily, monthly, spike] = reply.map(Number);
  return { today, thisMonth, thisHour, daily, monthly, spike, readAt };
}
