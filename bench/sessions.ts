/**
 * Release health benchmark: `npm run bench:sessions` (events for BENCH_DURATION_S=15 s, sessions
 * for BENCH_SESSIONS_S=120 s, by default; BENCH_SKIP_BUILD=1 to reuse dist/). Starts the built server (`node dist/main.js`, APP_ROLE=api,
 * rate limits off, a bench database and a fresh Redis prefix), and from a separate load-generator
 * process, over BENCH_CONNECTIONS (default 64) keep-alive connections in a closed loop:
 *
 *   1. event envelopes (the @sentry/node exception fixture), for comparison in the same run;
 *   2. session envelopes, a realistic mix: browser page loads (`session`, `init: true`, a user of a
 *      pool of BENCH_USERS, default 1,000, so users come back), 1 in 8 followed by an update that
 *      ends it (exited, errored or crashed), and 1 in 20 a Node request aggregate (`sessions`, one
 *      bucket of 20–80 requests).
 *
 * Meanwhile the counts are folded into PostgreSQL once every BENCH_FOLD_EVERY_S (60) seconds, and
 * once at the end, by SessionFolder (the code the maintenance worker runs, here in this process):
 * updates folded per second of folding, and PostgreSQL rows written per update (a user's row is
 * written again only when its sessions got worse, so a minute's fold of returning users writes little). At the
 * end every count is checked against what the load generator had answered 200: sessions, errored,
 * crashed, distinct users and crashed users. Prints a table and writes bench/results/sessions.json.
 *
 * Usage of the same file as a child process: `sessions.ts load <json options>`.
 */
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChildProcess, execSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import {
  benchDatabase,
  deleteKeys,
  EXCEPTION_FIXTURE,
  freePort,
  REDIS_URL,
  ROOT,
  startApp,
  stop,
  waitForHttp,
} from './support';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
/** Two minutes by default, folded once a minute as the maintenance worker does. */
const SESSIONS_S = Number(process.env.BENCH_SESSIONS_S ?? 120);
/** The maintenance worker's fold interval. */
const FOLD_EVERY_S = Number(process.env.BENCH_FOLD_EVERY_S ?? 60);
const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const USERS = Number(process.env.BENCH_USERS ?? 1_000);
const RUN_ID = randomUUID().slice(0, 8);

interface LoadOptions {
  url: string;
  kind: 'events' | 'sessions';
  connections: number;
  durationS: number;
  warmupS: number;
  headers: Record<string, string>;
}

/** What the server acknowledged (200) of the sessions sent, counted here independently. */
interface Sent {
  sessions: number;
  errored: number;
  crashed: number;
  users: string[];
  crashedUsers: string[];
  /** Session items answered 200 (updates and aggregate items). */
  updates: number;
}

interface LoadResult {
  kind: LoadOptions['kind'];
  requests: number;
  ok: number;
  errors: number;
  rps: number;
  sent?: Sent;
}

// ---------------------------------------------------------------------------------------------
// Load generator (child process)

function eventFactory(): () => Buffer {
  const text = readFileSync(EXCEPTION_FIXTURE, 'utf8');
  const original = JSON.parse(text.split('\n')[0]).event_id as string;
  const [before, after] = [
    text.slice(0, text.indexOf(original)),
    text.slice(text.indexOf(original) + original.length),
  ];
  const prefix = randomBytes(8).toString('hex');
  let counter = 0;
  return () => Buffer.from(before + prefix + (counter++).toString(16).padStart(16, '0') + after);
}

/** A browser session this connection started and may end. */
interface OpenSession {
  sid: string;
  did: string;
  started: string;
  release: string;
}

function sessionFactory(tally: {
  sessions: number;
  errored: number;
  crashed: number;
  users: Set<string>;
  crashedUsers: Set<string>;
  updates: number;
}) {
  const header = () => JSON.stringify({ sent_at: new Date().toISOString() });
  /** Each envelope, and what counting it changes once it is answered 200. */
  return (open: OpenSession[]): { body: Buffer; onOk: () => void } => {
    const roll = Math.random();
    const now = new Date().toISOString();
    if (roll < 0.05) {
      const exited = 20 + Math.floor(Math.random() * 61);
      const errored = Math.floor(Math.random() * 3);
      const crashed = Math.random() < 0.3 ? 1 : 0;
      const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
      const payload = {
        attrs: { release: 'api@2.0.0', environment: 'production' },
        aggregates: [{ started: minute, exited, errored, crashed }],
      };
      return {
        body: Buffer.from(`${header()}\n{"type":"sessions"}\n${JSON.stringify(payload)}\n`),
        onOk: () => {
          tally.sessions += exited + errored + crashed;
          tally.errored += errored;
          tally.crashed += crashed;
          tally.updates++;
        },
      };
    }
    if (roll < 0.175 && open.length > 0) {
      const session = open.splice(Math.floor(Math.random() * open.length), 1)[0];
      const status = Math.random() < 0.2 ? 'crashed' : Math.random() < 0.5 ? 'errored' : 'exited';
      const payload = {
        sid: session.sid,
        did: session.did,
        init: false,
        started: session.started,
        timestamp: now,
        status,
        errors: status === 'exited' ? 0 : 1,
        attrs: { release: session.release, environment: 'production' },
      };
      return {
        body: Buffer.from(`${header()}\n{"type":"session"}\n${JSON.stringify(payload)}\n`),
        onOk: () => {
          tally.updates++;
          if (status === 'errored') tally.errored++;
          if (status === 'crashed') {
            tally.crashed++;
            tally.crashedUsers.add(session.did);
          }
        },
      };
    }
    const session: OpenSession = {
      sid: randomUUID(),
      did: `user-${Math.floor(Math.random() * USERS)}`,
      started: now,
      release: Math.random() < 0.7 ? 'web@1.1.0' : 'web@1.0.0',
    };
    const payload = {
      sid: session.sid,
      did: session.did,
      init: true,
      started: now,
      timestamp: now,
      status: 'ok',
      errors: 0,
      attrs: { release: session.release, environment: 'production', user_agent: 'Mozilla/5.0 bench' },
    };
    return {
      body: Buffer.from(`${header()}\n{"type":"session"}\n${JSON.stringify(payload)}\n`),
      onOk: () => {
        tally.sessions++;
        tally.updates++;
        tally.users.add(session.did);
        open.push(session);
      },
    };
  };
}

async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const url = new URL(options.url);
  const tally = {
    sessions: 0,
    errored: 0,
    crashed: 0,
    users: new Set<string>(),
    crashedUsers: new Set<string>(),
    updates: 0,
  };
  const nextEvent = eventFactory();
  const nextSessions = sessionFactory(tally);
  let [requests, ok, errors, measuring] = [0, 0, 0, false];
  const send = (open: OpenSession[]) =>
    new Promise<void>((resolve) => {
      const next =
        options.kind === 'events' ? { body: nextEvent(), onOk: () => undefined } : nextSessions(open);
      const request = httpRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...options.headers, 'Content-Length': String(next.body.length) },
        },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode === 200) next.onOk();
            if (measuring) {
              requests++;
              if (response.statusCode === 200) ok++;
              else errors++;
            }
            resolve();
          });
        },
      );
      request.on('error', () => {
        if (measuring) errors++;
        resolve();
      });
      request.end(next.body);
    });
  const runFor = async (seconds: number) => {
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        const open: OpenSession[] = [];
        while (performance.now() < end) await send(open);
      }),
    );
  };
  await runFor(options.warmupS);
  measuring = true;
  const started = performance.now();
  await runFor(options.durationS);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    kind: options.kind,
    requests,
    ok,
    errors,
    rps: Math.round(ok / elapsed),
    sent:
      options.kind === 'sessions'
        ? { ...tally, users: [...tally.users], crashedUsers: [...tally.crashedUsers] }
        : undefined,
  };
}

function load(options: LoadOptions): Promise<LoadResult> {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', __filename, 'load', JSON.stringify(options)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(output) as LoadResult) : reject(new Error(`load exited ${code}`)),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The fold, as the maintenance worker runs it

async function openFolder(databaseUrl: string, prefix: string) {
  const { validateEnvironment } = await import('../src/config/environment');
  const { ConfigModule } = await import('../src/config/config.module');
  const { AppConfig } = await import('../src/config/app-config');
  const { RedisModule } = await import('../src/redis/redis.module');
  const { dataSourceOptions } = await import('../src/schema/data-source-options');
  const { ReleaseHealthDataModule } = await import('../src/releases/health/release-health-data.module');
  const { SessionFolder } = await import('../src/releases/health/session-folder');
  const config = validateEnvironment({
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  });
  @Module({})
  class FoldBenchModule {}
  const app = await NestFactory.createApplicationContext(
    {
      module: FoldBenchModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (appConfig: InstanceType<typeof AppConfig>) =>
            dataSourceOptions(appConfig.DATABASE_URL),
        }),
        RedisModule,
        ReleaseHealthDataModule,
      ],
    },
    { logger: false },
  );
  const folder = app.get(SessionFolder);
  return {
    fold: async () => {
      const started = performance.now();
      const report = await folder.fold();
      return { ...report, seconds: (performance.now() - started) / 1000 };
    },
    close: () => app.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Orchestration

async function orchestrate(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    console.log('building (nest build) …');
    execSync('npx nest build', { cwd: ROOT, stdio: 'inherit' });
  }
  const redis = new Redis(REDIS_URL);
  const prefix = `bench-${RUN_ID}`;
  const databaseUrl = await benchDatabase('error_tracker_bench', { fresh: false });
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const clientKey = randomUUID();
  const { rows } = await pg.query<{ id: number }>(
    'INSERT INTO projects (name, slug, client_key) VALUES ($1, $1, $2) RETURNING id',
    [`bench-sessions-${RUN_ID}`, clientKey],
  );
  const projectId = rows[0].id;
  const headers = {
    'Content-Type': 'application/x-sentry-envelope',
    'X-Sentry-Auth': `Sentry sentry_version=7, sentry_key=${clientKey.replace(/-/g, '')}, sentry_client=bench/1.0`,
  };
  const port = await freePort();
  let server: ChildProcess | undefined = startApp('api', {
    port,
    databaseUrl,
    redisPrefix: prefix,
    env: {
      MAX_EVENTS_PER_MINUTE: '0',
      MAX_EVENTS_PER_HOUR: '0',
      MAX_SESSIONS_PER_MINUTE: '0',
      MAX_SESSIONS_PER_HOUR: '0',
    },
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`);
    const url = `http://127.0.0.1:${port}/api/${projectId}/envelope/`;
    const common = { url, connections: CONNECTIONS, durationS: DURATION_S, warmupS: 2, headers };
    console.log(`events: closed loop, ${CONNECTIONS} connections, ${DURATION_S} s …`);
    const events = await load({ ...common, kind: 'events' });
    console.log(
      `sessions: closed loop, ${CONNECTIONS} connections, ${SESSIONS_S} s, folded every ${FOLD_EVERY_S} s …`,
    );
    const folder = await openFolder(databaseUrl, prefix);
    const folds: Awaited<ReturnType<typeof folder.fold>>[] = [];
    let loading = true;
    const sessionsRun = load({ ...common, durationS: SESSIONS_S, kind: 'sessions' }).finally(
      () => (loading = false),
    );
    // As the maintenance worker does: a fold a minute while sessions arrive, and one at the end.
    const folding = (async () => {
      for (let next = performance.now() + FOLD_EVERY_S * 1000; loading; await sleepMs(500)) {
        if (performance.now() < next) continue;
        next += FOLD_EVERY_S * 1000;
        folds.push(await folder.fold());
      }
    })();
    const sessions = await sessionsRun;
    await folding;
    await stop(server);
    server = undefined;
    folds.push(await folder.fold());
    await folder.close();
    const fold = {
      seconds: folds.reduce((sum, f) => sum + f.seconds, 0),
      fields: folds.reduce((sum, f) => sum + f.fields, 0),
      rows: folds.reduce((sum, f) => sum + f.rows, 0),
      perFold: folds.map((f) => ({
        fields: f.fields,
        rows: f.rows,
        seconds: Math.round(f.seconds * 1000) / 1000,
      })),
    };
    const sent = sessions.sent!;
    const {
      rows: [stored],
    } = await pg.query<{ sessions: number; errored: number; crashed: number }>(
      `SELECT coalesce(sum(sessions), 0)::int AS sessions, coalesce(sum(errored), 0)::int AS errored,
              coalesce(sum(crashed), 0)::int AS crashed
         FROM release_health_hourly WHERE project_id = $1`,
      [projectId],
    );
    const {
      rows: [users],
    } = await pg.query<{ users: number; crashed_users: number }>(
      `SELECT count(DISTINCT user_hash)::int AS users, count(DISTINCT user_hash) FILTER (WHERE worst = 4)::int AS crashed_users
         FROM release_health_users WHERE project_id = $1`,
      [projectId],
    );
    const checks = {
      sessions: [stored.sessions, sent.sessions],
      errored: [stored.errored, sent.errored],
      crashed: [stored.crashed, sent.crashed],
      users: [users.users, sent.users.length],
      crashed_users: [users.crashed_users, sent.crashedUsers.length],
    };
    const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
    const result = {
      connections: CONNECTIONS,
      durationS: { events: DURATION_S, sessions: SESSIONS_S },
      eventEnvelopesPerS: events.rps,
      sessionEnvelopesPerS: sessions.rps,
      ratio: round(sessions.rps / events.rps),
      errors: { events: events.errors, sessions: sessions.errors },
      updates: sent.updates,
      sessionsCounted: sent.sessions,
      fold: { seconds: round(fold.seconds, 3), fields: fold.fields, rows: fold.rows, folds: fold.perFold },
      updatesFoldedPerS: Math.round(sent.updates / fold.seconds),
      rowsPerUpdate: round(fold.rows / sent.updates, 4),
      checks,
    };
    console.table({
      'event envelopes/s (ingest)': events.rps,
      'session envelopes/s (ingest)': `${sessions.rps} (${result.ratio} × events)`,
      'session updates sent (200)': `${sent.updates} (${sent.sessions} sessions)`,
      'folds (seconds each)': fold.perFold.map((f) => f.seconds).join(', '),
      'updates folded/s (one worker)': result.updatesFoldedPerS,
      'PostgreSQL rows written': fold.rows,
      'rows per update': result.rowsPerUpdate,
    });
    const wrong = Object.entries(checks).filter(([, [got, want]]) => got !== want);
    for (const [name, [got, want]] of Object.entries(checks))
      console.log(`check ${name}: stored ${got}, sent ${want}`);
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/sessions.json'), JSON.stringify(result, null, 2));
    if (wrong.length > 0 || sessions.errors > 0) {
      console.error(
        `counts differ: ${wrong.map(([name]) => name).join(', ') || `${sessions.errors} session requests failed`}`,
      );
      process.exitCode = 1;
    } else {
      console.log('every count matches what was answered 200');
    }
  } finally {
    if (server) await stop(server);
    await deleteKeys(redis, `${prefix}:*`);
    await pg.query('DELETE FROM projects WHERE id = $1', [projectId]);
    await pg.end();
    redis.disconnect();
  }
}

if (process.argv[2] === 'load') {
  runLoad(JSON.parse(process.argv[3]) as LoadOptions).then(
    (result) => process.stdout.write(JSON.stringify(result)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  orchestrate().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
