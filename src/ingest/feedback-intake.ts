import { Inject, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { RepeatedLog } from '../common/repeated-log';
import { feedbackJob } from '../digest/digest-job';
import {
  FeedbackReading,
  FeedbackRefusal,
  normalEventId,
  QueuedFeedback,
  readFeedbackItem,
  readUserReport,
} from '../feedback/feedback-record';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { CategoryAllowance, FeedbackLimits } from '../limits/category-limits';
import { DIGEST_PRODUCER_QUEUE } from './digest.producer';
import type { EnvelopeReader } from './envelope-reader';

/** As for events (DigestProducer): a request gets its 503 within seconds when Redis does not answer. */
const ENQUEUE_TIMEOUT_MS = 2_500;

/** The envelope items that carry user feedback. */
export const FEEDBACK_ITEM_TYPES: ReadonlySet<string> = new Set(['feedback', 'user_report']);

/** What ingest counts for a feedback it does not keep (category `feedback`, outcome `invalid`). */
export function feedbackRefusalOutcome(reason: FeedbackRefusal | 'too_large'): OutcomeCount {
  return { outcome: 'invalid', category: 'feedback', reason: `feedback_${reason}`, quantity: 1 };
}

/**
 * The feedback forms of an envelope (`feedback` and `user_report` items, kept whole by the reader,
 * see SMALL_ITEM_BUDGETS) and of the crash-report dialog, put on the digest queue as jobs of their
 * own before the SDK is answered, like events: PostgreSQL stays off the ingest path. A feedback
 * that cannot be kept (no message, a message over Sentry's limit, an item over its budget) is
 * counted as an outcome and skipped; the rest of the envelope is kept.
 */
@Injectable()
export class FeedbackIntake {
  private readonly logger = new Logger('FeedbackIntake');
  private readonly redisLog = new RepeatedLog(this.logger, 10_000);

  constructor(
    @Inject(DIGEST_PRODUCER_QUEUE) private readonly queue: Queue,
    private readonly outcomes: OutcomeCounter,
    private readonly limits: FeedbackLimits,
  ) {}

  /**
   * Queues the envelope's valid feedback within the project's feedback limit; resolves once Redis
   * has it (503 otherwise). The feedback past the limit is dropped and left to the caller to count
   * (`refused` of the answer).
   */
  async acceptEnvelope(
    projectId: number,
    reader: EnvelopeReader,
    receivedAt = Date.now(),
  ): Promise<CategoryAllowance> {
    const items = reader.itemsOfType('feedback');
    const reports = reader.itemsOfType('user_report');
    if (items.length === 0 && reports.length === 0) return { taken: 0, refused: 0, retryAfterSeconds: 0 };
    const headerId = normalEventId(reader.header?.event_id);
    // One envelope carries one feedback event; a second one gets an id of its own.
    let headerIdUsed = false;
    const fallbackId = () => {
      if (headerId && !headerIdUsed) {
        headerIdUsed = true;
        return headerId;
      }
      return randomUUID();
    };
    const readings: (FeedbackReading | undefined)[] = [
      ...items.map((item) => item && readFeedbackItem(item.payload, projectId, receivedAt, fallbackId)),
      ...reports.map((item) => item && readUserReport(item.payload, projectId, receivedAt)),
    ];
    const refused: OutcomeCount[] = [];
    const kept: QueuedFeedback[] = [];
    for (const reading of readings) {
      if (reading === undefined) refused.push(feedbackRefusalOutcome('too_large'));
      else if ('refused' in reading) refused.push(feedbackRefusalOutcome(reading.refused));
      else kept.push(reading.feedback);
    }
    if (refused.length > 0) this.outcomes.count(projectId, refused);
    const allowance = await this.limits.take(projectId, kept.length);
    try {
      await this.enqueue(kept.slice(0, allowance.taken));
    } catch (error) {
      await this.limits.giveBack(projectId, allowance.taken);
      throw error;
    }
    return allowance;
  }

  async enqueue(feedback: QueuedFeedback[]): Promise<void> {
    if (feedback.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ENQUEUE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.queue.addBulk(feedback.map(feedbackJob)), timeout]);
    } catch (error) {
      this.redisLog.warn(
        'enqueue',
        `could not enqueue ${feedback.length} feedback: ${(error as Error).message}`,
      );
      throw new ServiceUnavailableException('event queue unavailable, try again later');
    } finally {
      clearTimeout(timer);
    }
  }
}
