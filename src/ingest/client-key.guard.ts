import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  Injectable,
  Logger,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { canonicalUuid, clientKeyFromRequest } from './client-key';
import { IngestMetrics } from './ingest.metrics';
import { ProjectKeys } from './project-keys';

const DSN_AUTH = 'ingest:dsnAuth';

/** Marks a route whose body (an envelope) may carry the client key in its header's `dsn`. */
export const AllowEnvelopeDsnAuth = () => SetMetadata(DSN_AUTH, true);

export interface IngestAuth {
  projectId: number;
  /** False: no key outside the body; the route must authenticate with the envelope's `dsn`. */
  authenticated: boolean;
}

export type IngestRequest = Request & { ingestAuth?: IngestAuth };

const PROJECT_ID = /^[1-9]\d{0,9}$/;

export function parseProjectId(raw: unknown): number {
  const id = typeof raw === 'string' && PROJECT_ID.test(raw) ? Number(raw) : NaN;
  if (!(id <= 2_147_483_647)) throw new BadRequestException('project id must be a positive integer');
  return id;
}

/**
 * Client-key authentication of the ingest routes (they are @Public() for the bearer guard).
 * Wrong project, wrong or malformed key: 401. Failures are logged at debug only: a misconfigured
 * SDK fleet would otherwise flood the log.
 */
@Injectable()
export class ClientKeyGuard implements CanActivate {
  private readonly logger = new Logger('Ingest');

  constructor(
    private readonly reflector: Reflector,
    private readonly projectKeys: ProjectKeys,
    private readonly metrics: IngestMetrics,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<IngestRequest>();
    let projectId: number;
    try {
      projectId = parseProjectId(request.params.projectId);
    } catch (error) {
      this.metrics.reject(400);
      throw error;
    }
    const source = clientKeyFromRequest(request.headers, request.query as Record<string, unknown>);
    if (source === undefined) {
      if (this.reflector.get<boolean>(DSN_AUTH, context.getHandler())) {
        request.ingestAuth = { projectId, authenticated: false };
        return true;
      }
      throw this.unauthorized(projectId, 'missing client key');
    }
    const key = canonicalUuid(source.key);
    if (key === undefined) throw this.unauthorized(projectId, `malformed client key (${source.from})`);
    const valid = this.projectKeys.isValid(projectId, key);
    if (valid === true) {
      request.ingestAuth = { projectId, authenticated: true };
      return true;
    }
    if (valid === false) throw this.unauthorized(projectId, `unknown client key (${source.from})`);
    return valid.then((ok) => {
      if (!ok) throw this.unauthorized(projectId, `unknown client key (${source.from})`);
      request.ingestAuth = { projectId, authenticated: true };
      return true;
    });
  }

  unauthorized(projectId: number, reason: string): UnauthorizedException {
    this.metrics.reject(401);
    this.logger.debug(`rejected envelope for project ${projectId}: ${reason}`);
    return new UnauthorizedException(`${reason.replace(/ \(.*\)$/, '')} for project ${projectId}`);
  }
}
