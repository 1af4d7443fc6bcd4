import type { ConnectionOptions } from 'bullmq';
import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import type { Environment } from '../config/environment';
import { parseRedisUrl, RedisTarget } from '../config/redis-url';

/** A single Redis or a Redis Cluster: both take the same commands, scripts and MULTIs. */
export type RedisClient = Redis | Cluster;

export type RedisSettings = Pick<Environment, 'REDIS_URL' | 'REDIS_CLUSTER'>;

/** How one connection behaves while Redis is away. */
export interface ConnectionTuning {
  /** Queue commands until Redis is back (workers), or fail them at once (request paths). */
  offlineQueue: boolean;
  /** null: retry a command across reconnects for as long as it takes (BullMQ's blocking reads need it). */
  maxRetriesPerRequest?: number | null;
  /** Fail a command that has no answer after this long (never on connections that block). */
  commandTimeout?: number;
  autoPipelining?: boolean;
}

const CONNECT_TIMEOUT_MS = 5_000;
const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2_000);

/**
 * Options of a connection to a single Redis (the shared client and BullMQ's). By default commands
 * fail fast while Redis is unreachable instead of piling up in memory: an ingest request must get
 * a 503 rather than wait for a reconnect that may never come.
 */
function singleOptions(target: RedisTarget, tuning: ConnectionTuning): RedisOptions {
  return {
    host: target.nodes[0].host,
    port: target.nodes[0].port,
    username: target.username,
    password: target.password,
    db: target.db,
    tls: target.tls ? {} : undefined,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy,
    enableOfflineQueue: tuning.offlineQueue,
    maxRetriesPerRequest: tuning.maxRetriesPerRequest ?? null,
    ...(tuning.commandTimeout !== undefined && { commandTimeout: tuning.commandTimeout }),
    ...(tuning.autoPipelining !== undefined && { enableAutoPipelining: tuning.autoPipelining }),
  };
}

/**
 * A single Redis's options as every connection starts from (commands fail fast while it is away),
 * for the tools that build a BullMQ worker or listener of their own.
 */
export function redisOptions(url: string): RedisOptions {
  return singleOptions(parseRedisUrl(url, false), { offlineQueue: false });
}

function clusterOptions(target: RedisTarget, tuning: ConnectionTuning): ClusterOptions {
  return {
    // Per node. Nodes never reconnect on their own: the cluster client refreshes its slot map and
    // reconnects (clusterRetryStrategy), so the node-level offline queue and retry are not ours to set.
    redisOptions: {
      username: target.username,
      password: target.password,
      tls: target.tls ? {} : undefined,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: tuning.maxRetriesPerRequest ?? null,
      commandTimeout: tuning.commandTimeout,
    },
    enableOfflineQueue: tuning.offlineQueue,
    enableAutoPipelining: tuning.autoPipelining ?? false,
    clusterRetryStrategy: retryStrategy,
    // Connect to nodes by the names they are given: a TLS certificate names the host, not the
    // address it resolves to (managed clusters such as ElastiCache need this).
    dnsLookup: (address, callback) => callback(null, address),
  };
}

/** A client for REDIS_URL: a Redis, or a Cluster when REDIS_CLUSTER is set. */
export function createRedisClient(settings: RedisSettings, tuning: ConnectionTuning): RedisClient {
  const target = parseRedisUrl(settings.REDIS_URL, settings.REDIS_CLUSTER);
  if (settings.REDIS_CLUSTER) return new Cluster(target.nodes, clusterOptions(target, tuning));
  return new Redis(singleOptions(target, tuning));
}

/** Closes a client, at once if it cannot say goodbye. */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  await client.quit().catch(() => client.disconnect());
}

/**
 * What BullMQ is given to connect with. For a single Redis, options: each Queue and Worker opens,
 * and closes, connections of its own. BullMQ cannot build a cluster client from options, so for a
 * cluster it gets a client, which BullMQ never closes: `release` does, once its queues are closed.
 */
export function bullConnection(
  settings: RedisSettings,
  tuning: ConnectionTuning,
): { connection: ConnectionOptions; release: () => Promise<void> } {
  if (!settings.REDIS_CLUSTER) {
    const options = singleOptions(parseRedisUrl(settings.REDIS_URL, false), tuning);
    return { connection: options, release: async () => undefined };
  }
  const cluster = createRedisClient(settings, tuning);
  // BullMQ listens for errors once the client is handed to a queue; until then nobody would.
  cluster.on('error', () => undefined);
  return { connection: cluster, release: () => closeRedisClient(cluster) };
}
