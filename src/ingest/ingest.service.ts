import {
  BadRequestException,
  HttpException,
  HttpStatus,
  Injectable,
  Logger,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import type { QueuedEvent } from '../digest/digest-job';
import { bodyRejection, parseContentEncoding, readBody } from './body-reader';
import { RepeatedLog } from '../common/repeated-log';
import { DatabaseUnavailableError } from '../database/database-unavailable.error';
import { canonicalUuid, ClientKeySource, clientKeyFromRequest, keyFromDsn } from './client-key';
import { DigestProducer } from './digest.producer';
import { EnvelopeReader, EventPayloadFacts, MAX_HEADER_LINE_BYTES, StoreBodyReader } from './envelope-reader';
import { IngestMetrics } from './ingest.metrics';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';
import { envelopeOutcomes, refusalOutcome } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { AttachmentIntakes } from './attachment-intake';

/** Sentry answers with the event id as 32 hex digits; `{}` when the envelope held no event. */
export type IngestResult = { id: string } | Record<string, never>;

export type IngestEndpoint = 'envelope' | 'store';

/** How far a request got: a refusal after its key was accepted is counted as the project's outcome. */
interface IngestAttempt {
  admittedProjectId?: number;
  reader?: EnvelopeReader;
}

/** An HttpException that also carries response headers (429's Retry-After and X-Sentry-Rate-Limits). */
export class IngestRejection extends HttpException {
  constructor(
    message: string,
    status: number,
    readonly headers: Record<string, string>,
  ) {
    super(message, status);
  }
}

const PROJECT_ID = /^[1-9]\d{0,9}$/;

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

  constructor(
    config: AppConfig,
    private readonly projectKeys: ProjectKeys,
    private readonly rateLimiter: IngestRateLimiter,
    private readonly producer: DigestProducer,
    private readonly metrics: IngestMetrics,
    private readonly outcomes: OutcomeCounter,
    private readonly attachmentIntakes: AttachmentIntakes,
  ) {
    this.debug = config.logLevel === 'debug' || config.logLevel === 'trace';
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
      await this.admit(projectId, source.key, source.from, attempt);
      if (endpoint === 'envelope') {
        attempt.reader = new EnvelopeReader();
        return this.envelope(projectId, attempt.reader, request);
      }
      const reader = new StoreBodyReader();
      await readBody(request, reader);
      return this.acceptStoreEvent(projectId, reader);
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
      return this.acceptStoreEvent(projectId, reader);
    });
  }

  private async countingRejections<T>(work: (attempt: IngestAttempt) => Promise<T>): Promise<T> {
    const attempt: IngestAttempt = {};
    try {
      return await work(attempt);
    } catch (error) {
      this.countRejection(error, attempt);
      throw error;
    }
  }

  /** The key is the project's, and the project is within its rate limits. */
  private async admit(
    projectId: number,
    key: string,
    from: ClientKeySource['from'],
    attempt: IngestAttempt,
  ): Promise<void> {
    await this.checkKey(projectId, key, from);
    attempt.admittedProjectId = projectId;
    if (this.rateLimiter.enabled) await this.countRequest(projectId);
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
    if (parseContentEncoding(request.headers['content-encoding'] as string | undefined) === 'br') {
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
      await this.admit(projectId, dsn.key, 'dsn', attempt);
    };
    attempt.reader = new EnvelopeReader();
    return this.envelope(projectId, attempt.reader, request, {
      check,
      maxFirstLineBytes: MAX_HEADER_LINE_BYTES,
    });
  }

  private async envelope(
    projectId: number,
    reader: EnvelopeReader,
    request: IncomingMessage,
    checkFirstLine?: Parameters<typeof readBody>[3],
  ): Promise<IngestResult> {
    // Attachments are streamed to storage as they arrive and recorded before the answer.
    const attachments = this.attachmentIntakes.open(projectId);
    reader.streamItems('attachment', attachments);
    try {
      await readBody(request, reader, undefined, checkFirstLine);
    } catch (error) {
      await attachments.abort();
      throw error;
    }
    const header = reader.header!;
    const headerId = header.event_id;
    const receivedAt = Date.now();
    if (reader.event === undefined) {
      const id = typeof headerId === 'string' ? canonicalUuid(headerId) : undefined;
      if (attachments.started) await attachments.commit(id, new Date(receivedAt));
      this.metrics.acceptedEnvelopes++;
      if (this.debug) this.logger.debug(`project ${projectId}: dropped items ${reader.itemTypes.join(', ')}`);
      this.countItemOutcomes(projectId, reader);
      return id ? { id: id.replace(/-/g, '') } : {};
    }
    let eventId: string;
    try {
      eventId = resolveEventId(headerId, reader.eventFacts);
    } catch (error) {
      await attachments.abort();
      throw error;
    }
    if (attachments.started) await attachments.commit(eventId, new Date(receivedAt));
    await this.accept(projectId, eventId, reader.event, sdkOf(header.sdk), receivedAt);
    this.countItemOutcomes(projectId, reader);
    return { id: eventId.replace(/-/g, '') };
  }

  /** The common envelope, one event and nothing else, has nothing to count and costs one comparison. */
  private countItemOutcomes(projectId: number, reader: EnvelopeReader): void {
    const types = reader.itemTypes;
    if (types.length === 1 && types[0] === 'event') return;
    this.outcomes.count(projectId, envelopeOutcomes(types, reader.clientReports));
  }

  private async acceptStoreEvent(projectId: number, reader: StoreBodyReader): Promise<{ id: string }> {
    const eventId = resolveEventId(undefined, reader.eventFacts);
    await this.accept(projectId, eventId, reader.event!, undefined);
    return { id: eventId.replace(/-/g, '') };
  }

  /**
   * Every accepted request counts against the project's limits, whatever it carries: the count has
   * to be taken before the body is read, so that a flood over the limit costs no decoding.
   */
  private async countRequest(projectId: number): Promise<void> {
    let decision;
    try {
      decision = await this.rateLimiter.take(projectId);
    } catch (error) {
      this.rejectionLog.warn('rate limiter', `rate limiter unavailable: ${(error as Error).message}`);
      throw new ServiceUnavailableException('rate limiter unavailable, try again later');
    }
    if (!decision.allowed) {
      const seconds = String(decision.retryAfterSeconds);
      throw new IngestRejection(
        `rate limit exceeded: more than ${decision.limit} events per ${decision.window} for this project`,
        HttpStatus.TOO_MANY_REQUESTS,
        // Sentry's format: <seconds>:<categories>:<scope>; no category means all of them, as every
        // request counts. SDKs stop sending until then.
        { 'Retry-After': seconds, 'X-Sentry-Rate-Limits': `${seconds}::project` },
      );
    }
  }

  private async accept(
    projectId: number,
    eventId: string,
    payload: string,
    sdk: QueuedEvent['sdk'],
    receivedAt = Date.now(),
  ): Promise<void> {
    const job: QueuedEvent = { projectId, eventId, receivedAt, payload };
    if (sdk) job.sdk = sdk;
    await this.producer.enqueue(job);
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
      const outcome = refusalOutcome(status, (error as Error).message, types?.[types.length - 1]);
      if (outcome) this.outcomes.count(attempt.admittedProjectId, [outcome]);
    }
    if (status === 413 || status === 415 || status === 400) {
      this.rejectionLog.warn(
        `${status} ${(error as Error).message}`,
        `rejected envelope: ${status} ${(error as Error).message}`,
      );
    }
  }
}

/** The `dsn` of an envelope header line, if the line is a JSON object that has one. */
function headerDsn(line: string): unknown {
  try {
    const header = JSON.parse(line) as unknown;
    return header !== null && typeof header === 'object' ? (header as { dsn?: unknown }).dsn : undefined;
  } catch {
    return undefined;
  }
}

function resolveEventId(headerId: unknown, facts: EventPayloadFacts | undefined): string {
  const raw = headerId ?? facts?.eventId;
  if (raw === undefined || raw === null) return randomUUID();
  const id = typeof raw === 'string' ? canonicalUuid(raw) : undefined;
  if (id === undefined) throw new BadRequestException('event_id must be a UUID');
  return id;
}

function sdkOf(value: unknown): QueuedEvent['sdk'] {
  if (value === null || typeof value !== 'object') return undefined;
  const { name, version } = value as { name?: unknown; version?: unknown };
  const sdk: NonNullable<QueuedEvent['sdk']> = {};
  if (typeof name === 'string') sdk.name = name;
  if (typeof version === 'string') sdk.version = version;
  return sdk.name || sdk.version ? sdk : undefined;
}
