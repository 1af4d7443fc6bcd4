/**
 * Whether a certificate that expires at `expiresAt` should be warned about at `now`: within
 * `days` (0 turns the warning off), and not already warned about for this same expiry (a renewed
 * certificate has a new one).
 */
export function tlsWarningDue(
  expiresAt: Date | null,
  now: Date,
  days: number,
  warnedExpiry: Date | null,
): boolean {
  if (expiresAt === null || days <= 0) return false;
  if (expiresAt.getTime() - now.getTime() > days * 86_400_000) return false;
  return warnedExpiry === null || warnedExpiry.getTime() !== expiresAt.getTime();
}

/** The words of a certificate warning, as the monitor's issue shows them. */
export function tlsWarningDetail(expiresAt: Date, now: Date): string {
  const day = expiresAt.toISOString().slice(0, 10);
  const days = Math.floor((expiresAt.getTime() - now.getTime()) / 86_400_000);
  if (days < 0) return `TLS certificate expired on ${day}`;
  return `TLS certificate expires on ${day} (${days === 0 ? 'within a day' : days === 1 ? 'in 1 day' : `in ${days} days`})`;
}
