import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { withDeadline } from '../common/deadline';
import { describeDatabaseError } from './database-errors';

/**
 * - `ok`: the upsert committed;
 * - `refused`: the server answered and refused it (read-only, out of disk or memory, a new
 *   connection that cannot write its cache file, a revoked grant);
 * - `unreachable`: no answer at all (refused or lost connection, shutting down, starting up, timeout).
 */
export type WriteProbeStatus = 'ok' | 'refused' | 'unreachable';

export interface WriteProbeResult {
  status: WriteProbeStatus;
  /** The error, with its SQLSTATE where there is one. */
  error?: string;
}

const PROBE_TIMEOUT_MS = 2_000;

/** Errors that mean no server answered, as opposed to a server that answered no. */
const NO_ANSWER_CODES = /^(08|57P0[1-4]|3D)/;

/**
 * Whether PostgreSQL takes a write now, by an upsert of the one row of `health_probe`. Cheap, but a
 * write: a SELECT succeeds on a standby and on a server that refuses every write.
 *
 * A server whose data disk is full usually still takes this upsert, which rewrites its row in the
 * page it has; the digest meets that disk first, and its workers report it (WorkerHeartbeat).
 */
@Injectable()
export class DatabaseWriteProbe {
  /** Callers that ask while a probe is out share it; a finished probe is never reused. */
  private inFlight: Promise<WriteProbeResult> | undefined;

  constructor(private readonly dataSource: DataSource) {}

  check(): Promise<WriteProbeResult> {
    this.inFlight ??= this.probe().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async probe(): Promise<WriteProbeResult> {
    try {
      await withDeadline(
        this.dataSource.query(
          `INSERT INTO health_probe (id, probed_at) VALUES (1, now())
           ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at`,
        ),
        PROBE_TIMEOUT_MS,
        'no answer within 2 s',
      );
      return { status: 'ok' };
    } catch (error) {
      return { status: answered(error) ? 'refused' : 'unreachable', error: describeDatabaseError(error) };
    }
  }
}

/** A server answered with an error of its own, and is not merely going away. */
function answered(error: unknown): boolean {
  const record = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = record?.code ?? record?.driverError?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  // Anything else with a SQLSTATE came from a live server, even an outage-like refusal (53100).
  return !NO_ANSWER_CODES.test(code);
}
