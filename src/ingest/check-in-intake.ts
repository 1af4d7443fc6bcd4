import { Inject, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { RepeatedLog } from '../common/repeated-log';
import { CheckInReading, QueuedCheckIn, readCheckInItem } from '../monitors/crons/check-in-record';
import { checkInJob } from '../digest/digest-job';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { DIGEST_PRODUCER_QUEUE } from './digest.producer';
import type { EnvelopeReader } from './envelope-reader';
import { CategoryAllowance, CheckInLimits } from '../limits/category-limits';

/** As for events (DigestProducer): a request gets its 503 within seconds when Redis does not answer. */
const ENQUEUE_TIMEOUT_MS = 2_500;

export const CHECK_IN_ITEM_TYPE = 'check_in';

/** What ingest counts for a check-in, or a monitor_config, it does not keep (category `monitor`). */
export function checkInOutcome(reason: string): OutcomeCount {
  return { outcome: 'invalid', category: 'monitor', reason, quantity: 1 };
}

/** The outcomes of a reading: the refusal, or an invalid monitor_config dropped from a kept check-in. */
export function readingOutcomes(reading: CheckInReading): OutcomeCount[] {
  if ('refused' in reading) return [checkInOutcome(reading.refused)];
  return reading.configRefused === undefined ? [] : [checkInOutcome('invalid_monitor_config')];
}

/**
 * Cron monitor check-ins at ingest: the `check_in` items of an envelope (kept whole by the reader,
 * see SMALL_ITEM_BUDGETS) and the HTTP check-in URL, read (check-in-record.ts) and put on the
 * digest queue as jobs of their own before the client is answered: answered means kept. A check-in
 * that cannot be kept is skipped and counted as an outcome; the rest of the envelope is kept.
 */
@Injectable()
export class CheckInIntake {
  private readonly logger = new Logger('CheckInIntake');
  private readonly redisLog = new RepeatedLog(this.logger, 10_000);

  constructor(
    @Inject(DIGEST_PRODUCER_QUEUE) private readonly queue: Queue,
    private readonly outcomes: OutcomeCounter,
    private readonly limits: CheckInLimits,
  ) {}

  /**
   * Queues the envelope's valid check-ins within the project's check-in limit; resolves once Redis
   * has them (503 otherwise). The check-ins past the limit are dropped and left to the caller to
   * count (`refused` of the answer): beside other items as outcomes, alone with a 429.
   */
  async acceptEnvelope(
    projectId: number,
    reader: EnvelopeReader,
    receivedAt = Date.now(),
  ): Promise<CategoryAllowance> {
    const items = reader.itemsOfType(CHECK_IN_ITEM_TYPE);
    if (items.length === 0) return { taken: 0, refused: 0, retryAfterSeconds: 0 };
    const kept: QueuedCheckIn[] = [];
    const counted: OutcomeCount[] = [];
    for (const item of items) {
      if (item === undefined) {
        counted.push(checkInOutcome('too_large'));
        continue;
      }
      const reading = readCheckInItem(item.payload, projectId, receivedAt);
      counted.push(...readingOutcomes(reading));
      if ('checkIn' in reading) kept.push(reading.checkIn);
    }
    if (counted.length > 0) this.outcomes.count(projectId, counted);
    const allowance = await this.limits.take(projectId, kept.length);
    await this.enqueueCounted(projectId, kept.slice(0, allowance.taken));
    return allowance;
  }

  /** Queues check-ins the limit counted; when the queue refuses them, their count goes back. */
  async enqueueCounted(projectId: number, checkIns: QueuedCheckIn[]): Promise<void> {
    try {
      await this.enqueue(checkIns);
    } catch (error) {
      await this.limits.giveBack(projectId, checkIns.length);
      throw error;
    }
  }

  async enqueue(checkIns: QueuedCheckIn[]): Promise<void> {
    if (checkIns.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(checkIns.map(checkInJob)), timeout]);
    } catch (error) {
      this.redisLog.warn(
        'enqueue',
        `could not enqueue ${checkIns.length} check-in(s): ${(error as Error).message}`,
      );
      throw new ServiceUnavailableException('event queue unavailable, try again later');
    } finally {
      clearTimeout(timer);
    }
  }
}
