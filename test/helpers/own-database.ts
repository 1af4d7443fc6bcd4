import { Client } from 'pg';
import { prepareDatabase } from '../../src/schema/migrate';
import { testDatabaseUrl } from './test-env';

/**
 * A database of its own beside the run's shared one, built by the real migrations, for a test whose
 * apps move their clocks: apps that claim whatever is due by their clock must not meet other test
 * files' rows, nor others meet theirs. `drop()` removes it.
 */
export async function ownTestDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const shared = new URL(testDatabaseUrl());
  const name = `${shared.pathname.slice(1)}_${label}`;
  const url = new URL(shared);
  url.pathname = `/${name}`;
  const dropIt = async () => {
    const admin = new Client({ connectionString: shared.toString() });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  await dropIt();
  await prepareDatabase(url.toString());
  return { url: url.toString(), drop: dropIt };
}
