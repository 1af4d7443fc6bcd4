import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EventsRepository } from '../events/events.repository';
import type { AlertTrigger } from '../issues/transitions/alert-trigger';
import { AlertTriggerProducer, RecordedTriggers } from '../issues/transitions/alert-trigger.producer';
import type { QueuedFeedback } from './feedback-record';
import { FeedbackRepository } from './feedback.repository';

/** Deadlock, serialization failure, and a foreign key whose issue was deleted meanwhile. */
const RETRIED_AT_ONCE = new Set(['40P01', '40001', '23503']);
const ATTEMPTS = 5;

export type FeedbackStoreResult = 'stored' | 'duplicate' | 'orphaned';

/**
 * Stores one queued feedback (the digest worker's `feedback` jobs), linked to its event's issue
 * when that event is stored already; otherwise the digest links it when the event comes (see
 * FeedbackRepository.linkToEvents). The event's advisory lock, the one the digest takes for the
 * event, orders the two: the feedback is stored either before the event's batch looks for it, or
 * after that batch has committed the event. A new feedback on an issue records a `new_feedback`
 * alert trigger in the outbox, in the same transaction.
 */
@Injectable()
export class FeedbackStoreService {
  private readonly logger = new Logger(FeedbackStoreService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventsRepository,
    private readonly feedback: FeedbackRepository,
    private readonly triggers: AlertTriggerProducer,
  ) {}

  async store(feedback: QueuedFeedback): Promise<FeedbackStoreResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { result, recorded } = await this.dataSource.transaction((manager) =>
          this.storeIn(manager, feedback),
        );
        await this.triggers.publish(recorded);
        return result;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (attempt >= ATTEMPTS || !RETRIED_AT_ONCE.has(code)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  private async storeIn(
    manager: EntityManager,
    feedback: QueuedFeedback,
  ): Promise<{ result: FeedbackStoreResult; recorded: RecordedTriggers }> {
    let issueId: number | null = null;
    const record = { ...feedback };
    if (feedback.associatedEventId) {
      await this.events.lockEventKeys(manager, [`${feedback.projectId}:${feedback.associatedEventId}`]);
      const event = await this.feedback.findEvent(manager, feedback.projectId, feedback.associatedEventId);
      if (event) {
        issueId = event.issueId;
        record.environment ??= event.environment ?? undefined;
        record.release ??= event.release ?? undefined;
      }
    }
    const written = await this.feedback.upsert(manager, record, issueId);
    if (!written) {
      this.logger.warn(
        `dropped feedback ${feedback.eventId}: project ${feedback.projectId} no longer exists`,
      );
      return { result: 'orphaned', recorded: { ids: [], triggers: [] } };
    }
    const triggers: AlertTrigger[] =
      written.inserted && issueId !== null
        ? [
            {
              alertType: 'new_feedback',
              projectId: feedback.projectId,
              issueId,
              occurredAt: new Date(feedback.receivedAt).toISOString(),
            },
          ]
        : [];
    return {
      result: written.inserted ? 'stored' : 'duplicate',
      recorded: await this.triggers.record(manager, triggers),
    };
  }
}
