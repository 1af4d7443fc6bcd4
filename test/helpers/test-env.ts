/**
 * The throwaway database of this e2e run: global-setup names it after the Jest process and creates
 * it, so concurrent runs never share (or drop) each other's data.
 */
export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is set by test/helpers/global-setup.ts');
  return url;
}

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
