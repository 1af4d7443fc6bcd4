import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { withDeadline } from '../common/deadline';
import { describeDatabaseError } from './database-errors';

/**
 * - `ok`: the upsert committed;
 * - `refused`: the server answered and refused it (read-only, out of disk or memory, a new
 *   connection that cannot write its cache file, a revoked grant, a lock or statement timeout);
 * - `unreachable`: this instance cannot use the database at all: no answer within the deadline
 *   (refused or lost connection, a partition), the server shutting down or starting up, or this
 *   instance's login or database refused (its own settings, so its own readiness).
 */
export type WriteProbeStatus = 'ok' | 'refused' | 'unreachable';

export interface WriteProbeResult {
  status: WriteProbeStatus;
  /** The error, with its SQLSTATE where there is one. */
  error?: string;
}

const PROBE_DEADLINE_MS = 2_000;
/** Readiness is public: however often it is asked, each instance writes at most once a second. */
const REUSE_FOR_MS = 1_000;

/** Errors that mean this instance cannot use the server, as opposed to a server that refused a write. */
const UNUSABLE_CODES = /^(08|57P0[1-4]|3D|28)/;

/**
 * Whether PostgreSQL takes a write now, by an upsert of the one row of `health_probe`. Cheap, but a
 * write: a SELECT succeeds on a standby and on a server that refuses every write. The statement runs
 * under its own short statement and lock timeouts, and one runs at a time: a slow server never fills
 * the pool with probes.
 *
 * A server whose data disk is full may still take this upsert, which rewrites its row in the page it
 * has; the digest meets that disk first, and its workers report it (WorkerHeartbeat).
 */
@Injectable()
export class DatabaseWriteProbe {
  /** The probe's statement, kept until it settles, whatever the deadline of those who asked. */
  private running: Promise<WriteProbeResult> | undefined;
  private latest: { at: number; result: WriteProbeResult } | undefined;

  constructor(private readonly dataSource: DataSource) {}

  async check(now = Date.now()): Promise<WriteProbeResult> {
    if (this.latest && now - this.latest.at < REUSE_FOR_MS) return this.latest.result;
    this.running ??= this.probe().finally(() => (this.running = undefined));
    let result: WriteProbeResult;
    try {
      result = await withDeadline(this.running, PROBE_DEADLINE_MS, 'no answer within 2 s');
    } catch (error) {
      result = { status: 'unreachable', error: (error as Error).message };
    }
    this.latest = { at: Date.now(), result };
    return result;
  }

  private async probe(): Promise<WriteProbeResult> {
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.query("SET LOCAL statement_timeout = '2s'");
        await manager.query("SET LOCAL lock_timeout = '1s'");
        await manager.query(
          `INSERT INTO health_probe (id, probed_at) VALUES (1, now())
           ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`,
        );
      });
      return { status: 'ok' };
    } catch (error) {
      return { status: usable(error) ? 'refused' : 'unreachable', error: describeDatabaseError(error) };
    }
  }
}

/** A server answered with an error of its own that leaves it usable by this instance. */
function usable(error: unknown): boolean {
  const record = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = record?.code ?? record?.driverError?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  // Anything else with a SQLSTATE came from a live server, even an outage-like refusal (53100).
  return !UNUSABLE_CODES.test(code);
}
