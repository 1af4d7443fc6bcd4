import {
  BadRequestException,
  HttpException,
  HttpStatus,
  Injectable,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import type { DigestJob } from '../digest/digest-job';
import { readBody } from './body-reader';
import { canonicalUuid, keyFromDsn } from './client-key';
import { ClientKeyGuard, IngestAuth, IngestRequest } from './client-key.guard';
import { DigestProducer } from './digest.producer';
import { EnvelopeReader, EventPayloadFacts, StoreBodyReader } from './envelope-reader';
import { IngestMetrics } from './ingest.metrics';
import { ProjectKeys } from './project-keys';
import { IngestRateLimiter } from './rate-limiter';

/** Sentry answers with the event id as 32 hex digits; `{}` when the envelope held no event. */
export type IngestResult = { id: string } | Record<string, never>;

@Injectable()
export class IngestService {
  private readonly logger = new Logger('Ingest');
  private readonly debug: boolean;

  constructor(
    config: AppConfig,
    private readonly projectKeys: ProjectKeys,
    private readonly guard: ClientKeyGuard,
    private readonly rateLimiter: IngestRateLimiter,
    private readonly producer: DigestProducer,
    private readonly metrics: IngestMetrics,
  ) {
    this.debug = config.logLevel === 'debug' || config.logLevel === 'trace';
  }

  async envelope(request: IngestRequest, response: Response): Promise<IngestResult> {
    const auth = authOf(request);
    const reader = new EnvelopeReader();
    try {
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
        if (this.debug) this.logger.debug(`project ${auth.projectId}: dropped items ${reader.itemTypes.join(', ')}`);
        const id = typeof headerId === 'string' ? canonicalUuid(headerId) : undefined;
        return id ? { id: id.replace(/-/g, '') } : {};
      }
      const eventId = resolveEventId(headerId, reader.eventFacts);
      await this.accept(auth.projectId, eventId, reader.event, sdkOf(header.sdk), response);
      return { id: eventId.replace(/-/g, '') };
    } catch (error) {
      this.countRejection(error);
      throw error;
    }
  }

  async store(request: IngestRequest, response: Response): Promise<IngestResult> {
    const auth = authOf(request);
    const reader = new StoreBodyReader();
    try {
      await readBody(request, reader);
      const eventId = resolveEventId(undefined, reader.eventFacts);
      await this.accept(auth.projectId, eventId, reader.event!, undefined, response);
      return { id: eventId.replace(/-/g, '') };
    } catch (error) {
      this.countRejection(error);
      throw error;
    }
  }

  private async authenticateWithDsn(auth: IngestAuth, header: Record<string, unknown> | undefined): Promise<void> {
    const dsn = keyFromDsn(header?.dsn);
    if (dsn === undefined) throw this.guard.unauthorized(auth.projectId, 'missing client key');
    const key = canonicalUuid(dsn.key);
    if (dsn.projectId !== auth.projectId || key === undefined) {
      throw this.guard.unauthorized(auth.projectId, 'envelope dsn does not match the project');
    }
    if (!(await this.projectKeys.isValid(auth.projectId, key))) {
      throw this.guard.unauthorized(auth.projectId, 'unknown client key (dsn)');
    }
    auth.authenticated = true;
  }

  private async accept(
    projectId: number,
    eventId: string,
    payload: string,
    sdk: DigestJob['sdk'],
    response: Response,
  ): Promise<void> {
    let decision;
    try {
      decision = await this.rateLimiter.take(projectId);
    } catch (error) {
      this.logger.warn(`rate limiter unavailable: ${(error as Error).message}`);
      throw new ServiceUnavailableException('rate limiter unavailable, try again later');
    }
    if (!decision.allowed) {
      const seconds = decision.retryAfterSeconds;
      response.setHeader('Retry-After', String(seconds));
      // Sentry's format: <seconds>:<categories>:<scope>; SDKs stop sending errors until then.
      response.setHeader('X-Sentry-Rate-Limits', `${seconds}:error;default:project`);
      throw new HttpException(
        `rate limit exceeded: more than ${decision.limit} events per ${decision.window} for this project`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    const job: DigestJob = { projectId, eventId, receivedAt: Date.now(), payload };
    if (sdk) job.sdk = sdk;
    await this.producer.enqueue(job);
    this.metrics.acceptedEnvelopes++;
    this.metrics.acceptedEvents++;
    if (this.debug) this.logger.debug(`project ${projectId}: queued event ${eventId}`);
  }

  private countRejection(error: unknown): void {
    if (!(error instanceof HttpException)) return;
    const status = error.getStatus();
    if (status === 401) return; // counted by the guard
    this.metrics.reject(status);
    if (status === 413 || status === 415 || status === 400) {
      this.logger.warn(`rejected envelope: ${status} ${error.message}`);
    }
  }
}

function authOf(request: IngestRequest): IngestAuth {
  const auth = request.ingestAuth;
  if (!auth) throw new Error('ClientKeyGuard did not run');
  return auth;
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
