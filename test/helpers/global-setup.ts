import { Client } from 'pg';
import { prepareDatabase } from '../../src/database/migrate';
import { TEST_DATABASE_URL } from './test-env';

/** Starts every e2e run from an empty database at the current schema, built by the real migrations. */
export default async function globalSetup(): Promise<void> {
  const url = new URL(TEST_DATABASE_URL);
  const database = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  await prepareDatabase(TEST_DATABASE_URL);
}
