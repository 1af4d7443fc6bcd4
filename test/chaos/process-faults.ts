/**
 * The chaos suite's faults that stop or kill a process: PostgreSQL stopped for longer than the
 * digest's retry budget, the worker SIGKILLed in the middle of a backlog, Redis restarted, the api
 * SIGKILLed during sends. Each runs under the steady load and notes what it saw (see run.ts).
 */
import { Client } from 'pg';
import { QueueName } from '../../src/common/queues';
import { queueKey } from '../../src/jobs/queue-layout';
import { query } from './db';
import { sleep } from './processes';
import { backlog, describeBacklog } from './queue-state';
import { begin, log, note, Suite } from './suite';

export async function postgresOutage(suite: Suite, outageSeconds: number): Promise<void> {
  const { pg, redis, queues } = suite;
  const phase = begin(suite, 'postgres', `1. PostgreSQL down ${outageSeconds} s`);
  await sleep(5_000);
  await pg.stop('fast');
  note(phase, 'PostgreSQL stopped (pg_ctl stop -m fast)');
  const until = Date.now() + outageSeconds * 1000;
  while (Date.now() < until) {
    await sleep(Math.min(30_000, until - Date.now()));
    const b = await backlog(redis, queues).catch(() => undefined);
    if (Date.now() < until && b) log(`   outage continues; backlog: ${describeBacklog(b)}`);
  }
  await pg.start();
  const b = await backlog(redis, queues).catch(() => undefined);
  note(phase, `PostgreSQL started again; backlog: ${b ? describeBacklog(b) : 'unknown'}`);
  await sleep(5_000);
}

export async function workerKill(suite: Suite, burst: number): Promise<void> {
  const { redis, queues, worker, load, databaseUrl, projectId } = suite;
  const phase = begin(suite, 'worker', '2. worker SIGKILL mid-batch');
  await sleep(2_000);
  worker.signal('SIGSTOP');
  const pausedAt = Date.now();
  await load.burst(burst, 16);
  await sleep(Math.max(0, 3_000 - (Date.now() - pausedAt)));
  const before = await backlog(redis, queues);
  const [{ n: storedBefore }] = await query<{ n: number }>(
    databaseUrl,
    'SELECT count(*)::int AS n FROM events WHERE project_id = $1',
    [projectId],
  );
  note(
    phase,
    `worker paused (SIGSTOP) while a burst of ${burst} arrived; backlog: ${describeBacklog(before)}`,
  );
  worker.signal('SIGCONT');
  const killAfterRows = Math.max(1, Math.min(300, Math.floor(before.wait / 10)));
  const deadline = Date.now() + 10_000;
  let evidence = '';
  const monitor = new Client({ connectionString: databaseUrl });
  await monitor.connect();
  try {
    while (Date.now() < deadline) {
      const [{ n }] = (
        await monitor.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [
          projectId,
        ])
      ).rows;
      const active = await redis.llen(queueKey(queues, QueueName.Digest, 'active'));
      // Well into the backlog (the worker at full concurrency), with jobs still in flight.
      if (n - storedBefore >= killAfterRows && active > 0) {
        evidence = `${n - storedBefore} rows committed since resume, ${active} jobs active`;
        break;
      }
      await sleep(5);
    }
  } finally {
    await monitor.end().catch(() => undefined);
  }
  await worker.kill();
  const after = await backlog(redis, queues);
  note(
    phase,
    `worker SIGKILLed ${Date.now() - pausedAt} ms after the pause: ${evidence || 'NO evidence of a batch in progress'}; backlog: ${describeBacklog(after)}`,
  );
  await sleep(2_000);
  await worker.start();
  note(phase, 'worker started again');
  await sleep(5_000);
}

export async function redisRestart(suite: Suite, downSeconds: number): Promise<void> {
  const { redis, queues, redisServer } = suite;
  const phase = begin(suite, 'redis', `3. Redis restart (down ${downSeconds} s)`);
  await sleep(5_000);
  const before = await backlog(redis, queues);
  await redisServer.shutdown();
  note(phase, `Redis shut down (SHUTDOWN, AOF flushed); backlog before: ${describeBacklog(before)}`);
  await sleep(downSeconds * 1000);
  await redisServer.start();
  await sleep(500);
  const after = await backlog(redis, queues).catch(() => undefined);
  note(phase, `Redis started again from its AOF; backlog: ${after ? describeBacklog(after) : 'unknown'}`);
  await sleep(10_000);
}

export async function apiKill(suite: Suite, downSeconds: number): Promise<void> {
  const { api } = suite;
  const phase = begin(suite, 'api', `5. api SIGKILL (down ${downSeconds} s)`);
  await sleep(5_000);
  await api.kill();
  note(phase, 'api SIGKILLed');
  await sleep(downSeconds * 1000);
  await api.start();
  note(phase, 'api started again');
  await sleep(8_000);
}
