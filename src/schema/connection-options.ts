import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

/** No query of the service runs this long; one that does waits on a server that is gone. */
export const QUERY_TIMEOUT_MS = 30_000;

/**
 * How to reach the database, without the entities or the migrations: for a process that loads only
 * the entities it uses (the command line, with autoLoadEntities) or only the migrations.
 */
export function connectionOptions(databaseUrl: string): PostgresConnectionOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    extra: {
      max: 20,
      connectionTimeoutMillis: 5_000,
      // A database that stops answering (a partition, a hung server) rather than refusing
      // connections: the client gives up after this, so requests get their 503 and the digest its
      // pause instead of waiting for TCP to notice, and keepalives find dead pooled connections.
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
  };
}
