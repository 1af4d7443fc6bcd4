import { Client } from 'pg';
import { prepareDatabase } from '../../src/schema/migrate';

const BASE_URL = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function withAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: BASE_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** Starts every e2e run from an empty database of its own, built by the real migrations. */
export default async function globalSetup(): Promise<void> {
  const name = `error_tracker_test_${process.pid}`;
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  await prepareDatabase(url.toString());
  process.env.TEST_DATABASE_URL = url.toString();
}

export async function dropTestDatabase(): Promise<void> {
  const name = `error_tracker_test_${process.pid}`;
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
