import { validateEnvironment } from '../config/environment';
import { parseRedisUrl } from './redis-url';

describe('parseRedisUrl', () => {
  it('reads a single Redis as before: host, port, credentials, database, TLS', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379', false)).toEqual({
      nodes: [{ host: '127.0.0.1', port: 6379 }],
      username: undefined,
      password: undefined,
      db: 0,
      tls: false,
    });
    expect(parseRedisUrl('rediss://app:s%40cret@redis.internal/3', false)).toEqual({
      nodes: [{ host: 'redis.internal', port: 6379 }],
      username: 'app',
      password: 's@cret',
      db: 3,
      tls: true,
    });
    expect(parseRedisUrl('redis://:pw@[::1]:7000', false)).toMatchObject({
      nodes: [{ host: '::1', port: 7000 }],
      password: 'pw',
    });
  });

  it('reads the seed nodes of a cluster, sharing credentials and TLS', () => {
    expect(parseRedisUrl('rediss://:pw@10.0.0.1:7000,10.0.0.2:7001,node-3', true)).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'node-3', port: 6379 },
      ],
      username: undefined,
      password: 'pw',
      db: 0,
      tls: true,
    });
  });

  it.each([
    [
      'redis://a:1,b:2',
      false,
      'REDIS_URL lists several hosts, which only a Redis Cluster takes: set REDIS_CLUSTER=true',
    ],
    [
      'redis://a:1/2',
      true,
      'REDIS_URL must not select a database with REDIS_CLUSTER=true: a Redis Cluster only has database 0',
    ],
    ['redis://a:1,:2', true, 'REDIS_URL has an invalid host ":2"'],
    ['redis://a:99999', false, 'REDIS_URL has an invalid host "a:99999"'],
    ['redis://a:1/x', false, 'REDIS_URL must end with a database number (/0, /1, …) or nothing'],
    ['http://a:1', false, 'REDIS_URL must look like redis://host:port[/db]'],
  ])('refuses %s (cluster: %s) with a message naming the problem', (url, cluster, message) => {
    expect(() => parseRedisUrl(url, cluster)).toThrow(message);
  });
});

describe('REDIS_CLUSTER at boot', () => {
  it('is off by default and takes the usual spellings of a boolean', () => {
    expect(validateEnvironment({}).REDIS_CLUSTER).toBe(false);
    expect(
      validateEnvironment({ REDIS_CLUSTER: 'true', REDIS_URL: 'redis://a:7000,b:7000' }).REDIS_CLUSTER,
    ).toBe(true);
  });

  it('stops the boot with one line on a bad value or a URL that does not fit', () => {
    expect(() => validateEnvironment({ REDIS_CLUSTER: 'maybe' })).toThrow(
      'Invalid configuration: REDIS_CLUSTER must be true or false',
    );
    expect(() => validateEnvironment({ REDIS_URL: 'redis://a:7000,b:7000' })).toThrow(
      'Invalid configuration: REDIS_URL lists several hosts, which only a Redis Cluster takes: set REDIS_CLUSTER=true',
    );
  });
});
