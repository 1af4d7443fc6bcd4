import fc from 'fast-check';
import { normaliseEvent } from '../digest/event-normaliser';
import { CountedEvent, foldPending, pendingDeltas, rollupDelta } from './rollup-delta';

const eventAt = (iso: string, extra: Record<string, unknown> = {}) => {
  const at = Date.parse(iso);
  return normaliseEvent({ timestamp: at / 1000, ...extra }, { eventId: '0'.repeat(32), receivedAt: at });
};

describe('rollupDelta', () => {
  it('sums a batch into one row per key, sorted', () => {
    const delta = rollupDelta([
      {
        projectId: 2,
        issueId: 9,
        event: eventAt('2026-05-01T10:59:00Z', { environment: 'prod', user: { id: 'a' } }),
      },
      {
        projectId: 2,
        issueId: 9,
        event: eventAt('2026-05-01T10:01:00Z', { environment: 'prod', user: { id: 'b' } }),
      },
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

  it('counts a release’s events per environment, and acceptance by hour of receipt', () => {
    const received = new Date('2026-05-03T08:20:00Z');
    const events: CountedEvent[] = [
      {
        projectId: 2,
        issueId: 9,
        event: eventAt('2026-05-01T10:00:00Z', { environment: 'prod', release: 'a@1' }),
        receivedAt: received,
      },
      {
        projectId: 2,
        issueId: 4,
        event: eventAt('2026-05-01T11:00:00Z', { environment: 'prod', release: 'a@1' }),
        receivedAt: received,
      },
      {
        projectId: 2,
        issueId: 4,
        event: eventAt('2026-05-01T12:00:00Z', { environment: 'staging', release: 'a@1' }),
      },
      { projectId: 2, issueId: 4, event: eventAt('2026-05-01T12:30:00Z', { release: 'a@1' }) },
    ];
    const delta = rollupDelta(events);
    expect(delta.releases).toEqual([
      {
        projectId: 2,
        version: 'a@1',
        environment: '',
        count: 1,
        first: new Date('2026-05-01T12:30:00Z'),
        last: new Date('2026-05-01T12:30:00Z'),
      },
      {
        projectId: 2,
        version: 'a@1',
        environment: 'prod',
        count: 2,
        first: new Date('2026-05-01T10:00:00Z'),
        last: new Date('2026-05-01T11:00:00Z'),
      },
      {
        projectId: 2,
        version: 'a@1',
        environment: 'staging',
        count: 1,
        first: new Date('2026-05-01T12:00:00Z'),
        last: new Date('2026-05-01T12:00:00Z'),
      },
    ]);
    // Received two days after they happened: counted in the hour of receipt; without, their own.
    expect(delta.accepted).toEqual([
      { projectId: 2, hour: new Date('2026-05-01T12:00:00Z'), count: 2 },
      { projectId: 2, hour: new Date('2026-05-03T08:00:00Z'), count: 2 },
    ]);
    const pending = pendingDeltas(events);
    const folded = foldPending(
      [...pending].map(([issueId, recorded]) => ({ issueId, projectId: 2, delta: recorded })),
    );
    expect(folded.releases).toEqual(delta.releases);
    expect(folded.accepted).toEqual(delta.accepted);
  });

  it('folds rows recorded before releases and receipt were kept: their one environment, their event hours', () => {
    const [[issueId, recorded]] = [
      ...pendingDeltas([
        {
          projectId: 2,
          issueId: 9,
          event: eventAt('2026-05-01T10:00:00Z', { environment: 'prod', release: 'a@1' }),
        },
      ]),
    ];
    const { received: _received, releases: _releases, ...old } = recorded;
    const folded = foldPending([{ issueId, projectId: 2, delta: old }]);
    expect(folded.releases).toMatchObject([{ version: 'a@1', environment: 'prod', count: 1 }]);
    expect(folded.accepted).toEqual([{ projectId: 2, hour: new Date('2026-05-01T10:00:00Z'), count: 1 }]);
  });

  it('is empty for an empty batch', () => {
    expect(rollupDelta([])).toEqual({
      issueHours: [],
      projectHours: [],
      tagValues: [],
      tagKeys: [],
      releases: [],
      accepted: [],
    });
  });

  it('folds recorded per-issue deltas of any split into batches into the delta of all events at once', () => {
    const event = fc.record({
      projectId: fc.integer({ min: 1, max: 3 }),
      issue: fc.integer({ min: 0, max: 5 }),
      minute: fc.integer({ min: 0, max: 6 * 60 }),
      environment: fc.constantFrom(undefined, 'prod', 'staging'),
      user: fc.constantFrom(undefined, 'a', 'b', 'c'),
      release: fc.constantFrom(undefined, '1.0', '2.0'),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1 }),
        (specs, sizes) => {
          // Each issue belongs to one project, as in the database.
          const events: CountedEvent[] = specs.map((spec) => ({
            projectId: spec.projectId,
            issueId: spec.projectId * 10 + spec.issue,
            event: eventAt(new Date(Date.UTC(2026, 4, 1) + spec.minute * 60_000).toISOString(), {
              ...(spec.environment ? { environment: spec.environment } : {}),
              ...(spec.user ? { user: { id: spec.user } } : {}),
              ...(spec.release ? { release: spec.release } : {}),
            }),
          }));
          const rows = [];
          let start = 0;
          for (let batchNumber = 0; start < events.length; batchNumber++) {
            const size = sizes[batchNumber % sizes.length];
            for (const [issueId, delta] of pendingDeltas(events.slice(start, start + size))) {
              // Through JSON, as the rows go through PostgreSQL's jsonb.
              rows.push({
                issueId,
                projectId: Math.floor(issueId / 10),
                delta: JSON.parse(JSON.stringify(delta)),
              });
            }
            start += size;
          }
          expect(foldPending(rows)).toEqual(rollupDelta(events));
        },
      ),
    );
  });

  it('takes project hours from the folded deltas only, so that an issue whose deltas are gone counts nowhere', () => {
    const pending = pendingDeltas([
      { projectId: 1, issueId: 5, event: eventAt('2026-05-01T10:00:00Z') },
      { projectId: 1, issueId: 6, event: eventAt('2026-05-01T10:30:00Z') },
    ]);
    const folded = foldPending([{ issueId: 6, projectId: 1, delta: pending.get(6)! }]);
    expect(folded.projectHours).toEqual([
      { id: 1, hour: new Date('2026-05-01T10:00:00Z'), environment: '', count: 1 },
    ]);
    expect(folded.tagValues.every((row) => row.issueId === 6)).toBe(true);
  });
});
