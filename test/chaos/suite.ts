/**
 * What the chaos suite's faults share: the clock and log of the run, the phases (one per fault, with
 * what it noted and the broken promises it found), and the servers and service processes a fault
 * may break.
 */
import Redis from 'ioredis';
import type { QueueSettings } from '../../src/jobs/queue-layout';
import type { Cleanup } from '../helpers/cleanup';
import type { Postgres } from '../helpers/postgres-servers';
import type { LoadGenerator } from './load';
import type { AppProcess, RedisServer } from './processes';

export const startedAt = Date.now();

export const log = (message: string) =>
  console.log(`[+${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${message}`);

export const PHASE_NAMES = [
  'postgres',
  'worker',
  'redis',
  'retention',
  'api',
  'disk',
  'wal',
  'redis-memory',
] as const;
export type PhaseName = (typeof PHASE_NAMES)[number];

/**
 * The window from the start of the load to the first fault: its events are checked like a fault's,
 * so that one lost there does not go unnoticed. Not a fault, so not one of CHAOS_PHASES.
 */
export const STEADY_PHASE = 'steady';

export interface Phase {
  name: PhaseName | typeof STEADY_PHASE;
  label: string;
  /** When the phase began (epoch ms); it lasts until the next one begins. */
  startedAt: number;
  notes: string[];
  /** Broken promises found during the phase, besides lost or doubled events. */
  failures: string[];
  /** Why the fault was not injected: the phase is neither passed nor failed. */
  skipped?: string;
}

export interface Suite {
  cleanup: Cleanup;
  pg: Postgres;
  databaseUrl: string;
  redisServer: RedisServer;
  /** The suite's own connection to the service's Redis, for looking at the queues. */
  redis: Redis;
  queues: QueueSettings;
  api: AppProcess;
  worker: AppProcess;
  load: LoadGenerator;
  projectId: number;
  phases: Phase[];
}

/** Starts a phase: the load's requests from now on are counted in it. */
export function begin(suite: Suite, name: Phase['name'], label: string): Phase {
  const phase: Phase = { name, label, startedAt: Date.now(), notes: [], failures: [] };
  suite.phases.push(phase);
  suite.load.phase = name;
  log(`== ${label}`);
  return phase;
}

/** A phase whose fault cannot be injected here: reported as skipped, with the reason. */
export function skip(suite: Suite, name: PhaseName, label: string, reason: string): Phase {
  const phase: Phase = { name, label, startedAt: Date.now(), notes: [], failures: [], skipped: reason };
  suite.phases.push(phase);
  log(`== ${label}: SKIPPED (${reason})`);
  return phase;
}

export function note(phase: Phase, message: string): void {
  phase.notes.push(message);
  log(`   ${message}`);
}

export function fail(phase: Phase, failure: string): void {
  phase.failures.push(failure);
  log(`   FAILED: ${failure}`);
}
