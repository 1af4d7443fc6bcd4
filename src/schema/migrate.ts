import { DataSource, MigrationExecutor } from 'typeorm';
import { connectionOptions } from './connection-options';
import { MIGRATIONS } from './migration-list';
import { ensureDatabaseExists } from '../database/ensure-database';

const MIGRATION_LOCK = 724011;

/**
 * Brings the database to the current schema. Several processes may start at once (api and worker
 * replicas): an advisory lock makes the others wait instead of racing on the same migration.
 *
 * The lock is transaction-scoped and the pending migrations run inside that same transaction, so
 * this works through PgBouncer in transaction pooling mode, where a session lock would be taken on
 * one server connection, released (or not) on another, and left behind for whichever client gets
 * the first one next. One transaction also makes the run all-or-nothing: a failed migration leaves
 * the schema as it was. A migration therefore cannot opt out of the transaction (TypeORM refuses
 * one that sets `transaction`): `CREATE INDEX CONCURRENTLY` and the like do not belong here.
 */
export async function prepareDatabase(databaseUrl: string): Promise<string[]> {
  await ensureDatabaseExists(databaseUrl);
  const dataSource = new DataSource({
    ...connectionOptions(databaseUrl),
    migrations: MIGRATIONS,
    extra: { max: 1 },
  });
  await dataSource.initialize();
  const queryRunner = dataSource.createQueryRunner();
  try {
    await queryRunner.startTransaction();
    // Taken before the list of applied migrations is read: a process that waited here sees what
    // the one before it committed.
    await queryRunner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const executor = new MigrationExecutor(dataSource, queryRunner);
    executor.transaction = 'all';
    const applied = await executor.executePendingMigrations();
    await queryRunner.commitTransaction();
    return applied.map((migration) => migration.name);
  } catch (error) {
    if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await queryRunner.release();
    await dataSource.destroy();
  }
}
