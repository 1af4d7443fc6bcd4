import type { RedisClient } from '../../redis/redis-client';
import { sessionKeys } from './session-keys';

/** Fields read per HSCAN round trip, keys deleted per DEL. */
const SCAN_COUNT = 5_000;
const DELETE_CHUNK = 500;

export interface SessionErasure {
  /** Users' entries removed from the live hash and from batches not yet folded. */
  userEntries: number;
  /** Per-session states deleted. */
  states: number;
}

/**
 * Removes from Redis what release health keeps of some users (by the keyed hashes of their distinct
 * ids, see UserHasher): their entries in the live hash and in the batches a fold took and has not
 * finished, and the states of their sessions, found through each user's index (`us:<hash>`, written
 * by the script that applies the updates). Every key has the `{sessions}` hash tag: on a Redis
 * Cluster every command here goes to the one node of that slot, and no command spans two slots.
 *
 * Counts still to be folded keep their sessions: only who they were is removed. A session whose
 * state is deleted and that the SDK updates again counts as a new one.
 *
 * `dryRun` finds and counts the same entries and states without deleting them (the erasure's preview).
 */
export async function eraseSessionUsers(
  redis: RedisClient,
  prefix: string,
  userHashes: readonly string[],
  { dryRun = false }: { dryRun?: boolean } = {},
): Promise<SessionErasure> {
  const keys = sessionKeys(prefix);
  const wanted = new Set(userHashes);
  const result: SessionErasure = { userEntries: 0, states: 0 };
  if (wanted.size === 0) return result;
  for (const userHash of wanted) {
    const index = keys.userSessions(userHash);
    const sessions = await redis.smembers(index);
    for (let start = 0; start < sessions.length; start += DELETE_CHUNK) {
      const chunk = sessions.slice(start, start + DELETE_CHUNK).map((session) => keys.session(session));
      result.states += dryRun ? await redis.exists(...chunk) : await redis.del(...chunk);
    }
    if (!dryRun) await redis.del(index);
  }
  // The live hash first, then the batches listed after it: a fold that renames the live hash
  // meanwhile records its batch in `folds` in the same step, so the batch is read here.
  result.userEntries += await removeUserFields(redis, keys.live, wanted, dryRun);
  for (const batchId of await redis.smembers(keys.folds)) {
    result.userEntries += await removeUserFields(redis, keys.batch(batchId), wanted, dryRun);
  }
  return result;
}

/** Deletes the user fields (`u\n<bucket>\n<user hash>`) of the wanted users from one hash (`dryRun`: counts them). */
async function removeUserFields(
  redis: RedisClient,
  hash: string,
  wanted: ReadonlySet<string>,
  dryRun: boolean,
): Promise<number> {
  const fields: string[] = [];
  let cursor = '0';
  do {
    const [next, entries] = await redis.hscan(hash, cursor, 'MATCH', 'u\n*', 'COUNT', SCAN_COUNT);
    for (let i = 0; i < entries.length; i += 2) {
      const field = entries[i];
      if (wanted.has(field.slice(field.lastIndexOf('\n') + 1))) fields.push(field);
    }
    cursor = next;
  } while (cursor !== '0');
  if (dryRun) return fields.length;
  let removed = 0;
  for (let start = 0; start < fields.length; start += DELETE_CHUNK) {
    removed += await redis.hdel(hash, ...fields.slice(start, start + DELETE_CHUNK));
  }
  return removed;
}
