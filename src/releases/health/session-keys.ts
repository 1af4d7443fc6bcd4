/**
 * The Redis keys of release health. They share the `{sessions}` hash tag, so that the script that
 * applies an envelope's updates, and the fold's rename, each touch keys of one Redis Cluster slot.
 *
 * - `live`: the hash ingest adds to: per bucket (hour, project, environment, release) the counters
 *   `s` sessions, `e` errored, `a` abnormal, `c` crashed, and per bucket and user hash `u` the
 *   worst class the user's sessions reached;
 * - `s:<project>:<sid>`: what was applied of one session (its class, the order of its last update,
 *   whether it ended), so that later updates move it between counters and resends change nothing;
 * - `us:<user hash>`: the sessions (`<project>:<sid>`) of one user, so that erasing the user finds
 *   their states (the hash names the project too);
 * - `rl:<project>:<m|h>:<window start>`: the session rate-limit counters;
 * - `quotas`: hash of each project's daily session quota (field: the project id; absent: none),
 *   published by the quotas settings (they live here, not in the project's limits hash, so that
 *   the apply script reads them in its own slot);
 * - `qd:<project>:<UTC day start>`: the session items accepted in that day, counted against it;
 * - `fold:<batch id>`, `folds`: live hashes a fold took, until their counts are in PostgreSQL.
 */
export function sessionKeys(prefix: string) {
  const base = `${prefix}:{sessions}`;
  return {
    base,
    live: `${base}:live`,
    folds: `${base}:folds`,
    batch: (batchId: string) => `${base}:fold:${batchId}`,
    session: (projectAndSid: string) => `${base}:s:${projectAndSid}`,
    userSessions: (userHash: string) => `${base}:us:${userHash}`,
    dailyQuotas: `${base}:quotas`,
    acceptedInDay: (projectId: number, dayStart: number) => `${base}:qd:${projectId}:${dayStart}`,
  };
}

const HOUR_MS = 3_600_000;
/** Release names and environments never hold a line break (session-items.ts refuses them). */
const SEPARATOR = '\n';

export interface BucketKey {
  hour: number;
  projectId: number;
  environment: string;
  release: string;
}

/** The part of a live field that names the bucket. */
export function bucketField(bucket: BucketKey): string {
  return [bucket.hour, bucket.projectId, bucket.environment, bucket.release].join(SEPARATOR);
}

export interface BucketCounts extends BucketKey {
  sessions: number;
  errored: number;
  abnormal: number;
  crashed: number;
}

export interface UserClass extends BucketKey {
  /** 32 hex digits: the keyed hash of the distinct id. */
  userHash: string;
  worst: number;
}

const COUNTERS: Record<string, keyof Pick<BucketCounts, 'sessions' | 'errored' | 'abnormal' | 'crashed'>> = {
  s: 'sessions',
  e: 'errored',
  a: 'abnormal',
  c: 'crashed',
};

/** A taken live hash as bucket counts and user classes; a field this code never wrote is skipped. */
export function readLiveFields(hash: Record<string, string>): {
  buckets: BucketCounts[];
  users: UserClass[];
} {
  const buckets = new Map<string, BucketCounts>();
  const users: UserClass[] = [];
  for (const [field, raw] of Object.entries(hash)) {
    const parts = field.split(SEPARATOR);
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) continue;
    const [kind, hour, projectId] = [parts[0], Number(parts[1]), Number(parts[2])];
    if (!Number.isSafeInteger(hour) || !Number.isSafeInteger(projectId)) continue;
    if (kind === 'u' && parts.length === 6 && /^[0-9a-f]{32}$/.test(parts[5])) {
      users.push({
        hour,
        projectId,
        environment: parts[3],
        release: parts[4],
        userHash: parts[5],
        worst: value,
      });
    } else if (Object.hasOwn(COUNTERS, kind) && parts.length === 5) {
      const key = parts.slice(1).join(SEPARATOR);
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = {
          hour,
          projectId,
          environment: parts[3],
          release: parts[4],
          sessions: 0,
          errored: 0,
          abnormal: 0,
          crashed: 0,
        };
        buckets.set(key, bucket);
      }
      bucket[COUNTERS[kind]] += value;
    }
  }
  return { buckets: [...buckets.values()], users };
}

export function hourStart(hour: number): Date {
  return new Date(hour * HOUR_MS);
}
