import type { RedisClient } from './redis-client';

/**
 * The Lua functions of every counter of a fixed window (a minute, an hour, a day, a month, or a
 * window that starts with its first count): the limits of ingest, sessions, sign-in and the status
 * pages. A script that does more in the same atomic call (ingest's quotas and spike protection, the
 * session apply) starts with this text and calls them; the others go through WindowCounters.
 *
 * - `window_add(key, amount, ttl)`: adds `amount` to the counter; a counter it creates (or finds at
 *   zero) expires in `ttl` ms. Returns the count.
 * - `window_count(windows, amount)`: counts `amount` in each window `{key, limit, ttl}` in turn (a
 *   limit of 0 is off) until one passes its limit: that one keeps the count (a refused request still
 *   counts, so a flood stays refused), the later ones are not counted. Returns the window's position
 *   (0: none passed), how far over its limit it is, and the ms it has left.
 * - `window_take(key, amount, limit, ttl)`: counts as much of `amount` as the limit leaves room for;
 *   the rest is not counted. Returns how many were taken.
 * - `window_give_back(key, amount)`: takes up to `amount` back off the counter, never below zero and
 *   never from a counter that is gone (a decrement would recreate it without expiry). Returns how
 *   many were given back.
 */
export const WINDOW_LUA = `
local function window_add(key, amount, ttl)
  local count = redis.call('INCRBY', key, amount)
  if count == tonumber(amount) then redis.call('PEXPIRE', key, ttl) end
  return count
end
local function window_count(windows, amount)
  for position, window in ipairs(windows) do
    local limit = tonumber(window[2])
    if limit > 0 then
      local count = window_add(window[1], amount, window[3])
      if count > limit then return position, count - limit, redis.call('PTTL', window[1]) end
    end
  end
  return 0, 0, 0
end
local function window_take(key, amount, limit, ttl)
  local room = tonumber(limit) - (tonumber(redis.call('GET', key)) or 0)
  local taken = math.max(0, math.min(tonumber(amount), room))
  if taken > 0 then window_add(key, taken, ttl) end
  return taken
end
local function window_give_back(key, amount)
  local back = math.min(tonumber(amount), tonumber(redis.call('GET', key)) or 0)
  if back > 0 then redis.call('DECRBY', key, back) end
  return back
end
`;

/**
 * WindowCounters' script. ARGV[1] names the operation, ARGV[2] the amount:
 * - `count`: KEYS the windows in order, then a limit and a TTL per window; returns
 *   {position, over, ms left} of window_count;
 * - `take`: KEYS[1] the window, then its limit and TTL; returns {taken};
 * - `give back`: KEYS the counters; returns {given back in all}.
 */
const WINDOW_COUNTERS_SCRIPT = `${WINDOW_LUA}
local operation = ARGV[1]
local amount = ARGV[2]
if operation == 'count' then
  local windows = {}
  for i = 1, #KEYS do windows[i] = {KEYS[i], ARGV[2 * i + 1], ARGV[2 * i + 2]} end
  return {window_count(windows, amount)}
end
if operation == 'take' then return {window_take(KEYS[1], amount, ARGV[3], ARGV[4])} end
local back = 0
for i = 1, #KEYS do back = back + window_give_back(KEYS[i], amount) end
return {back}
`;

/** A fixed window's counter: its key, its limit (0: none), and how long a counter it creates lives. */
export interface CountedWindow {
  key: string;
  limit: number;
  ttlMs: number;
}

/** What counting in windows came to. */
export interface WindowVerdict {
  /** The index of the window whose limit the count passed (the later ones were not counted); none: within them all. */
  refusedBy?: number;
  /** How far over that window's limit its count is (1: the first count past it). */
  over: number;
  /** The milliseconds that window has left. */
  msLeft: number;
}

type WindowCommand = (numberOfKeys: number, ...args: Array<string | number>) => Promise<number[]>;

const COMMAND = 'windowCounters';

/**
 * Counters of fixed windows in Redis, one script call each, shared by every instance. The keys of
 * one call must share a Redis Cluster slot (a hash tag). What to do when Redis fails (fail open, or
 * refuse) is the caller's: every method rejects then.
 */
export class WindowCounters {
  constructor(private readonly redis: RedisClient) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { lua: WINDOW_COUNTERS_SCRIPT });
  }

  /**
   * Counts `amount` in each window in turn until one passes its limit: that one keeps the count (a
   * refused attempt still counts), the later ones are not counted.
   */
  async count(windows: CountedWindow[], amount = 1): Promise<WindowVerdict> {
    const [position, over, msLeft] = await this.call(
      windows.map((window) => window.key),
      'count',
      amount,
      ...windows.flatMap((window) => [window.limit, window.ttlMs]),
    );
    return position === 0 ? { over: 0, msLeft: 0 } : { refusedBy: position - 1, over, msLeft };
  }

  /** Counts as much of `amount` as the window's limit has room for; the rest is not counted. Returns how many. */
  async take(window: CountedWindow, amount: number): Promise<number> {
    const [taken] = await this.call([window.key], 'take', amount, window.limit, window.ttlMs);
    return taken;
  }

  /** Takes `amount` back off each counter: never below zero, never from a counter that is gone. */
  async giveBack(keys: string[], amount = 1): Promise<void> {
    await this.call(keys, 'give back', amount);
  }

  private async call(keys: string[], ...args: Array<string | number>): Promise<number[]> {
    const command = (this.redis as unknown as Record<typeof COMMAND, WindowCommand>)[COMMAND];
    const reply = await command.call(this.redis, keys.length, ...keys, ...args);
    return reply.map(Number);
  }
}
