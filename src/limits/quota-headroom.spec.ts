import { acceptsInMemory, exactStretch, QUOTA_VIEW_FRESH_MS, QuotaView } from './quota-headroom';

const NOW = Date.parse('2031-05-04T10:20:00Z');
const view = (change: Partial<QuotaView> = {}): QuotaView => ({
  daily: -1,
  monthly: -1,
  spike: 0,
  today: 0,
  thisMonth: 0,
  thisHour: 0,
  readAt: NOW,
  ...change,
});

describe('acceptsInMemory', () => {
  it('needs a fresh view of the same hour', () => {
    expect(acceptsInMemory(undefined, 0, NOW)).toBe(false);
    expect(acceptsInMemory(view(), 0, NOW)).toBe(true);
    expect(acceptsInMemory(view(), 0, NOW + QUOTA_VIEW_FRESH_MS)).toBe(true);
    expect(acceptsInMemory(view(), 0, NOW + QUOTA_VIEW_FRESH_MS + 1)).toBe(false);
    // A clock that went back (another instance's, or a test's) cannot trust the view either.
    expect(acceptsInMemory(view(), 0, NOW - 1)).toBe(false);
    const lastMsOfHour = Date.parse('2031-05-04T10:59:59.999Z');
    expect(acceptsInMemory(view({ readAt: lastMsOfHour }), 0, lastMsOfHour + 1)).toBe(false);
  });

  it('stops at the last tenth of each limit, or its last thousand events', () => {
    expect(exactStretch(500)).toBe(1_000);
    expect(exactStretch(1_000_000)).toBe(100_000);
    // Daily quota of 100,000: in memory up to 90,000 counted, this process's unflushed events included.
    expect(acceptsInMemory(view({ daily: 100_000, today: 89_000 }), 999, NOW)).toBe(true);
    expect(acceptsInMemory(view({ daily: 100_000, today: 89_000 }), 1_000, NOW)).toBe(false);
    expect(acceptsInMemory(view({ monthly: 2_000_000, thisMonth: 1_799_999 }), 0, NOW)).toBe(true);
    expect(acceptsInMemory(view({ monthly: 2_000_000, thisMonth: 1_800_000 }), 0, NOW)).toBe(false);
    // The default spike limit (1,000 an hour) and every small quota: each event checked in Redis.
    expect(acceptsInMemory(view({ spike: 1_000 }), 0, NOW)).toBe(false);
    expect(acceptsInMemory(view({ daily: 0 }), 0, NOW)).toBe(false);
    expect(acceptsInMemory(view({ spike: 30_000, thisHour: 100 }), 0, NOW)).toBe(true);
  });
});
