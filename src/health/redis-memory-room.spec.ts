import { INGEST_WRITE_ROOM_BYTES, memoryRefusal, parseRedisMemory } from './redis-memory-room';

const info = (used: number, max: number, policy = 'noeviction') =>
  `# Memory\r\nused_memory:${used}\r\nused_memory_human:1M\r\nmaxmemory:${max}\r\nmaxmemory_human:2M\r\nmaxmemory_policy:${policy}\r\n`;

describe('room left in Redis under maxmemory', () => {
  it('reads used_memory, maxmemory and the policy from INFO memory', () => {
    expect(parseRedisMemory(info(1_000, 2_000, 'volatile-lru'))).toEqual({
      usedBytes: 1_000,
      maxBytes: 2_000,
      policy: 'volatile-lru',
    });
    expect(parseRedisMemory('# Memory\r\n')).toBeNull();
    expect(parseRedisMemory('used_memory:x\r\nmaxmemory:0\r\n')).toBeNull();
  });

  it('refuses when less than one event fits, in words that start as Redis says it', () => {
    const mib = 1024 * 1024;
    const full = parseRedisMemory(info(99 * mib + 1, 100 * mib))!;
    expect(memoryRefusal(full)).toBe(
      'OOM used memory 99.0 MiB of maxmemory 100.0 MiB (noeviction): less than 1.0 MiB left, the size of one event',
    );
    expect(memoryRefusal(parseRedisMemory(info(101 * mib, 100 * mib))!)).toMatch(/^OOM /);
    expect(memoryRefusal(parseRedisMemory(info(99 * mib, 100 * mib))!)).toBeNull();
    expect(INGEST_WRITE_ROOM_BYTES).toBe(mib);
  });

  it('has nothing to say without a limit, or when Redis evicts any key to make room', () => {
    expect(memoryRefusal(parseRedisMemory(info(5_000_000_000, 0))!)).toBeNull();
    expect(memoryRefusal(parseRedisMemory(info(200, 100, 'allkeys-lru'))!)).toBeNull();
    expect(memoryRefusal(parseRedisMemory(info(200, 100, 'volatile-ttl'))!)).toMatch(/^OOM /);
  });
});
