/**
 * Sessions in the chaos suite: a steady stream of session envelopes beside the events (each a
 * session's one update, `init: true` and its end, some of them crashed, a tenth sent twice), and
 * after every fault a check that every acknowledged update is counted, exactly once:
 *
 * - each acknowledged session has its state in Redis (it was applied), and
 * - what is counted (PostgreSQL's rows, plus what Redis holds that no fold has moved yet) is the
 *   sessions that were applied, by class: none lost, none twice. A session whose answer was lost
 *   (a timeout, a 503 after the script ran) may have been applied: it is counted when its state
 *   says so, and then exactly once.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import Redis from 'ioredis';
import { readLiveFields, sessionKeys } from '../../src/releases/health/session-keys';
import { query } from './db';
import { sleep } from './processes';

interface SentSession {
  sid: string;
  epoch: number;
  status: 'exited' | 'crashed';
  acked: boolean;
}

export interface SessionCheck {
  label: string;
  sent: number;
  acked: number;
  /** Acknowledged sessions without their state in Redis: lost. */
  lost: number;
  applied: { sessions: number; crashed: number };
  counted: { sessions: number; crashed: number };
  passed: boolean;
  /** Why the check could not be made. */
  error?: string;
}

/**
 * Each check closes an epoch: sessions sent after it carry the next epoch's release, so that the
 * check compares the closed epochs, whose requests have all settled, while the load goes on.
 */
const releaseOf = (epoch: number) => `chaos-app@${epoch}`;

/** Sessions only touch Redis at ingest: an answer that takes longer is not coming. */
const REQUEST_TIMEOUT_MS = 5_000;

export class SessionLoad {
  readonly sent: SentSession[] = [];
  epoch = 1;
  private running = false;
  private lanes: Promise<void>[] = [];
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  private readonly url: URL;

  constructor(
    url: string,
    private readonly headers: Record<string, string>,
    private readonly rate = 20,
  ) {
    this.url = new URL(url);
  }

  start(): void {
    this.running = true;
    const lanes = 2;
    const interval = (1000 * lanes) / this.rate;
    this.lanes = Array.from({ length: lanes }, async () => {
      while (this.running) {
        const started = performance.now();
        await this.sendOne();
        await sleep(Math.max(0, interval - (performance.now() - started)));
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.lanes);
    this.agent.destroy();
  }

  private async sendOne(): Promise<void> {
    const now = new Date().toISOString();
    const session: SentSession = {
      sid: randomUUID(),
      epoch: this.epoch,
      status: Math.random() < 0.2 ? 'crashed' : 'exited',
      acked: false,
    };
    this.sent.push(session);
    const body = [
      JSON.stringify({ sent_at: now }),
      JSON.stringify({ type: 'session' }),
      JSON.stringify({
        sid: session.sid,
        init: true,
        started: now,
        timestamp: now,
        status: session.status,
        errors: session.status === 'crashed' ? 1 : 0,
        attrs: { release: releaseOf(session.epoch), environment: 'chaos' },
      }),
    ].join('\n');
    for (let attempt = 0; attempt < (Math.random() < 0.1 ? 2 : 1); attempt++) {
      if ((await this.post(body)) === 200) session.acked = true;
    }
  }

  private post(body: string): Promise<number> {
    return new Promise((resolve) => {
      const request = httpRequest(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          path: this.url.pathname,
          method: 'POST',
          headers: { ...this.headers, 'Content-Length': String(Buffer.byteLength(body)) },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', () => resolve(0));
        },
      );
      request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy());
      request.on('error', () => resolve(0));
      request.end(body);
    });
  }
}

/**
 * What is counted of the project's sessions: folded rows, plus the live hash and the taken batches
 * no fold has recorded yet.
 */
async function counted(
  databaseUrl: string,
  redis: Redis,
  prefix: string,
  projectId: number,
  releases: string[],
) {
  const keys = sessionKeys(prefix);
  const folded = async () =>
    (
      await query<{ sessions: number; crashed: number }>(
        databaseUrl,
        `SELECT coalesce(sum(sessions), 0)::int AS sessions, coalesce(sum(crashed), 0)::int AS crashed
           FROM release_health_hourly WHERE project_id = $1 AND release = ANY($2)`,
        [projectId, releases],
      )
    )[0];
  // A fold between the two readings would count its batch twice or not at all: read again then.
  for (let attempt = 0; ; attempt++) {
    const before = await folded();
    // A batch folded whose clean-up failed (Redis out of memory refuses the MULTI) stays in the set
    // until the next fold finds it recorded: it is in PostgreSQL already, not pending.
    const taken = await redis.smembers(keys.folds);
    const recorded = new Set(
      (
        await query<{ id: string }>(
          databaseUrl,
          'SELECT batch_id::text AS id FROM release_health_folds WHERE batch_id::text = ANY($1)',
          [taken],
        )
      ).map((row) => row.id),
    );
    const hashes = [keys.live, ...taken.filter((id) => !recorded.has(id)).map((id) => keys.batch(id))];
    const pending = { sessions: 0, crashed: 0 };
    for (const key of hashes) {
      for (const bucket of readLiveFields(await redis.hgetall(key)).buckets) {
        if (bucket.projectId !== projectId || !releases.includes(bucket.release)) continue;
        pending.sessions += bucket.sessions;
        pending.crashed += bucket.crashed;
      }
    }
    const after = await folded();
    if ((before.sessions === after.sessions && before.crashed === after.crashed) || attempt >= 5) {
      return { sessions: after.sessions + pending.sessions, crashed: after.crashed + pending.crashed };
    }
  }
}

/** The check after a fault (see the file's comment); Redis and PostgreSQL must be up. */
export async function checkSessions(options: {
  label: string;
  load: SessionLoad;
  databaseUrl: string;
  redis: Redis;
  prefix: string;
  projectId: number;
}): Promise<SessionCheck> {
  const { load, redis, prefix, projectId } = options;
  // The epoch closes; its requests in flight settle (they time out before this).
  const closed = load.epoch++;
  await sleep(REQUEST_TIMEOUT_MS + 1_000);
  const sessions = load.sent.filter((session) => session.epoch <= closed);
  const releases = Array.from({ length: closed }, (_, index) => releaseOf(index + 1));
  const states: (string | null)[] = [];
  for (let i = 0; i < sessions.length; i += 1_000) {
    const chunk = sessions.slice(i, i + 1_000);
    const keys = chunk.map((s) => `${sessionKeys(prefix).base}:s:${projectId}:${s.sid.replace(/-/g, '')}`);
    states.push(...(await redis.mget(...keys)));
  }
  const applied = { sessions: 0, crashed: 0 };
  let lost = 0;
  sessions.forEach((session, index) => {
    const state = states[index];
    if (state === null) {
      if (session.acked) lost++;
      return;
    }
    applied.sessions++;
    if (state.startsWith('4:')) applied.crashed++;
  });
  const total = await counted(options.databaseUrl, redis, prefix, projectId, releases);
  return {
    label: options.label,
    sent: sessions.length,
    acked: sessions.filter((s) => s.acked).length,
    lost,
    applied,
    counted: total,
    passed: lost === 0 && total.sessions === applied.sessions && total.crashed === applied.crashed,
  };
}

export function describeSessionCheck(check: SessionCheck): string {
  return (
    `sessions after ${check.label}: ${check.passed ? 'ok' : 'FAIL'} — ${check.sent} sent, ${check.acked} acknowledged, ` +
    `${check.lost} acknowledged and lost; applied ${check.applied.sessions} (${check.applied.crashed} crashed), ` +
    `counted ${check.counted.sessions} (${check.counted.crashed} crashed)` +
    (check.error ? `; check failed: ${check.error}` : '')
  );
}
