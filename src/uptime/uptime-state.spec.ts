import { applyCheck, dueSlots, tlsWarningDetail, tlsWarningDue, UptimeState } from './uptime-state';

function run(checks: boolean[], failureThreshold: number, recoveryThreshold: number) {
  let state: UptimeState = { status: 'pending', consecutiveFailures: 0, consecutiveSuccesses: 0 };
  const transitions: string[] = [];
  for (const ok of checks) {
    const result = applyCheck(state, ok, { failureThreshold, recoveryThreshold });
    state = result.state;
    if (result.transition) transitions.push(result.transition);
  }
  return { state, transitions };
}

describe('applyCheck', () => {
  it('is up after the first success and down after one failure with thresholds of 1', () => {
    expect(run([true], 1, 1).state.status).toBe('up');
    expect(run([true, false], 1, 1)).toEqual({
      state: { status: 'down', consecutiveFailures: 1, consecutiveSuccesses: 0 },
      transitions: ['failed'],
    });
    expect(run([true, false, true], 1, 1).transitions).toEqual(['failed', 'recovered']);
  });

  it('waits for the failure threshold of consecutive failures, counted afresh after a success', () => {
    expect(run([false, false], 3, 1)).toMatchObject({ state: { status: 'pending' }, transitions: [] });
    expect(run([false, false, true, false, false], 3, 1).transitions).toEqual([]);
    expect(run([false, false, false], 3, 1).transitions).toEqual(['failed']);
    expect(run([false, false, false, false, false], 3, 1).transitions).toEqual(['failed']);
  });

  it('waits for the recovery threshold of consecutive successes', () => {
    expect(run([false, true, true], 1, 3)).toMatchObject({
      state: { status: 'down' },
      transitions: ['failed'],
    });
    expect(run([false, true, true, false, true, true, true], 1, 3).transitions).toEqual([
      'failed',
      'recovered',
    ]);
  });
});

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

describe('dueSlots', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

  it('runs the slot that is due and schedules the next', () => {
    expect(dueSlots(at(0), at(3), 60)).toEqual({ dueAt: at(0), nextDueAt: at(60) });
    expect(dueSlots(at(0), at(0), 60)).toEqual({ dueAt: at(0), nextDueAt: at(60) });
  });

  it('runs only the latest missed slot after an outage', () => {
    expect(dueSlots(at(0), at(610), 60)).toEqual({ dueAt: at(600), nextDueAt: at(660) });
  });
});
