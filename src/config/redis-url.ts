/** Where Redis is and how to sign in to it, as REDIS_URL and REDIS_CLUSTER say. */
export interface RedisTarget {
  /** The server, or the cluster's seed nodes (any of them is enough; the rest are discovered). */
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  db: number;
  tls: boolean;
}

/**
 * Reads `redis[s]://[user:password@]host[:port][,host[:port]…][/db]`. Several hosts are a Redis
 * Cluster's seed nodes, so they need `cluster`; a cluster only has database 0. Credentials and TLS
 * apply to every node. Throws an Error whose message names what is wrong (boot reports it as is).
 */
export function parseRedisUrl(url: string, cluster: boolean): RedisTarget {
  const match = /^(rediss?):\/\/([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/.exec(url.trim());
  if (!match) throw new Error('REDIS_URL must look like redis://host:port[/db]');
  const [, scheme, authority, path = ''] = match;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hosts = (at >= 0 ? authority.slice(at + 1) : authority).split(',');
  if (hosts.length > 1 && !cluster) {
    throw new Error(
      'REDIS_URL lists several hosts, which only a Redis Cluster takes: set REDIS_CLUSTER=true',
    );
  }
  const nodes = hosts.map((host) => {
    if (host === '' && hosts.length === 1) return { host: '127.0.0.1', port: 6379 };
    let parsed: URL;
    try {
      parsed = new URL(`redis://${host}`);
    } catch {
      throw new Error(`REDIS_URL has an invalid host "${host}"`);
    }
    if (!parsed.hostname || parsed.pathname !== '') {
      throw new Error(`REDIS_URL has an invalid host "${host}"`);
    }
    // IPv6 literals come back bracketed; sockets want the bare address.
    return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port || 6379) };
  });
  const db = path === '' || path === '/' ? 0 : Number(path.slice(1));
  if (!Number.isInteger(db) || db < 0 || !/^\/?\d*$/.test(path)) {
    throw new Error('REDIS_URL must end with a database number (/0, /1, …) or nothing');
  }
  if (cluster && db !== 0) {
    throw new Error(
      'REDIS_URL must not select a database with REDIS_CLUSTER=true: a Redis Cluster only has database 0',
    );
  }
  const credentials = userinfo ? new URL(`redis://${userinfo}localhost`) : undefined;
  return {
    nodes,
    username: credentials?.username ? decodeURIComponent(credentials.username) : undefined,
    password: credentials?.password ? decodeURIComponent(credentials.password) : undefined,
    db,
    tls: scheme === 'rediss',
  };
}
