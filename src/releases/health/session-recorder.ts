import { Inject, Injectable } from '@nestjs/common';
import { Batcher } from '../../common/batcher';
import { AppConfig } from '../../config/app-config';
import { REDIS, RedisClient } from '../../redis/redis.module';
import { WINDOW_LUA } from '../../redis/window-counters';
import { bucketField, sessionKeys } from './session-keys';
import { SessionClass, SessionRecord, worstClassOf } from './session-items';

/**
 * Applies the session records of several envelopes (those of concurrent requests), each
 * atomically, after counting it against its project's daily session quota and session rate limit
 * (nothing of an envelope is applied when either refuses it). KEYS: the live hash. ARGV: the key
 * base, minute limit, hour limit, minute window start, hour window start, minute TTL, hour TTL, new
 * sessions tracked per project and hour (0: no cap), UTC day start, day TTL; then per envelope a header of 8 slots (`E`, project id, items
 * to count, records that follow, padding) and its records of 8 slots each:
 *
 * - `u` (an update): state key, order, class, flags (`e` it ends the session, `i` its init update,
 *   `l` past the time a state is kept), state TTL ms, bucket, user field ('' for none); the state
 *   key is also added to its user's index (`us:<user hash>`, kept as long as its longest state),
 *   which erasing the user reads (session-erasure.ts);
 * - `a` (an aggregate bucket): its worst class (its user's), sessions, errored, abnormal, crashed,
 *   bucket, user field.
 *
 * State of a session: `<class>:<order>` while open, `<class>:<order>:e` once ended. An update
 * applies only when the session has not ended and its order is not before the state's (a copy that
 * arrives late changes nothing; one of the same order, an update made in the same millisecond, may
 * make it worse, and a resend is the same class again); the first update of a session counts it, and a later one
 * moves it to a worse class (the counter of its old class down, of its new class up): a session is
 * counted once, as the worst it reached. The user of a bucket keeps the worst class of its
 * sessions. Returns per envelope {0, 0, dropped} when applied, {1|2, over, 0} when the minute|hour
 * limit refused, {3, over, 0} when the daily quota did.
 *
 * The daily quota (hash `quotas`, field: the project; absent: none) is checked first and counts
 * only accepted items (counter `qd:<project>:<day start>`, kept for every project: the quotas API
 * shows it): an envelope it refuses uses up nothing, and one the rate limit refuses does not count
 * against the day.
 *
 * A new session gets a state only while its project has created fewer than the cap of states in the
 * current hour (counter `n:<project>:<hour window>`), and only when its start is recent enough for
 * the state to outlive the update. Otherwise it is counted without state, as Relay counts every
 * session: its init update counts it (with its class), an update that ends it counts its final
 * class, and any other update (an open session's errors, which only a state can count once) is
 * dropped, and counted in `dropped`.
 *
 * The `#!lua` line makes it a script Redis (7 and later) refuses whole when it is out of memory: a
 * script without it would run until its first refused write, leaving a session counted without its
 * state, and counted again when the SDK sends it anew. Every key it touches has the `{sessions}`
 * hash tag of KEYS[1]: one Redis Cluster slot. The windows are counted by the functions of WINDOW_LUA.
 */
const APPLY_SCRIPT = `#!lua${WINDOW_LUA}
local live = KEYS[1]
local base = ARGV[1]
local kinds = {'e', 'e', 'a', 'c'}
local function worse(field, class)
  if field == '' then return end
  local old = redis.call('HGET', live, field)
  if not old or tonumber(old) < class then redis.call('HSET', live, field, class) end
end
local function limited(project, quantity)
  local day = base .. ':qd:' .. project .. ':' .. ARGV[9]
  local quota = redis.call('HGET', base .. ':quotas', project)
  if quota then
    local accepted = tonumber(redis.call('GET', day) or '0') + quantity
    if accepted > tonumber(quota) then return 3, accepted - tonumber(quota) end
  end
  local windows = {
    {base .. ':rl:' .. project .. ':m:' .. ARGV[4], ARGV[2], ARGV[6]},
    {base .. ':rl:' .. project .. ':h:' .. ARGV[5], ARGV[3], ARGV[7]},
  }
  local window, over = window_count(windows, quantity)
  if window > 0 then return window, over end
  window_add(day, quantity, ARGV[10])
  return 0, 0
end
local function tracks(project)
  local cap = tonumber(ARGV[8])
  if cap == 0 then return true end
  return window_take(base .. ':n:' .. project .. ':' .. ARGV[5], 1, cap, ARGV[7]) == 1
end
local function untracked(i, class)
  local flags = ARGV[i + 4]
  local bucket = ARGV[i + 6]
  if string.find(flags, 'i', 1, true) then
    redis.call('HINCRBY', live, 's\\n' .. bucket, 1)
  elseif not string.find(flags, 'e', 1, true) then
    return 1
  end
  if class > 0 then redis.call('HINCRBY', live, kinds[class] .. '\\n' .. bucket, 1) end
  worse(ARGV[i + 7], class)
  return 0
end
local function apply(i, project)
  local kind = ARGV[i]
  if kind == 'a' then
    local bucket = ARGV[i + 6]
    redis.call('HINCRBY', live, 's\\n' .. bucket, ARGV[i + 2])
    if ARGV[i + 3] ~= '0' then redis.call('HINCRBY', live, 'e\\n' .. bucket, ARGV[i + 3]) end
    if ARGV[i + 4] ~= '0' then redis.call('HINCRBY', live, 'a\\n' .. bucket, ARGV[i + 4]) end
    if ARGV[i + 5] ~= '0' then redis.call('HINCRBY', live, 'c\\n' .. bucket, ARGV[i + 5]) end
    worse(ARGV[i + 7], tonumber(ARGV[i + 1]))
  else
    local key = base .. ':s:' .. ARGV[i + 1]
    local order = tonumber(ARGV[i + 2])
    local class = tonumber(ARGV[i + 3])
    local bucket = ARGV[i + 6]
    local state = redis.call('GET', key)
    if state then
      local old, oldOrder, ended = string.match(state, '^(%d):(%d+)(:?e?)$')
      if not old or ended ~= '' or order < tonumber(oldOrder) then return 0 end
      old = tonumber(old)
      if class > old then
        if old > 0 then redis.call('HINCRBY', live, kinds[old] .. '\\n' .. bucket, -1) end
        redis.call('HINCRBY', live, kinds[class] .. '\\n' .. bucket, 1)
      else
        class = old
      end
    else
      if string.find(ARGV[i + 4], 'l', 1, true) or not tracks(project) then return untracked(i, class) end
      redis.call('HINCRBY', live, 's\\n' .. bucket, 1)
      if class > 0 then redis.call('HINCRBY', live, kinds[class] .. '\\n' .. bucket, 1) end
    end
    local ended = string.find(ARGV[i + 4], 'e', 1, true)
    redis.call('SET', key, class .. ':' .. ARGV[i + 2] .. (ended and ':e' or ''), 'PX', ARGV[i + 5])
    worse(ARGV[i + 7], class)
    local user = string.match(ARGV[i + 7], '\\n(%x+)$')
    if user then
      local index = base .. ':us:' .. user
      redis.call('SADD', index, ARGV[i + 1])
      if redis.call('PTTL', index) < 0 then redis.call('PEXPIRE', index, ARGV[i + 5])
      else redis.call('PEXPIRE', index, ARGV[i + 5], 'GT') end
    end
  end
  return 0
end
local results = {}
local i = 11
while i <= #ARGV do
  local project = ARGV[i + 1]
  local count = tonumber(ARGV[i + 3])
  local verdict, over = limited(project, tonumber(ARGV[i + 2]))
  local first = i + 8
  local dropped = 0
  i = first + count * 8
  if verdict == 0 then
    for at = first, i - 1, 8 do dropped = dropped + apply(at, project) end
  end
  results[#results + 1] = verdict
  results[#results + 1] = over
  results[#results + 1] = dropped
end
return results
`;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const EXPIRY_SLACK_MS = 60_000;
/**
 * An ended session's state is kept this long, so that a resend of its last update changes nothing;
 * an open session's until this long after its start hour (page loads and app runs end within it;
 * a later update of the session is counted without its state, see APPLY_SCRIPT).
 */
export const ENDED_SESSION_TTL_MS = 24 * HOUR_MS;
export const OPEN_SESSION_TTL_MS = 24 * HOUR_MS;

type ApplyCommand = (live: string, ...args: (string | number)[]) => Promise<number[]>;

export type SessionRecordVerdict =
  /** `untracked`: updates dropped because their session has no state (see APPLY_SCRIPT). */
  | { applied: true; untracked: number }
  /** `day`: the project's daily session quota refused them. */
  | { applied: false; window: SessionLimitWindow; retryAfterSeconds: number; over: number };

export type SessionLimitWindow = 'minute' | 'hour' | 'day';

const WINDOWS: Record<number, SessionLimitWindow> = { 1: 'minute', 2: 'hour', 3: 'day' };

/** A record with the keyed hash of its user, ready to apply. */
export type HashedRecord = SessionRecord & { userHash?: string };

interface EnvelopeRecords {
  projectId: number;
  items: number;
  args: (string | number)[];
}

/** Envelopes of concurrent requests are applied by one script call, up to this many. */
const MAX_BATCH = 128;

/**
 * Applies the session records of envelopes to Redis at ingest (see APPLY_SCRIPT). The envelopes of
 * requests handled in the same turn of the event loop share one script call (as DigestProducer
 * shares queue writes); each request waits for the call that holds its envelope before it is
 * answered. A refusal of Redis rejects: the caller's 503.
 */
@Injectable()
export class SessionRecorder {
  private readonly keys: ReturnType<typeof sessionKeys>;
  readonly minuteLimit: number;
  readonly hourLimit: number;
  readonly trackedPerHour: number;
  private readonly batcher = new Batcher<EnvelopeRecords, [number, number, number]>(
    (batch) => this.apply(batch),
    {
      maxSize: MAX_BATCH,
      maxWaitMs: 0,
    },
  );

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    config: AppConfig,
  ) {
    this.keys = sessionKeys(config.REDIS_PREFIX);
    this.minuteLimit = config.MAX_SESSIONS_PER_MINUTE;
    this.hourLimit = config.MAX_SESSIONS_PER_HOUR;
    this.trackedPerHour = config.MAX_TRACKED_SESSIONS_PER_HOUR;
    if (!('applySessions' in this.redis)) {
      this.redis.defineCommand('applySessions', { numberOfKeys: 1, lua: APPLY_SCRIPT });
    }
  }

  /**
   * Counts `items` session items against the project's daily session quota and session limits
   * and, when they allow it,
   * applies the records.
   */
  async record(
    projectId: number,
    items: number,
    records: readonly HashedRecord[],
    now = Date.now(),
  ): Promise<SessionRecordVerdict> {
    const args: (string | number)[] = [];
    for (const record of records) args.push(...recordArgs(projectId, record, now));
    const [verdict, over, untracked] = await this.batcher.submit({ projectId, items, args });
    if (verdict === 0) return { applied: true, untracked };
    const window = WINDOWS[verdict];
    const length = window === 'minute' ? MINUTE_MS : window === 'hour' ? HOUR_MS : DAY_MS;
    const windowEnd = now - (now % length) + length;
    return {
      applied: false,
      window,
      retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      over,
    };
  }

  private async apply(batch: EnvelopeRecords[]): Promise<[number, number, number][]> {
    const now = Date.now();
    const minuteStart = now - (now % MINUTE_MS);
    const hourStart = now - (now % HOUR_MS);
    const dayStart = now - (now % DAY_MS);
    const args: (string | number)[] = [
      this.keys.base,
      this.minuteLimit,
      this.hourLimit,
      minuteStart,
      hourStart,
      minuteStart + MINUTE_MS - now + EXPIRY_SLACK_MS,
      hourStart + HOUR_MS - now + EXPIRY_SLACK_MS,
      this.trackedPerHour,
      dayStart,
      dayStart + DAY_MS - now + EXPIRY_SLACK_MS,
    ];
    for (const envelope of batch) {
      args.push('E', envelope.projectId, envelope.items, envelope.args.length / 8, '', '', '', '');
      for (const arg of envelope.args) args.push(arg);
    }
    const command = (this.redis as unknown as { applySessions: ApplyCommand }).applySessions;
    const results = await command.call(this.redis, this.keys.live, ...args);
    return batch.map((_, index) => [results[index * 3], results[index * 3 + 1], results[index * 3 + 2]]);
  }
}

function recordArgs(projectId: number, record: HashedRecord, now: number): (string | number)[] {
  const bucket = bucketField({ ...record, projectId });
  const userField = record.userHash === undefined ? '' : `u\n${bucket}\n${record.userHash}`;
  if (record.kind === 'aggregate') {
    return [
      'a',
      worstClassOf(record),
      record.sessions,
      record.errored,
      record.abnormal,
      record.crashed,
      bucket,
      userField,
    ];
  }
  const openUntil = (record.hour + 1) * HOUR_MS + OPEN_SESSION_TTL_MS;
  const ttl = record.ended ? ENDED_SESSION_TTL_MS : Math.max(MINUTE_MS, openUntil - now);
  const flags = (record.ended ? 'e' : '') + (record.init ? 'i' : '') + (openUntil <= now ? 'l' : '');
  return [
    'u',
    `${projectId}:${record.sid}`,
    record.order,
    record.sessionClass satisfies SessionClass,
    flags,
    ttl,
    bucket,
    userField,
  ];
}
