/**
 * Where a person's identifiers are still stored: the whole test database, read by a real
 * `pg_dump` (data only), and every Redis key under the test app's prefix, read by type. For the
 * erasure tests: after erasing, none of the person's identifiers may be found, while another
 * person's still are (which also shows that the search can find something).
 */
import { execFile } from 'node:child_process';
import { Redis } from 'ioredis';
import { testDatabaseUrl, TEST_REDIS_URL } from './test-env';

export const PG_DUMP = process.env.PG_DUMP ?? '/usr/lib/postgresql/15/bin/pg_dump';

/** The data of the whole test database, as `pg_dump --data-only` writes it. */
export function dumpDatabase(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      PG_DUMP,
      ['--data-only', '--no-owner', '--dbname', testDatabaseUrl()],
      { maxBuffer: 512 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`pg_dump failed: ${stderr || error.message}`)) : resolve(stdout)),
    );
  });
}

/** Every key under `prefix` with what it holds, as text: strings, hashes, lists, sets, zsets and streams. */
export async function dumpRedis(prefix: string): Promise<string> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const lines: string[] = [];
    let cursor = '0';
    let keys = 0;
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
      cursor = next;
      for (const key of found) {
        keys++;
        lines.push(`key ${key}`, ...(await valuesOf(redis, key)));
      }
    } while (cursor !== '0');
    if (keys === 0) throw new Error(`no Redis key under ${prefix}: the scan would prove nothing`);
    return lines.join('\n');
  } finally {
    redis.disconnect();
  }
}

async function valuesOf(redis: Redis, key: string): Promise<string[]> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return [(await redis.get(key)) ?? ''];
    case 'hash':
      return Object.entries(await redis.hgetall(key)).flat();
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, 0, -1);
    case 'stream':
      return (await redis.xrange(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]);
    case 'none':
      return [];
    default:
      throw new Error(`Redis key ${key} has a type this scan does not read: ${type}`);
  }
}

/** Which of `identifiers` occur in `text` (any case). */
export function foundIn(text: string, identifiers: readonly string[]): string[] {
  const lower = text.toLowerCase();
  return identifiers.filter((identifier) => lower.includes(identifier.toLowerCase()));
}

/** A 32-hex-digit user hash as PostgreSQL prints the uuid it is stored as. */
export function asUuid(hash: string): string {
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20)}`;
}

/**
 * Where each of `identifiers` stands in a dump: the dump's line, cut to 300 characters, under the
 * `COPY <table>` (or Redis key) line it belongs to, so that a failure names the table that kept it.
 */
export function whereFound(text: string, identifiers: readonly string[]): string[] {
  const found: string[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('COPY ') || line.startsWith('key ')) section = line.slice(0, 120);
    const lower = line.toLowerCase();
    for (const identifier of identifiers) {
      if (lower.includes(identifier.toLowerCase())) found.push(`${identifier} in ${section}: ${line.slice(0, 300)}`);
    }
  }
  return found;
}
