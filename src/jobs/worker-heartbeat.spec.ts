import { parseWorkerBeats } from './worker-heartbeat';

describe('parseWorkerBeats', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('lists the workers that reported in the last 30 s, most recently busy first', () => {
    const beats = parseWorkerBeats(
      {
        idle: JSON.stringify({ seen: now - 1_000, lastJob: null }),
        busy: JSON.stringify({ seen: now - 2_000, lastJob: now - 3_000 }),
        gone: JSON.stringify({ seen: now - 31_000, lastJob: now - 31_000 }),
        garbage: 'not json',
      },
      now,
    );
    expect(beats).toEqual([
      { id: 'busy', seen_at: '2026-11-23T11:59:58.000Z', last_job_at: '2026-11-23T11:59:57.000Z' },
      { id: 'idle', seen_at: '2026-11-23T11:59:59.000Z', last_job_at: null },
    ]);
  });

  it('copes with no hash at all', () => {
    expect(parseWorkerBeats(null, now)).toEqual([]);
  });
});
