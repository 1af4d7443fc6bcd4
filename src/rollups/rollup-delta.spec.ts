import { normaliseEvent } from '../digest/event-normaliser';
import { rollupDelta } from './rollup-delta';

const eventAt = (iso: string, extra: Record<string, unknown> = {}) => {
  const at = Date.parse(iso);
  return normaliseEvent({ timestamp: at / 1000, ...extra }, { eventId: '0'.repeat(32), receivedAt: at });
};

describe('rollupDelta', () => {
  it('sums a batch into one row per key, sorted', () => {
    const delta = rollupDelta([
      { projectId: 2, issueId: 9, event: eventAt('2026-05-01T10:59:00Z', { environment: 'prod', user: { id: 'a' } }) },
      { projectId: 2, issueId: 9, event: eventAt('2026-05-01T10:01:00Z', { environment: 'prod', user: { id: 'b' } }) },
      { projectId: 2, issueId: 4, event: eventAt('2026-05-01T11:00:00Z', { user: { id: 'a' } }) },
    ]);
    expect(delta.issueHours).toEqual([
      { id: 4, hour: new Date('2026-05-01T11:00:00Z'), environment: '', count: 1 },
      { id: 9, hour: new Date('2026-05-01T10:00:00Z'), environment: 'prod', count: 2 },
    ]);
    expect(delta.projectHours).toEqual([
      { id: 2, hour: new Date('2026-05-01T10:00:00Z'), environment: 'prod', count: 2 },
      { id: 2, hour: new Date('2026-05-01T11:00:00Z'), environment: '', count: 1 },
    ]);
    const users = delta.tagValues.filter((row) => row.key === 'user');
    expect(users.map((row) => [row.issueId, row.value, row.count])).toEqual([
      [4, 'id:a', 1],
      [9, 'id:a', 1],
      [9, 'id:b', 1],
    ]);
    const levels = delta.tagValues.find((row) => row.issueId === 9 && row.key === 'level');
    expect(levels).toMatchObject({
      value: 'error',
      count: 2,
      firstSeen: new Date('2026-05-01T10:01:00Z'),
      lastSeen: new Date('2026-05-01T10:59:00Z'),
    });
    expect(delta.tagKeys.filter((row) => row.issueId === 9)).toEqual([
      { issueId: 9, key: 'environment', total: 2 },
      { issueId: 9, key: 'level', total: 2 },
      { issueId: 9, key: 'user', total: 2 },
    ]);
  });

  it('is empty for an empty batch', () => {
    expect(rollupDelta([])).toEqual({ issueHours: [], projectHours: [], tagValues: [], tagKeys: [] });
  });
});
