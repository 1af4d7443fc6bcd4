import type { MonitorFailure, MonitorRef } from './monitor-ref';

const REASONS: Record<MonitorFailure['reason'], string> = {
  missed: 'missed a check-in',
  timeout: 'timed out',
  error: 'reported an error',
  down: 'is down',
  tls_expiring: 'has a TLS certificate about to expire',
};

const MAX_LENGTH = 500;

/**
 * The issue's culprit line, which every alert sender shows: which monitor, what went wrong, and the
 * caller's details, e.g. `nightly-backup missed a check-in: No check-in expected at 10:05 UTC`.
 * It names the latest failure, so it is rewritten on each one.
 */
export function monitorFailureText(
  ref: Pick<MonitorRef, 'slug'>,
  failure: Pick<MonitorFailure, 'reason' | 'detail'>,
): string {
  const detail = failure.detail.trim();
  const text = `${ref.slug} ${REASONS[failure.reason]}${detail ? `: ${detail}` : ''}`;
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}
