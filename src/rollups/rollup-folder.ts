import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { classifyDatabaseError } from '../database/database-errors';
import { RollupsRepository } from './rollups.repository';

/** Under load, how long recorded counts may wait to be folded: what a fold sums per row. */
export const FOLD_EVERY_MS = 1_000;
/** Counts a stopped worker recorded and never folded are taken up by any worker within this. */
const SWEEP_EVERY_MS = 10_000;
/** After a failed fold, the next waits this long, doubling up to the maximum. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 15_000;
/** Recorded rows per fold transaction. */
const FOLD_LIMIT = 5_000;
/** Issues tried one by one after a fold failed for a reason other than the database being away. */
const ISOLATE_ISSUES = 200;

/**
 * Adds what the digest recorded in `rollup_pending` to the rollups (RollupsRepository.fold), in the
 * worker processes. When the digest has nothing else in hand, right after a batch commits, so that
 * a lone event shows in the stats at once; under load, at most once a second, so that a fold sums
 * many batches' counts of the same issue, hour and tag value into one row update.
 *
 * A failed fold leaves the rows where they are; the next one is tried after a growing pause. When
 * the database answered but refused, the waiting issues are folded one by one, and the rows of an
 * issue that still fail are set aside (kept, with the error) so that they do not hold back the
 * others, and logged.
 */
@Injectable()
export class RollupFolder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RollupFolder.name);
  private readonly failures = new RepeatedLog(this.logger, 30_000);
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  private sweep: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The soonest delay asked for while a fold was running. */
  private requestedWhileRunning: number | undefined;
  private retryMs = 0;
  private stopped = false;

  constructor(private readonly rollups: RollupsRepository) {}

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => this.request(0), SWEEP_EVERY_MS);
    this.sweep.unref();
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  /**
   * Called once the digest has stopped taking jobs: folds what is left, for at most `timeoutMs`
   * (what is not done by then waits for another worker, or this one's next start).
   */
  async foldBeforeExit(timeoutMs: number): Promise<void> {
    this.stop();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    const folded = (async () => {
      await this.running;
      await this.foldAll();
    })().catch((error: unknown) =>
      this.logger.warn(`rollups left for another worker to fold: ${(error as Error).message}`),
    );
    await Promise.race([folded, deadline]);
    clearTimeout(timer);
  }

  /** A digest batch stored events; `busy`: the digest has more in hand. */
  batchStored(busy: boolean): void {
    this.request(busy ? FOLD_EVERY_MS : 0);
  }

  /** Folds until nothing is left; returns how many recorded rows it folded. */
  async foldAll(): Promise<number> {
    let folded = 0;
    for (;;) {
      const count = await this.rollups.fold(FOLD_LIMIT);
      folded += count;
      if (count < FOLD_LIMIT) return folded;
    }
  }

  private stop(): void {
    this.stopped = true;
    clearInterval(this.sweep);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A timer already due sooner is kept: steady load must not push the fold back indefinitely. */
  private request(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.requestedWhileRunning = Math.min(this.requestedWhileRunning ?? Infinity, delayMs);
      return;
    }
    const delay = Math.max(delayMs, this.retryMs);
    const due = Date.now() + delay;
    if (this.timer && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => this.run(), delay);
  }

  private run(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    this.running = this.foldAll().then(
      () => {
        this.retryMs = 0;
      },
      (error: unknown) => this.failed(error),
    );
    void this.running.finally(() => {
      this.running = undefined;
      const again = this.requestedWhileRunning;
      this.requestedWhileRunning = undefined;
      if (again !== undefined) this.request(again);
    });
  }

  private async failed(error: unknown): Promise<void> {
    this.retryMs = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.retryMs * 2));
    this.requestedWhileRunning = Math.min(this.requestedWhileRunning ?? Infinity, this.retryMs);
    const failure = classifyDatabaseError(error);
    this.failures.warn(
      failure,
      `could not fold the rollups (${(error as Error).message}); retrying in ${this.retryMs} ms`,
    );
    if (failure === 'unavailable' || failure === 'conflict') return;
    await this.isolate().catch(() => undefined);
  }

  /** Folds the waiting issues one at a time, setting aside the rows of those that fail. */
  private async isolate(): Promise<void> {
    for (const issueId of await this.rollups.waitingIssues(ISOLATE_ISSUES)) {
      try {
        while ((await this.rollups.fold(FOLD_LIMIT, issueId)) === FOLD_LIMIT);
      } catch (error) {
        const failure = classifyDatabaseError(error);
        if (failure === 'unavailable') return;
        if (failure === 'conflict') continue;
        const rows = await this.rollups.setAside(issueId, (error as Error).message);
        this.logger.error(
          `set aside ${rows} recorded rollup row(s) of issue ${issueId} that cannot be folded: ` +
            `${(error as Error).message} (rollup_pending.failed_at; clear it to fold them again)`,
        );
      }
    }
    this.retryMs = 0;
  }
}
