import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { QueuedEvent } from '../digest/digest-job';
import { DigestProducer } from './digest.producer';
import { IngestMetrics } from './ingest.metrics';

/** The message of every test event: they group into one issue per project. */
export const TEST_EVENT_MESSAGE = 'Test event sent from the dashboard: events reach this project.';

/** The SDK a test event names, so that it is told apart from what real SDKs send. */
const TEST_EVENT_SDK = { name: 'error-tracker.test-event', version: '1.0.0' };

/**
 * Sends a test event for a project along the path SDK events take once ingest has accepted them:
 * onto the digest queue (normalising, grouping, storing, rollups, alerts), so that the setup page
 * can show the whole path working before an SDK is wired up.
 */
@Injectable()
export class TestEventSender {
  constructor(
    private readonly producer: DigestProducer,
    private readonly metrics: IngestMetrics,
  ) {}

  /** Queues the event (a 503 when the queue is unreachable, as ingest answers); returns its id. */
  async send(projectId: number, now: Date = new Date()): Promise<string> {
    const eventId = randomUUID();
    const payload = {
      event_id: eventId.replace(/-/g, ''),
      timestamp: now.getTime() / 1000,
      platform: 'other',
      level: 'error',
      logger: 'error-tracker',
      message: TEST_EVENT_MESSAGE,
      tags: { test_event: 'yes' },
      sdk: TEST_EVENT_SDK,
    };
    const job: QueuedEvent = {
      projectId,
      eventId,
      receivedAt: now.getTime(),
      payload: JSON.stringify(payload),
    };
    await this.producer.enqueue(job);
    this.metrics.acceptedEnvelopes++;
    this.metrics.acceptedEvents++;
    return eventId;
  }
}
