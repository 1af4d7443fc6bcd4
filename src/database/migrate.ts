import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabaseExists } from './ensure-database';

/**
 * Brings the database to the current schema. Several processes may start at once (api and worker
 * replicas): an advisory lock makes the others wait instead of racing on the same migration.
 */
export async function prepareDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabaseExists(databaseUrl);
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl), extra: { max: 1 } });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock(724011)');
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((migration) => migration.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock(724011)');
    }
  } finally {
    await dataSource.destroy();
  }
}
