import {
  BadRequestException,
  HttpException,
  HttpStatus,
  Injectable,
  Logger,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import type { DigestJob } from '../digest/digest-job';
import { readBody } from './body-reader';
import { canonicalUuid, clientKeyFromRequest, keyFromDsn } from './client-key';
import { DigestProducer } from './digest.producer';
import { EnvelopeReader, EventPayloadFacts, StoreBodyReader } from './envelope-reader';
import { IngestMetrics } from './ingest.metrics';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';

/** Sentry answers with the event id as 32 hex digits; `{}` when the envelope held no event. */
export type IngestResult = { id: string } | Record<string, never>;

export type IngestEndpoint = 'envelope' | 'store';

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

interface Authentication {
  projectId: number;
  /** False: no key outside the body; the envelope header's `dsn` must provide it. */
  authenticated: boolean;
}

const PROJECT_ID = /^[1-9]\d{0,9}$/;

export function parseProjectId(raw: string): number {
  const id = PROJECT_ID.test(raw) ? Number(raw) : NaN;
  if (!(id <= 2_147_483_647)) throw new BadRequestException('project id must be a positive integer');
  return id;
}

/**
 * The ingest fast path, independent of Express: authenticate with the client key, read and check
 * the body (headers only), rate limit, enqueue, answer. Errors are HttpExceptions; wrong keys and
 * other rejections are logged at debug only, since a misconfigured SDK fleet would flood the log.
 */
@Injectable()
export class IngestService {
  private readonly logger = new Logger('Ingest');
  private readonly debug: boolean;

  constructor(
    config: AppConfig,
    private readonly projectKeys: ProjectKeys,
    private readonly rateLimiter: IngestRateLimiter,
    private readonly producer: DigestProducer,
    private readonly metrics: IngestMetrics,
  ) {
    this.debug = config.logLevel === 'debug' || config.logLevel === 'trace';
  }

  async ingest(
    endpoint: IngestEndpoint,
    rawProjectId: string,
    request: IncomingMessage,
    sentryKeyParam: string | undefined,
  ): Promise<IngestResult> {
    try {
      const projectId = parseProjectId(rawProjectId);
      const auth = await this.authenticate(
        projectId,
        request.headers,
        sentryKeyParam,
        endpoint === 'envelope',
      );
      return endpoint === 'envelope' ? await this.envelope(auth, request) : await this.store(auth, request);
    } catch (error) {
      this.countRejection(error);
      throw error;
    }
  }

  private async authenticate(
    projectId: number,
    headers: IncomingHttpHeaders,
    sentryKeyParam: string | undefined,
    allowDsn: boolean,
  ): Promise<Authentication> {
    const source = clientKeyFromRequest(headers, sentryKeyParam);
    if (source === undefined) {
      if (allowDsn) return { projectId, authenticated: false };
      throw this.unauthorized(projectId, 'missing client key');
    }
    const key = canonicalUuid(source.key);
    if (key === undefined) throw this.unauthorized(projectId, `malformed client key (${source.from})`);
    const valid = this.projectKeys.isValid(projectId, key);
    if (valid === true || (valid !== false && (await valid))) return { projectId, authenticated: true };
    throw this.unauthorized(projectId, `unknown client key (${source.from})`);
  }

  private async envelope(auth: Authentication, request: IncomingMessage): Promise<IngestResult> {
    const reader = new EnvelopeReader();
    try {
      await readBody(request, reader);
    } catch (error) {
      // Whoever has no key learns nothing about the body.
      if (!auth.authenticated) await this.authenticateWithDsn(auth, reader.header);
      throw error;
    }
    if (!auth.authenticated) await this.authenticateWithDsn(auth, reader.header);
    const header = reader.header!;
    const headerId = header.event_id;
    if (reader.event === undefined) {
      this.metrics.acceptedEnvelopes++;
      if (this.debug)
        this.logger.debug(`project ${auth.projectId}: dropped items ${reader.itemTypes.join(', ')}`);
      const id = typeof headerId === 'string' ? canonicalUuid(headerId) : undefined;
      return id ? { id: id.replace(/-/g, '') } : {};
    }
    const eventId = resolveEventId(headerId, reader.eventFacts);
    await this.accept(auth.projectId, eventId, reader.event, sdkOf(header.sdk));
    return { id: eventId.replace(/-/g, '') };
  }

  private async store(auth: Authentication, request: IncomingMessage): Promise<IngestResult> {
    const reader = new StoreBodyReader();
    await readBody(request, reader);
    const eventId = resolveEventId(undefined, reader.eventFacts);
    await this.accept(auth.projectId, eventId, reader.event!, undefined);
    return { id: eventId.replace(/-/g, '') };
  }

  private async authenticateWithDsn(
    auth: Authentication,
    header: Record<string, unknown> | undefined,
  ): Promise<void> {
    const dsn = keyFromDsn(header?.dsn);
    if (dsn === undefined) throw this.unauthorized(auth.projectId, 'missing client key');
    const key = canonicalUuid(dsn.key);
    if (dsn.projectId !== auth.projectId || key === undefined) {
      throw this.unauthorized(auth.projectId, 'envelope dsn does not match the project');
    }
    if (!(await this.projectKeys.isValid(auth.projectId, key))) {
      throw this.unauthorized(auth.projectId, 'unknown client key (dsn)');
    }
    auth.authenticated = true;
  }

  private async accept(
    projectId: number,
    eventId: string,
    payload: string,
    sdk: DigestJob['sdk'],
  ): Promise<void> {
    let decision;
    try {
      decision = await this.rateLimiter.take(projectId);
    } catch (error) {
      this.logger.warn(`rate limiter unavailable: ${(error as Error).message}`);
      throw new ServiceUnavailableException('rate limiter unavailable, try again later');
    }
    if (!decision.allowed) {
      const seconds = String(decision.retryAfterSeconds);
      throw new IngestRejection(
        `rate limit exceeded: more than ${decision.limit} events per ${decision.window} for this project`,
        HttpStatus.TOO_MANY_REQUESTS,
        // Sentry's format: <seconds>:<categories>:<scope>; SDKs stop sending errors until then.
        { 'Retry-After': seconds, 'X-Sentry-Rate-Limits': `${seconds}:error;default:project` },
      );
    }
    const job: DigestJob = { projectId, eventId, receivedAt: Date.now(), payload };
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

  private countRejection(error: unknown): void {
    if (!(error instanceof HttpException)) return;
    const status = error.getStatus();
    this.metrics.reject(status);
    if (status === 413 || status === 415 || status === 400) {
      this.logger.warn(`rejected envelope: ${status} ${error.message}`);
    }
  }
}

function resolveEventId(headerId: unknown, facts: EventPayloadFacts | undefined): string {
  const raw = headerId ?? facts?.eventId;
  if (raw === undefined || raw === null) return randomUUID();
  const id = typeof raw === 'string' ? canonicalUuid(raw) : undefined;
  if (id === undefined) throw new BadRequestException('event_id must be a UUID');
  return id;
}

function sdkOf(value: unknown): DigestJob['sdk'] {
  if (value === null || typeof value !== 'object') return undefined;
  const { name, version } = value as { name?: unknown; version?: unknown };
  const sdk: NonNullable<DigestJob['sdk']> = {};
  if (typeof name === 'string') sdk.name = name;
  if (typeof version === 'string') sdk.version = version;
  return sdk.name || sdk.version ? sdk : undefined;
}
