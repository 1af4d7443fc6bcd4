/** Percent of checks that passed, to three decimals; null without checks. */
export function uptimePercent(ok: number, checks: number): number | null {
  if (checks === 0) return null;
  return Math.round((ok * 100_000) / checks) / 1000;
}
