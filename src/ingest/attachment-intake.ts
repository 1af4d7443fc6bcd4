import { HttpException, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { createHash, Hash, randomUUID } from 'node:crypto';
import { attachmentFacts, AttachmentFacts } from '../attachments/attachment-headers';
import { AttachmentsRepository, NewAttachment } from '../attachments/attachments.repository';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { BlobStore, BlobWriter } from '../storage/blob-store';
import { PendingBlobsRepository } from '../storage/pending-blobs.repository';
import { bodyRejection } from './body-reader';
import type { ItemStream } from './body-sink';
import { EnvelopeError } from './envelope-error';
import { OutcomeCounter } from '../outcomes/outcome-counter';

/**
 * Bytes of attachment payload an envelope may have handed over and the store not yet taken: past
 * it, the request waits (backpressure). With a chunk of the body on top, what one request holds.
 */
export const ATTACHMENT_HIGH_WATER_BYTES = 1024 * 1024;

/**
 * Attachment bytes this process holds on their way to the store, over all requests, and the most
 * it held since `peak` was last reset: what streaming keeps bounded (tests and /metrics read it).
 */
export const attachmentBytesHeld = { now: 0, peak: 0 };

export interface AttachmentLimits {
  maxAttachmentBytes: number;
  maxEnvelopeBytes: number;
  /** 0: no quota. */
  projectQuotaBytes: number;
}

/** One attachment being written. */
interface OpenFile {
  facts: AttachmentFacts;
  key: string;
  writer: BlobWriter;
  hash: Hash;
  size: number;
}

/** Creates the intake of each envelope (see AttachmentIntake); cheap when it carries no attachment. */
@Injectable()
export class AttachmentIntakes {
  private readonly logger = new Logger('Attachments');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private readonly limits: AttachmentLimits;

  constructor(
    config: AppConfig,
    private readonly attachments: AttachmentsRepository,
    private readonly pending: PendingBlobsRepository,
    private readonly store: BlobStore,
    private readonly outcomes: OutcomeCounter,
  ) {
    this.limits = {
      maxAttachmentBytes: config.ATTACHMENT_MAX_BYTES,
      maxEnvelopeBytes: config.ATTACHMENTS_MAX_BYTES_PER_ENVELOPE,
      projectQuotaBytes: config.ATTACHMENT_QUOTA_BYTES_PER_PROJECT,
    };
  }

  open(projectId: number): AttachmentIntake {
    return new AttachmentIntake(
      projectId,
      this.limits,
      this.attachments,
      this.pending,
      this.store,
      this.outcomes,
      this.failures,
    );
  }
}

/**
 * Streams an envelope's `attachment` items into the blob store as the body arrives, and records
 * them once the whole envelope has been read, so that nothing is half-stored:
 *
 * 1. each file's blob key is put on the pending list (deleted by the sweep unless committed), then
 *    its bytes are written, a piece at a time, while the request waits whenever more than
 *    ATTACHMENT_HIGH_WATER_BYTES are on their way to the store;
 * 2. `commit`, after the envelope was read whole and before the SDK is answered, records the files
 *    and takes their blobs off the list in one statement;
 * 3. `abort`, when the envelope is refused (a limit, a lying length, a dropped connection), deletes
 *    what was written; what it cannot delete stays on the list for the sweep.
 *
 * Storage that fails answers 503 (the SDK sends again); limits answer 413 naming the limit.
 */
export class AttachmentIntake implements ItemStream {
  /** The store's work, in order: each piece waits for the one before. */
  private chain: Promise<void> = Promise.resolve();
  private failure?: unknown;
  /** Payload bytes handed over and not yet taken by the store. */
  private queuedBytes = 0;
  private current?: OpenFile;
  private envelopeBytes = 0;
  private storedBytes?: number;
  private readonly staged: string[] = [];
  private readonly files: NewAttachment[] = [];
  /** What commit recorded (not files another copy of the envelope had recorded before). */
  private recorded?: { eventId: string; blobKeys: string[] };

  constructor(
    private readonly projectId: number,
    private readonly limits: AttachmentLimits,
    private readonly attachments: AttachmentsRepository,
    private readonly pending: PendingBlobsRepository,
    private readonly store: BlobStore,
    private readonly outcomes: OutcomeCounter,
    private readonly failures: RepeatedLog,
  ) {}

  /** Whether the envelope had an attachment. */
  get started(): boolean {
    return this.staged.length > 0;
  }

  /** Files read whole so far. */
  get fileCount(): number {
    return this.files.length;
  }

  begin(header: Record<string, unknown>): void {
    const length = header.length;
    if (typeof length === 'number') {
      this.checkSize(length, this.envelopeBytes + length);
    }
    const key = `attachments/${this.projectId}/${randomUUID()}`;
    const file: OpenFile = {
      facts: attachmentFacts(header),
      key,
      writer: this.store.openWriter(key),
      hash: createHash('sha256'),
      size: 0,
    };
    this.current = file;
    this.staged.push(key);
    this.enqueue(async () => {
      if (this.limits.projectQuotaBytes > 0 && this.storedBytes === undefined) {
        this.storedBytes = await this.attachments.storedBytes(this.projectId);
      }
      await this.pending.stage(key);
    });
  }

  data(bytes: Buffer): void {
    const file = this.current!;
    file.size += bytes.length;
    this.envelopeBytes += bytes.length;
    this.checkSize(file.size, this.envelopeBytes);
    file.hash.update(bytes);
    this.hold(bytes.length);
    this.enqueue(async () => {
      if (
        this.storedBytes !== undefined &&
        this.storedBytes + this.envelopeBytes > this.limits.projectQuotaBytes
      ) {
        throw this.overQuota();
      }
      await file.writer.write(bytes);
      this.hold(-bytes.length);
    });
  }

  end(): void {
    const file = this.current!;
    this.current = undefined;
    this.enqueue(async () => {
      await file.writer.finish();
      this.files.push({
        name: file.facts.name,
        contentType: file.facts.contentType,
        attachmentType: file.facts.attachmentType,
        size: file.size,
        sha256: file.hash.digest('hex'),
        blobKey: file.key,
      });
    });
  }

  pressure(): Promise<void> | undefined {
    if (this.failure !== undefined) return this.chain;
    return this.queuedBytes > ATTACHMENT_HIGH_WATER_BYTES ? this.chain : undefined;
  }

  /**
   * Records the files with their event, once the envelope was read whole. Without an event id
   * (neither the envelope header nor an event names one) they belong to nothing: deleted and counted.
   */
  async commit(eventId: string | undefined, receivedAt: Date): Promise<void> {
    try {
      await this.chain;
      if (eventId === undefined) {
        this.outcomes.count(this.projectId, [
          {
            outcome: 'invalid',
            category: 'attachment',
            reason: 'missing_event_id',
            quantity: this.files.length,
          },
        ]);
        await this.abort();
        return;
      }
      const { duplicates, overQuota } = await this.attachments.commit(
        this.projectId,
        eventId,
        this.files,
        receivedAt,
        this.limits.projectQuotaBytes,
      );
      // Envelopes that arrived together each passed the check made while streaming; the one made
      // under the project's lock at the commit is exact.
      if (overQuota) throw this.overQuota();
      if (duplicates.length > 0) this.deleteQuietly(duplicates);
      const kept = new Set(duplicates);
      this.recorded = {
        eventId,
        blobKeys: this.files.map((file) => file.blobKey).filter((key) => !kept.has(key)),
      };
    } catch (error) {
      await this.abort();
      throw this.refusal(error);
    }
  }

  /**
   * Takes back what commit recorded, when the envelope is then refused (its event could not be
   * queued: the answer is a 503 and the SDK retries with the same files). Never throws: what it
   * cannot delete, the orphan sweep does, since no event comes for it under this envelope.
   */
  async withdraw(): Promise<void> {
    const recorded = this.recorded;
    if (recorded === undefined) return;
    this.recorded = undefined;
    try {
      await this.attachments.withdraw(this.projectId, recorded.eventId, recorded.blobKeys);
    } catch (error) {
      this.failures.warn(
        'withdraw',
        `attachments of a refused event left for the orphan sweep: ${(error as Error).message}`,
      );
    }
  }

  /** Deletes what was written (the envelope was refused); never throws. */
  async abort(): Promise<void> {
    if (!this.started) return;
    await this.chain.catch(() => undefined);
    this.hold(-this.queuedBytes);
    const keys = this.staged.splice(0);
    await this.current?.writer.abort().catch(() => undefined);
    try {
      await this.pending.release(keys);
      await this.store.delete(keys);
      await this.pending.forget(keys);
    } catch (error) {
      this.failures.warn(
        'abort',
        `attachments of a refused envelope left for the sweep: ${(error as Error).message}`,
      );
    }
  }

  private hold(bytes: number): void {
    this.queuedBytes += bytes;
    attachmentBytesHeld.now += bytes;
    if (attachmentBytesHeld.now > attachmentBytesHeld.peak)
      attachmentBytesHeld.peak = attachmentBytesHeld.now;
  }

  private checkSize(fileBytes: number, envelopeBytes: number): void {
    if (fileBytes > this.limits.maxAttachmentBytes) {
      throw new EnvelopeError(
        413,
        `attachment is larger than ${this.limits.maxAttachmentBytes} bytes (ATTACHMENT_MAX_BYTES)`,
      );
    }
    if (envelopeBytes > this.limits.maxEnvelopeBytes) {
      throw new EnvelopeError(
        413,
        `attachments of the envelope are larger than ${this.limits.maxEnvelopeBytes} bytes (ATTACHMENTS_MAX_BYTES_PER_ENVELOPE)`,
      );
    }
  }

  private overQuota(): EnvelopeError {
    return new EnvelopeError(
      413,
      `attachments would pass the project's quota of ${this.limits.projectQuotaBytes} bytes (ATTACHMENT_QUOTA_BYTES_PER_PROJECT)`,
    );
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((error: unknown) => {
      this.failure = this.refusal(error);
      throw this.failure;
    });
    // The request awaits the chain when it matters (pressure, commit); a failure met meanwhile is kept.
    this.chain.catch(() => undefined);
  }

  /** Limits stay 413; a failure of the storage is a 503 that the SDK retries. */
  private refusal(error: unknown): unknown {
    if (error instanceof EnvelopeError) return bodyRejection(error);
    if (error instanceof HttpException) return error;
    this.failures.warn('store', `attachment storage failed: ${(error as Error).message}`);
    return new ServiceUnavailableException('attachment storage unavailable, try again later');
  }

  private deleteQuietly(keys: string[]): void {
    this.store
      .delete(keys)
      .then(() => this.pending.forget(keys))
      .catch(() => undefined); // still on the pending list, due: the sweep deletes them
  }
}
