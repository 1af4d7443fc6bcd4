import { Client } from 'pg';

/** One short-lived PostgreSQL connection per call: the suite's own connections must survive the outage. */
export async function query<T extends object>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `YYYY-MM-DD` of the UTC day of an instant, as partitions are named and bounded. */
export const utcDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

/** The name of a day's partition of `events` (or, with `event_parts`, of the event parts). */
export const partitionOf = (day: string, table: 'events' | 'event_parts' = 'events'): string =>
  `${table}_p${day.replace(/-/g, '')}`;
