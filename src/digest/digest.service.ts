import { Injectable, Logger } from '@nestjs/common';
import { AlertTriggerProducer } from '../issues/transitions/alert-trigger.producer';
import { Batcher } from '../common/batcher';
import { classifyDatabaseError } from '../database/database-errors';
import { RollupFolder } from '../rollups/rollup-folder';
import { JavaScriptSymbolicator } from '../symbolication/javascript-symbolicator';
import { ProjectScrubbers } from '../privacy/project-scrubbers.service';
import type { QueuedEvent } from './digest-job';
import { InvalidEventError, normaliseEvent, parseEventPayload } from './event-normaliser';
import { groupEvent } from './grouping';
import { DigestItem, IssueStoreService, StoreOutcome } from './issue-store.service';

type ItemResult = { ok: true } | { ok: false; error: unknown };

/** Events of concurrent jobs share one transaction; a short wait keeps a lone event's latency low. */
const MAX_BATCH_WAIT_MS = 5;
/**
 * Events per transaction, at most. Larger batches save little more per event and hold their row
 * locks longer, so concurrent batches wait for each other more.
 */
const MAX_BATCH_EVENTS = 100;
const CONFLICT_RETRIES = 5;
/** Deadlock, serialization failure, foreign key violation (see storeRetryingConflicts). */
const RETRIED_AT_ONCE = new Set(['40P01', '40001', '23503']);

@Injectable()
export class DigestService {
  private readonly logger = new Logger(DigestService.name);
  private readonly batcher: Batcher<DigestItem, ItemResult>;
  /** Batches being stored right now. */
  private batchesInFlight = 0;

  constructor(
    private readonly store: IssueStoreService,
    private readonly triggers: AlertTriggerProducer,
    private readonly rollupFolder: RollupFolder,
    private readonly symbolicator: JavaScriptSymbolicator,
    private readonly scrubbers: ProjectScrubbers,
  ) {
    this.batcher = new Batcher((items) => this.storeIsolatingFailures(items), {
      maxSize: MAX_BATCH_EVENTS,
      maxWaitMs: MAX_BATCH_WAIT_MS,
    });
  }

  /**
   * Parse, normalise, apply source maps, scrub secrets and group, before the event joins a batch.
   * Scrubbing comes before grouping and storing, so that no scrubbed value reaches the grouping
   * key, the search text, the tag rollups or an alert; after source maps, so that it sees the
   * source lines they add. Throws InvalidEventError for an event that cannot be stored, and the
   * database's errors.
   */
  async prepare(job: QueuedEvent): Promise<DigestItem> {
    const event = normaliseEvent(parseEventPayload(job.payload), {
      eventId: job.eventId,
      receivedAt: job.receivedAt,
      sdk: job.sdk,
    });
    await this.symbolicator.symbolicate(job.projectId, event);
    const scrubber = await this.scrubbers.forProject(job.projectId);
    try {
      scrubber.scrub(event);
    } catch (error) {
      // Never stored unscrubbed: the job goes to the failed set, from which it can be replayed.
      throw new InvalidEventError(`event cannot be scrubbed: ${(error as Error)?.message ?? String(error)}`, {
        cause: error,
      });
    }
    return {
      projectId: job.projectId,
      eventId: job.eventId,
      receivedAt: new Date(job.receivedAt),
      event,
      group: groupEvent(event),
    };
  }

  /** Resolves once the event is committed (or known to be a duplicate); rejects with the store's error. */
  async digest(item: DigestItem): Promise<void> {
    const result = await this.batcher.submit(item);
    if (!result.ok) throw result.error;
  }

  private async storeIsolatingFailures(items: DigestItem[]): Promise<ItemResult[]> {
    let outcome: StoreOutcome;
    this.batchesInFlight++;
    try {
      outcome = await this.storeRetryingConflicts(items);
      if (outcome.stored > 0)
        this.rollupFolder.batchStored(this.batchesInFlight > 1 || this.batcher.waiting > 0);
    } catch (error) {
      const failure = classifyDatabaseError(error, { onEventData: true });
      if (items.length === 1 || failure === 'unavailable' || failure === 'conflict')
        return items.map(() => ({ ok: false, error }));
      // One bad event must not hold back the others: store them one by one to find it.
      const results: ItemResult[] = [];
      for (const item of items) results.push(...(await this.storeIsolatingFailures([item])));
      return results;
    } finally {
      this.batchesInFlight--;
    }
    await this.afterCommit(outcome);
    return items.map(() => ({ ok: true }));
  }

  /**
   * Deadlocks and serialization failures between concurrent batches are normal under load: retrying
   * the transaction at once is cheaper than failing every job of the batch back to the queue. So is
   * a foreign key violation: the issue a batch found was deleted before the batch wrote to it (by a
   * user, or by retention after its last event expired), and the retry opens the issue anew.
   */
  private async storeRetryingConflicts(items: DigestItem[]): Promise<StoreOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store.storeBatch(items);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= CONFLICT_RETRIES || !RETRIED_AT_ONCE.has(code ?? '')) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }

  private async afterCommit(outcome: StoreOutcome): Promise<void> {
    for (const issue of outcome.newIssues) {
      this.logger.log(`new issue ${issue.id} (#${issue.number}) in project ${issue.projectId}`);
    }
    for (const trigger of outcome.triggers.triggers.filter(
      (candidate) => candidate.alertType === 'regression',
    )) {
      this.logger.log(`issue ${trigger.issueId} regressed: reopened by a new event`);
    }
    if (outcome.orphaned > 0) {
      this.logger.warn(`dropped ${outcome.orphaned} event(s) of deleted projects`);
    }
    this.logger.debug(
      `stored ${outcome.stored} event(s), ${outcome.duplicates} duplicate(s), ${outcome.newIssues.length} new issue(s)`,
    );
    await this.triggers.publish(outcome.triggers);
  }
}
