import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { HashingBusyError } from '../common/crypto';
import { DomainError, MovedError } from '../common/domain-errors';
import { classifyDatabaseError, isDatabaseUnavailable } from '../database/database-errors';
import { DatabaseUnavailableError } from '../database/database-unavailable.error';
import { RepeatedLog } from '../common/repeated-log';
import { TOO_DEEP } from '../common/validation';

/** Body-parser and other express middleware report problems as errors carrying a status. */
interface ErrorWithStatus {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
}

const BODY_PARSER_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'request body is not valid JSON',
  'entity.too.large': 'request body is too large',
  'encoding.unsupported': 'unsupported content encoding',
  'charset.unsupported': 'unsupported charset',
  'entity.too.deep': TOO_DEEP,
};

/** Body-parser failures become HttpExceptions with a message fit for a client. */
export function bodyParserError(error: unknown): unknown {
  const { status, statusCode, type } = (error ?? {}) as ErrorWithStatus;
  const code = status ?? statusCode;
  if (typeof code !== 'number' || code < 400 || code >= 500) return error;
  return new HttpException((type && BODY_PARSER_MESSAGES[type]) ?? 'bad request', code);
}

/**
 * The single place where errors become responses: every error body is `{ "error": "<message>" }`.
 * Unexpected errors are logged with a correlation id and answered with a generic 500, so nothing
 * internal (stack traces, SQL) ever reaches a client.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const { status, body } = describeError(exception, this.logger);
    if (exception instanceof MovedError) {
      const path = host.switchToHttp().getRequest<Request>().originalUrl;
      response.setHeader('Location', exception.locationFor(path));
    }
    if (exception instanceof HashingBusyError) response.setHeader('Retry-After', '1');
    response.status(status).json(body);
  }
}

const filterLogger = new Logger('ApiErrorFilter');
/** An outage fails every request: one line per interval says so, with the count. */
const unavailableLog = new RepeatedLog(filterLogger, 30_000);
const stackLog = new RepeatedLog(filterLogger, 60_000);

/** Status and `{ error }` body for any error; also used by the ingest fast path, which bypasses Nest. */
export function describeError(
  exception: unknown,
  logger: Logger,
): { status: number; body: { error: string } & Record<string, unknown> } {
  if (exception instanceof DomainError) {
    const status = {
      not_found: HttpStatus.NOT_FOUND,
      conflict: HttpStatus.CONFLICT,
      invalid_input: HttpStatus.BAD_REQUEST,
      forbidden: HttpStatus.FORBIDDEN,
      gone: HttpStatus.GONE,
      not_implemented: HttpStatus.NOT_IMPLEMENTED,
      // Where to: `Location`, which the filter sets from the request's path (MovedError.locationFor).
      moved: HttpStatus.PERMANENT_REDIRECT,
    }[exception.kind];
    const details = exception instanceof MovedError ? exception.details : {};
    return { status, body: { error: exception.message, ...details } };
  }
  // Every route that hashes a password (sign-in, invitations, password changes) is busy together.
  if (exception instanceof HashingBusyError) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: { error: 'sign-in is busy, try again in a moment' },
    };
  }
  if (exception instanceof HttpException) {
    return { status: exception.getStatus(), body: bodyOf(exception.getResponse(), exception.message) };
  }
  if (exception instanceof DatabaseUnavailableError || isDatabaseUnavailable(exception)) {
    unavailableLog.warn('database', `database unavailable: ${(exception as Error).message}; answering 503`);
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      body: { error: 'database unavailable, try again later' },
    };
  }
  // Two transactions met (a deadlock, a serialization failure): PostgreSQL rolled this one back, so
  // nothing was written, and the same request sent again goes through.
  if (classifyDatabaseError(exception) === 'conflict') {
    return {
      status: HttpStatus.CONFLICT,
      body: { error: 'the change met a concurrent one and was not made: send it again' },
    };
  }
  const correlationId = randomUUID();
  const message = (exception as Error)?.message ?? String(exception);
  // Every 500 gets its reference in the log; the stack only once per interval for the same message.
  const logged = stackLog.error(message, `unhandled error ${correlationId}: ${message}`, {
    err: exception,
    correlationId,
  });
  if (!logged)
    logger.error({ correlationId }, `unhandled error ${correlationId}: ${message} (stack logged earlier)`);
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: { error: `internal server error (reference ${correlationId})` },
  };
}

/**
 * Nest's built-in exceptions carry `{ statusCode, message, error: <status text> }`: the message is
 * what matters. An exception built with our own `{ error, ...details }` body is passed through.
 */
function bodyOf(response: unknown, fallback: string): { error: string } {
  if (typeof response === 'string') return { error: response };
  if (response && typeof response === 'object') {
    const record = response as Record<string, unknown>;
    if ('statusCode' in record) {
      if (typeof record.message === 'string') return { error: record.message };
      if (Array.isArray(record.message)) return { error: record.message.map(String).join('; ') };
    } else if (typeof record.error === 'string') {
      return record as { error: string };
    }
  }
  return { error: fallback };
}
