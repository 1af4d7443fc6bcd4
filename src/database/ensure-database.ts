import { Client } from 'pg';

/**
 * Creates the configured database when it does not exist yet, by connecting to the server's
 * `postgres` maintenance database: this is what lets `npm start` work on a fresh machine.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const probe = new Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    // 3D000 = invalid_catalog_name: the server is up, the database is missing.
    if ((error as { code?: string }).code !== '3D000') throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    // 42P04 = duplicate_database: another process created it first.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await admin.end();
  }
  return true;
}
