import { tlsWarningDetail, tlsWarningDue } from './tls-expiry';

describe('tlsWarningDue', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000);

  it('warns within the days, once per expiry, never when off', () => {
    expect(tlsWarningDue(inDays(5), now, 14, null)).toBe(true);
    expect(tlsWarningDue(inDays(15), now, 14, null)).toBe(false);
    expect(tlsWarningDue(inDays(5), now, 0, null)).toBe(false);
    expect(tlsWarningDue(inDays(5), now, 14, inDays(5))).toBe(false);
    expect(tlsWarningDue(inDays(6), now, 14, inDays(5))).toBe(true);
    expect(tlsWarningDue(null, now, 14, null)).toBe(false);
  });
});

describe('tlsWarningDetail', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  it('says when, in days', () => {
    expect(tlsWarningDetail(new Date('2026-01-11T12:00:00Z'), now)).toBe(
      'TLS certificate expires on 2026-01-11 (in 10 days)',
    );
    expect(tlsWarningDetail(new Date('2026-01-02T13:00:00Z'), now)).toBe(
      'TLS certificate expires on 2026-01-02 (in 1 day)',
    );
    expect(tlsWarningDetail(new Date('2026-01-01T18:00:00Z'), now)).toBe(
      'TLS certificate expires on 2026-01-01 (within a day)',
    );
    expect(tlsWarningDetail(new Date('2025-12-30T00:00:00Z'), now)).toBe(
      'TLS certificate expired on 2025-12-30',
    );
  });
});
