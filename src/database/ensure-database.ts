import { Client } from 'pg';

/**
 * Creates the configured database when it does not exist yet, by connecting to the server's
 * `postgres` maintenance database: this is what lets `npm start` work on a fresh machine.
 *
 * Through PgBouncer this works when PgBouncer also routes `postgres` (a `*` entry, say); otherwise
 * the database has to be created on the server first, and the error says so.
 */
export async function ensureDatabaseExists(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const probe = new Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    if (!isMissingDatabase(error)) throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => undefined);
    throw new Error(
      `database "${database}" does not exist, and it could not be created: connecting to the maintenance ` +
        `database "postgres" at ${url.host} failed (${(error as Error).message}); create it on the PostgreSQL ` +
        'server (when DATABASE_URL points to PgBouncer, PgBouncer must route it too), then start again',
    );
  }
  try {
    await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    // Another process created it first: 42P04 (duplicate_database), or 23505 (unique_violation in
    // pg_database) when both got past the server's own check at the same time.
    const code = (error as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await admin.end();
  }
  return true;
}

/**
 * PostgreSQL says 3D000 (invalid_catalog_name). PgBouncer, which logs in to the server on the
 * client's behalf, passes the server's message on under its own 08P01.
 */
function isMissingDatabase(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  if (code === '3D000') return true;
  return code === '08P01' && /^database ".*" does not exist$/.test(message ?? '');
}
