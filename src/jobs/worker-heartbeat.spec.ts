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

describe('parseWorkerBeats: a paused digest', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('shows since when and why a worker waits for the database, and only while it does', () => {
    const beats = parseWorkerBeats(
      {
        waiting: JSON.stringify({
          seen: now - 1_000,
          lastJob: now - 40_000,
          paused: { since: now - 30_000, reason: 'could not extend file (SQLSTATE 53100)' },
        }),
        working: JSON.stringify({ seen: now - 1_000, lastJob: now - 500, paused: null }),
      },
      now,
    );
    expect(beats).toEqual([
      { id: 'working', seen_at: '2026-11-23T11:59:59.000Z', last_job_at: '2026-11-23T11:59:59.500Z' },
      {
        id: 'waiting',
        seen_at: '2026-11-23T11:59:59.000Z',
        last_job_at: '2026-11-23T11:59:20.000Z',
        digest_paused: {
          since: '2026-11-23T11:59:30.000Z',
          reason: 'could not extend file (SQLSTATE 53100)',
        },
      },
    ]);
  });

  it('takes a pause with no refusal for 40 s as over, though its worker has taken no job since', () => {
    const beats = parseWorkerBeats(
      {
        idle: JSON.stringify({
          seen: now - 1_000,
          lastJob: now - 120_000,
          paused: {
            since: now - 100_000,
            reason: 'could not extend file (SQLSTATE 53100)',
            last: now - 41_000,
          },
        }),
        waiting: JSON.stringify({
          seen: now - 1_000,
          lastJob: now - 120_000,
          paused: {
            since: now - 100_000,
            reason: 'could not extend file (SQLSTATE 53100)',
            last: now - 10_000,
          },
        }),
      },
      now,
    );
    expect(beats.find((beat) => beat.id === 'idle')?.digest_paused).toBeUndefined();
    expect(beats.find((beat) => beat.id === 'waiting')?.digest_paused).toEqual({
      since: '2026-11-23T11:58:20.000Z',
      reason: 'could not extend file (SQLSTATE 53100)',
    });
  });
});
