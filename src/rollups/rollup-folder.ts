import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { RollupsRepository } from './rollups.repository';

/** Under load, how long recorded counts may wait to be folded: what a fold sums per row. */
export const FOLD_EVERY_MS = 1_000;
/** Counts a stopped worker recorded and never folded are taken up by any worker within this. */
const SWEEP_EVERY_MS = 10_000;
/** Recorded rows per fold transaction. */
const FOLD_LIMIT = 5_000;

/**
 * Adds what the digest recorded in `rollup_pending` to the rollups (RollupsRepository.fold), in the
 * worker processes. When the digest has nothing else in hand, right after a batch commits, so that
 * a lone event shows in the stats at once; under load, at most once a second, so that a fold sums
 * many batches' counts of the same issue, hour and tag value into one row update. A failed fold
 * leaves the rows where they are, for the next.
 */
@Injectable()
export class RollupFolder
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(RollupFolder.name);
  private readonly failures = new RepeatedLog(this.logger, 30_000);
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  private sweep: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The soonest delay asked for while a fold was running. */
  private requestedWhileRunning: number | undefined;
  private stopped = false;

  constructor(private readonly rollups: RollupsRepository) {}

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => this.request(0), SWEEP_EVERY_MS);
    this.sweep.unref();
  }

  /** The digest's workers have stopped by now (modules are destroyed first): fold what they left. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweep);
    clearTimeout(this.timer);
    await this.running;
    await this.foldAll().catch((error: unknown) =>
      this.logger.warn(`rollups left for another worker to fold: ${(error as Error).message}`),
    );
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.sweep);
    clearTimeout(this.timer);
  }

  /** A digest batch committed; `busy`: the digest has more in hand. */
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

  /** A timer already due sooner is kept: steady load must not push the fold back indefinitely. */
  private request(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.requestedWhileRunning = Math.min(this.requestedWhileRunning ?? Infinity, delayMs);
      return;
    }
    const due = Date.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => this.run(), delayMs);
  }

  private run(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    this.running = this.foldAll().then(
      () => undefined,
      (error: unknown) => {
        this.failures.warn('fold', `could not fold the rollups, retrying: ${(error as Error).message}`);
        this.requestedWhileRunning = Math.min(this.requestedWhileRunning ?? Infinity, FOLD_EVERY_MS);
      },
    );
    void this.running.finally(() => {
      this.running = undefined;
      const again = this.requestedWhileRunning;
      this.requestedWhileRunning = undefined;
      if (again !== undefined) this.request(again);
    });
  }
}
