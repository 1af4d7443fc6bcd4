import {
  BadRequestException,
  HttpException,
  Injectable,
  Logger,
  UnauthorizedException,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AppConfig } from '../config/app-config';
import type { QueuedEvent } from '../digest/digest-job';
import { bodyRejection, readBody } from './body-reader';
import { RepeatedLog } from '../common/repeated-log';
import { DatabaseUnavailableError } from '../database/database-unavailable.error';
import { canonicalUuid, ClientKeySource, clientKeyFromRequest, keyFromDsn } from './client-key';
import { DigestProducer } from './digest.producer';
import { MAX_HEADER_LINE_BYTES } from './envelope-limits';
import { EnvelopeReader } from './envelope-reader';
import type { EventPayloadFacts } from './event-payload';
import { StoreBodyReader } from './store-body-reader';
import { IngestMetrics } from './ingest.metrics';
import { ProjectKeys } from './project-keys';
import { EventLimits } from '../limits/event-limits';
import { eventLimitRejection } from './limit-rejections';
import { IngestRejection } from './ingest-rejection';
import { SESSION_ITEM_TYPES } from './session-intake';
import { refusalOutcome } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { AttachmentIntakes } from './attachment-intake';
import { headerDsn, isBrotli, resolveEventId, sdkOf } from './ingest-request';
import { InboundFilterSnapshot } from '../privacy/filters/inbound-filter-snapshot.service';
import type { FilterReason } from '../privacy/filters/inbound-filters';
import { ClientAddressOf, clientAddressResolver } from './client-address';
import { CHECK_IN_ITEM_TYPE } from './check-in-intake';
import { EnvelopeItemIntake } from './envelope-item-intake';

/** Sentry answers with the event id as 32 hex digits; `{}` when the envelope held no event. */
export type IngestResult = { id: string } | Record<string, never>;

export type IngestEndpoint = 'envelope' | 'store';

/** How far a request got: a refusal after its key was accepted is counted as the project's outcome. */
interface IngestAttempt {
  admittedProjectId?: number;
  reader?: EnvelopeReader;
  /**
   * When the request was counted within the event limits, until an event of it is accepted: a
   * request that ends without one (filtered, refused, or holding no event) gives the count back.
   */
  countedAt?: number;
  /** The give-back under way, awaited before the answer. */
  givingBack?: Promise<void>;
  /** Over the event limits: the refusal for the first item that is not a session or client report. */
  eventsRefused?: IngestRejection;
}

export { IngestRejection };

const PROJECT_ID = /^[1-9]\d{0,9}$/;

/**
 * Item types read on past the event limits: sessions and check-ins have limits of their own, and
 * client reports none.
 */
const LIMITED_APART: ReadonlySet<string> = new Set([
  ...SESSION_ITEM_TYPES,
  CHECK_IN_ITEM_TYPE,
  'client_report',
]);

export function parseProjectId(raw: string): number {
  const id = PROJECT_ID.test(raw) ? Number(raw) : NaN;
  if (!(id <= 2_147_483_647)) throw new BadRequestException('project id must be a positive integer');
  return id;
}

/**
 * The ingest fast path, independent of Express. Work is spent in order of cost, so that whoever has
 * no valid key, or is over the rate limit, costs next to nothing:
 *
 * 1. the client key outside the body (headers, query) is checked against the in-process snapshot
 *    of keys (no query per request) and the rate limit is counted, before a byte of the body is
 *    read; when only the envelope header carries the key (`dsn`), both happen right after that
 *    first line, and nothing past it is decoded for a refused envelope;
 * 2. the body is read and checked (headers only), the event is queued, the SDK is answered.
 *
 * Errors are HttpExceptions, or DatabaseUnavailableError (503). Wrong keys are logged at debug only,
 * since a misconfigured SDK fleet would flood the log; other rejections once per interval.
 */
@Injectable()
export class IngestService {
  private readonly logger = new Logger('Ingest');
  private readonly rejectionLog = new RepeatedLog(this.logger, 10_000);
  private readonly debug: boolean;
  private readonly clientAddress: ClientAddressOf;

  constructor(
    config: AppConfig,
    private readonly projectKeys: ProjectKeys,
    private readonly eventLimits: EventLimits,
    private readonly producer: DigestProducer,
    private readonly metrics: IngestMetrics,
    private readonly outcomes: OutcomeCounter,
    private readonly items: EnvelopeItemIntake,
    private readonly attachmentIntakes: AttachmentIntakes,
    private readonly inboundFilters: InboundFilterSnapshot,
  ) {
    this.debug = config.logLevel === 'debug' || config.logLevel === 'trace';
    this.clientAddress = clientAddressResolver(config.TRUST_PROXY);
  }

  ingest(
    endpoint: IngestEndpoint,
    rawProjectId: string,
    request: IncomingMessage,
    sentryKeyParam: string | undefined,
  ): Promise<IngestResult> {
    return this.countingRejections(async (attempt) => {
      const projectId = parseProjectId(rawProjectId);
      const source = clientKeyFromRequest(request.headers, sentryKeyParam);
      if (source === undefined) {
        if (endpoint === 'store') throw this.unauthorized(projectId, 'missing client key');
        return this.envelopeAuthenticatedByHeader(projectId, request, attempt);
      }
      const overEventLimitReadsOn = endpoint === 'envelope' && !isBrotli(request);
      await this.admit(projectId, source.key, source.from, attempt, overEventLimitReadsOn);
      if (endpoint === 'envelope') {
        attempt.reader = new EnvelopeReader();
        return this.envelope(projectId, attempt.reader, request, attempt);
      }
      const reader = new StoreBodyReader();
      await readBody(request, reader);
      return this.acceptStoreEvent(projectId, reader, request, attempt);
    });
  }

  /** The image-beacon form of the store endpoint (GET, the event JSON in `sentry_data`). */
  storeFromQuery(
    rawProjectId: string,
    request: IncomingMessage,
    data: string | null,
    sentryKeyParam: string | undefined,
  ): Promise<{ id: string }> {
    return this.countingRejections(async (attempt) => {
      const projectId = parseProjectId(rawProjectId);
      const source = clientKeyFromRequest(request.headers, sentryKeyParam);
      if (source === undefined) throw this.unauthorized(projectId, 'missing client key');
      await this.admit(projectId, source.key, source.from, attempt);
      if (data === null || data === '') throw new BadRequestException('sentry_data is missing');
      const reader = new StoreBodyReader();
      try {
        reader.write(Buffer.from(data));
        reader.end();
      } catch (error) {
        throw bodyRejection(error);
      }
      return this.acceptStoreEvent(projectId, reader, request, attempt);
    });
  }

  private async countingRejections<T>(work: (attempt: IngestAttempt) => Promise<T>): Promise<T> {
    const attempt: IngestAttempt = {};
    try {
      return await work(attempt);
    } catch (error) {
      this.countRejection(error, attempt);
      throw error;
    } finally {
      this.giveBackCount(attempt);
      await attempt.givingBack;
    }
  }

  /**
   * Only accepted events count against the event limits: a request counted on admission (so that a
   * flood over the limit costs no decoding) gives its count back once it is known to end without
   * an accepted event. Once per request: the count is cleared as it is given back, or accepted.
   */
  private giveBackCount(attempt: IngestAttempt): void {
    const { countedAt, admittedProjectId } = attempt;
    if (countedAt === undefined || admittedProjectId === undefined) return;
    attempt.countedAt = undefined;
    attempt.givingBack = this.eventLimits.giveBack(admittedProjectId, countedAt);
  }

  /** The key is the project's, and the project is within its rate limits. */
  private async admit(
    projectId: number,
    key: string,
    from: ClientKeySource['from'],
    attempt: IngestAttempt,
    overEventLimitReadsOn = false,
  ): Promise<void> {
    await this.checkKey(projectId, key, from);
    attempt.admittedProjectId = projectId;
    await this.countRequest(projectId, attempt, overEventLimitReadsOn);
  }

  private async checkKey(projectId: number, raw: string, from: ClientKeySource['from']): Promise<void> {
    const key = canonicalUuid(raw);
    if (key === undefined) throw this.unauthorized(projectId, `malformed client key (${from})`);
    const valid = this.projectKeys.isValid(projectId, key);
    if (valid === true || (valid !== false && (await valid))) return;
    throw this.unauthorized(projectId, `unknown client key (${from})`);
  }

  /**
   * Tunnels forward envelopes without auth headers: the key is the `dsn` of the envelope header.
   * It is checked, and the request counted, on the first line alone, before the rest of the body
   * is decoded. Whoever has no key learns nothing about the body: every problem before the key is
   * accepted is a 401.
   */
  private async envelopeAuthenticatedByHeader(
    projectId: number,
    request: IncomingMessage,
    attempt: IngestAttempt,
  ): Promise<IngestResult> {
    // A brotli stream declares a window of up to 16 MiB, which its decoder fills before the first
    // line comes out (about 30 ms of CPU for a 116-byte bomb): whoever uses it names the key
    // outside the body. SDKs do (tunnels forward browser envelopes uncompressed).
    if (isBrotli(request)) {
      request.resume();
      throw this.unauthorized(
        projectId,
        'brotli-compressed envelopes need the client key in a header or the query',
      );
    }
    const check = async (line: string | undefined) => {
      const dsn = keyFromDsn(line === undefined ? undefined : headerDsn(line));
      if (dsn === undefined) throw this.unauthorized(projectId, 'missing client key');
      if (dsn.projectId !== projectId) {
        throw this.unauthorized(projectId, 'envelope dsn does not match the project');
      }
      await this.admit(projectId, dsn.key, 'dsn', attempt, true);
    };
    attempt.reader = new EnvelopeReader();
    return this.envelope(projectId, attempt.reader, request, attempt, {
      check,
      maxFirstLineBytes: MAX_HEADER_LINE_BYTES,
    });
  }

  private async envelope(
    projectId: number,
    reader: EnvelopeReader,
    request: IncomingMessage,
    attempt: IngestAttempt,
    checkFirstLine?: Parameters<typeof readBody>[3],
  ): Promise<IngestResult> {
    // Over the event limits, the body is read only as long as its items are sessions (or client
    // reports): the first other item ends the reading with the 429.
    reader.onItemType = (type) => {
      if (attempt.eventsRefused && !LIMITED_APART.has(type)) {
        throw attempt.eventsRefused;
      }
    };
    // Attachments are streamed to storage as they arrive and recorded before the answer; whatever
    // refuses the envelope before they are recorded deletes them.
    const attachments = this.attachmentIntakes.open(projectId);
    reader.streamItems('attachment', attachments);
    let eventId: string | undefined;
    let event: string | undefined;
    let filtered: FilterReason | undefined;
    try {
      await readBody(request, reader, undefined, checkFirstLine);
      const headerId = reader.header!.event_id;
      eventId =
        reader.event === undefined
          ? typeof headerId === 'string'
            ? canonicalUuid(headerId)
            : undefined
          : resolveEventId(headerId, reader.eventFacts);
      filtered =
        reader.event === undefined ? undefined : this.filterReason(projectId, reader.eventFacts!, request);
      event = filtered === undefined ? reader.event : undefined;
      // No event to accept: the count goes back beside the recording of the other items.
      if (event === undefined) this.giveBackCount(attempt);
      if (reader.smallItems.size > 0) await this.items.takeFeedbackAndCheckIns(projectId, reader);
      if (event === undefined) await this.items.takeSessions(projectId, reader, false);
    } catch (error) {
      await attachments.abort();
      throw error;
    }
    const receivedAt = Date.now();
    // A filtered event's attachments go with it, counted as filtered for the same reason.
    if (filtered !== undefined && attachments.started) {
      await attachments.abort();
      this.outcomes.count(projectId, [
        { outcome: 'filtered', category: 'attachment', reason: filtered, quantity: attachments.fileCount },
      ]);
    } else if (attachments.started) await attachments.commit(eventId, new Date(receivedAt));
    if (event === undefined) {
      this.metrics.acceptedEnvelopes++;
      if (this.debug) this.logger.debug(`project ${projectId}: dropped items ${reader.itemTypes.join(', ')}`);
      if (filtered !== undefined) this.countFiltered(projectId, filtered);
      this.items.countOutcomes(projectId, reader);
      return eventId ? { id: eventId.replace(/-/g, '') } : {};
    }
    const acceptedId = eventId!;
    const [queued, sessions] = await Promise.allSettled([
      this.accept(attempt, projectId, acceptedId, event, sdkOf(reader.header!.sdk), receivedAt),
      this.items.takeSessions(projectId, reader, true),
    ]);
    // Files stay with a queued event; those of an event the queue refused go, and the SDK's retry
    // brings them again.
    if (queued.status === 'rejected') {
      await attachments.withdraw();
      throw queued.reason;
    }
    if (sessions.status === 'rejected') throw sessions.reason;
    this.items.countOutcomes(projectId, reader);
    return { id: acceptedId.replace(/-/g, '') };
  }

  private async acceptStoreEvent(
    projectId: number,
    reader: StoreBodyReader,
    request: IncomingMessage,
    attempt: IngestAttempt,
  ): Promise<{ id: string }> {
    const eventId = resolveEventId(undefined, reader.eventFacts);
    const filtered = this.filterReason(projectId, reader.eventFacts!, request);
    if (filtered === undefined) await this.accept(attempt, projectId, eventId, reader.event!, undefined);
    else this.countFiltered(projectId, filtered);
    return { id: eventId.replace(/-/g, '') };
  }

  /**
   * The inbound filter that drops this event, if any: a map lookup for a project without filters;
   * with filters, a few reads of the payload ingest has parsed already (no PostgreSQL).
   */
  private filterReason(
    projectId: number,
    facts: EventPayloadFacts,
    request: IncomingMessage,
  ): FilterReason | undefined {
    const payload = facts.payload;
    facts.payload = undefined;
    const filters = this.inboundFilters.forProject(projectId);
    if (filters === undefined || payload === undefined) return undefined;
    return filters.check(payload, filters.needsClientAddress ? this.clientAddress(request) : undefined);
  }

  /** A filtered event is answered 200 like an accepted one (the SDK must not retry), and counted. */
  private countFiltered(projectId: number, reason: FilterReason): void {
    this.metrics.filteredEvents++;
    this.outcomes.count(projectId, [{ outcome: 'filtered', category: 'error', reason, quantity: 1 }]);
    if (this.debug) this.logger.debug(`project ${projectId}: event filtered (${reason})`);
  }

  /**
   * Every accepted request counts against the project's event limits before its body is read, so
   * that a flood over the limit costs no decoding; a request that ends without an accepted event
   * gives its count back (giveBackCount). Over the limit, an envelope is still read when
   * `readsOn` (not brotli, whose first chunk alone can cost milliseconds to decode), up to its first
   * item that is not a session or client report: a project over its event limit still records
   * sessions, and a flood of events over it costs the decoding of two lines each.
   */
  private async countRequest(projectId: number, attempt: IngestAttempt, readsOn: boolean): Promise<void> {
    const { countedAt, refused } = await this.eventLimits.check(projectId);
    attempt.countedAt = countedAt;
    if (!refused) return;
    const refusal = eventLimitRejection(refused);
    if (!readsOn) throw refusal;
    attempt.eventsRefused = refusal;
  }

  /** Queues the event: the request's count against the event limits is kept. */
  private async accept(
    attempt: IngestAttempt,
    projectId: number,
    eventId: string,
    payload: string,
    sdk: QueuedEvent['sdk'],
    receivedAt = Date.now(),
  ): Promise<void> {
    const job: QueuedEvent = { projectId, eventId, receivedAt, payload };
    if (sdk) job.sdk = sdk;
    await this.producer.enqueue(job);
    attempt.countedAt = undefined;
    this.metrics.acceptedEnvelopes++;
    this.metrics.acceptedEvents++;
    if (this.debug) this.logger.debug(`project ${projectId}: queued event ${eventId}`);
  }

  private unauthorized(projectId: number, reason: string): UnauthorizedException {
    if (this.debug) this.logger.debug(`rejected envelope for project ${projectId}: ${reason}`);
    return new UnauthorizedException(`${reason.replace(/ \(.*\)$/, '')} for project ${projectId}`);
  }

  private countRejection(error: unknown, attempt: IngestAttempt): void {
    const status =
      error instanceof HttpException
        ? error.getStatus()
        : error instanceof DatabaseUnavailableError
          ? 503
          : 500;
    this.metrics.reject(status);
    if (attempt.admittedProjectId !== undefined) {
      const types = attempt.reader?.itemTypes;
      if (error instanceof IngestRejection && error.outcomes) {
        this.outcomes.count(attempt.admittedProjectId, error.outcomes);
      } else {
        const outcome = refusalOutcome(status, (error as Error).message, types?.[types.length - 1]);
        if (outcome && error instanceof IngestRejection && error.outcomeReason)
          outcome.reason = error.outcomeReason;
        if (outcome) this.outcomes.count(attempt.admittedProjectId, [outcome]);
      }
    }
    if (status === 413 || status === 415 || status === 400) {
      this.rejectionLog.warn(
        `${status} ${(error as Error).message}`,
        `rejected envelope: ${status} ${(error as Error).message}`,
      );
    }
  }
}
