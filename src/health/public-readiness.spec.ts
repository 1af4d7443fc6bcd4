import type { ReadinessView } from './dto/readiness.response';
import { publicReadiness } from './public-readiness';

describe('publicReadiness', () => {
  it('keeps the statuses and leaves out the reasons, the queues and the workers', () => {
    const view: ReadinessView = {
      status: 'degraded',
      database: 'connected',
      redis: 'connected',
      degraded: ['PostgreSQL refuses writes: connect ECONNREFUSED 10.0.0.5:5432'],
      checks: {
        database_writes: { status: 'refused', error: 'connect ECONNREFUSED 10.0.0.5:5432' },
        redis_writes: { status: 'ok' },
        digest: {
          status: 'paused',
          oldest_waiting_seconds: 12,
          threshold_seconds: 300,
          paused_reason: 'since 2026-01-01T00:00:00Z: worker-7:4242 saw SQLSTATE 25006',
        },
      },
      digest_backlog: 3,
      digest_failed: 0,
      alerts_failed: 0,
      workers: [{ id: 'worker-7:4242:abcd1234', seen_at: '2026-01-01T00:00:00Z', last_job_at: null }],
      digest_last_job_at: null,
    };
    const shown = publicReadiness(view);
    expect(shown).toEqual({
      status: 'degraded',
      database: 'connected',
      redis: 'connected',
      checks: {
        database_writes: { status: 'refused' },
        redis_writes: { status: 'ok' },
        digest: { status: 'paused' },
      },
    });
    expect(JSON.stringify(shown)).not.toMatch(/worker-7|4242|10\.0\.0\.5/);
  });
});
