import type { DataSourceOptions } from 'typeorm';
import { connectionOptions } from './connection-options';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migration-list';

export { QUERY_TIMEOUT_MS } from './connection-options';
export { MIGRATIONS } from './migration-list';

/** The database with every entity and migration: what the application and the tools use. */
export function dataSourceOptions(databaseUrl: string): DataSourceOptions {
  return { ...connectionOptions(databaseUrl), entities: ENTITIES, migrations: MIGRATIONS };
}
