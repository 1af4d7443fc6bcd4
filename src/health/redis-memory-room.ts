/**
 * How much room Redis has left under `maxmemory`, from `INFO memory`. Pure logic, for the write
 * probe: Redis admits a write while its used memory, the command's own bytes included, stays under
 * `maxmemory`, so a Redis a few kilobytes short takes a short probe and refuses every job ingest
 * writes (events of up to a megabyte, several to a job).
 */

/** The room one ingest write may need: an event's own limit (1 MiB, MAX_EVENT_BYTES in ingest). */
export const INGEST_WRITE_ROOM_BYTES = 1024 * 1024;

export interface RedisMemory {
  usedBytes: number;
  /** 0: no limit. */
  maxBytes: number;
  policy: string;
}

/** The fields of `INFO memory` the probe needs, or null when the answer lacks them. */
export function parseRedisMemory(info: string): RedisMemory | null {
  const field = (name: string) => new RegExp(`^${name}:(.*?)\\s*$`, 'm').exec(info)?.[1];
  const used = Number(field('used_memory'));
  const max = Number(field('maxmemory'));
  if (!Number.isFinite(used) || !Number.isFinite(max) || field('used_memory') === undefined) return null;
  return { usedBytes: used, maxBytes: max, policy: field('maxmemory_policy') ?? 'noeviction' };
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Why Redis would refuse ingest's next write for lack of memory, in Redis' words first (`OOM …`),
 * or null when it has room, has no limit, or evicts every kind of key to make room (`allkeys-*`).
 */
export function memoryRefusal(memory: RedisMemory, roomBytes = INGEST_WRITE_ROOM_BYTES): string | null {
  if (memory.maxBytes === 0 || memory.policy.startsWith('allkeys-')) return null;
  const left = memory.maxBytes - memory.usedBytes;
  if (left >= roomBytes) return null;
  return (
    `OOM used memory ${mebibytes(memory.usedBytes)} of maxmemory ${mebibytes(memory.maxBytes)} ` +
    `(${memory.policy}): less than ${mebibytes(roomBytes)} left, the size of one event`
  );
}
