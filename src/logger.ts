import type { LoggerService } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import pino, { Logger as Pino } from 'pino';
import { RepeatedLog } from './common/repeated-log';
import type { LogLevel } from './config/environment';

/** Nest's boot chatter (one line per module and route) is debug material, not "an event of interest". */
const BOOT_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

export function createPino(level: LogLevel): Pino {
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * Nest's LoggerService on top of pino: one JSON line per call, with the Nest context as `context`.
 * Deliberately no per-request AsyncLocalStorage (as nestjs-pino has): its promise hooks slow every
 * await of the ingest hot path, and a request id is not worth that.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * Nest calls `logger.x(message, context)` or `logger.x(message, stack, context)`; our own code
   * also passes `logger.x({ err, ... }, message)` in the pino style.
   */
  private write(level: pino.Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    if (message !== null && typeof message === 'object' && !(message instanceof Error)) {
      const text = typeof rest[0] === 'string' ? rest[0] : undefined;
      const fields = context && text === undefined ? {} : { context };
      this.pino[level]({ ...fields, ...(message as object) }, text ?? context ?? '');
      return;
    }
    const stack = typeof rest[0] === 'string' ? rest[0] : undefined;
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.message);
    else this.pino[level]({ context, ...(stack ? { stack } : {}) }, String(message));
  }
}

/** Query parameters whose values are credentials: client keys, tokens, passwords, signatures. */
const SECRET_PARAMETER = /key|token|secret|passw|pwd|auth|session|signature|sig$|credential|code$/i;

/** Paths that carry a secret as a segment: an invitation link's. */
const SECRET_PATH = /^(\/auth\/invitations\/)[^/?]+/;

/** The URL as it may be logged: secrets in the path and values of parameters named like secrets are replaced. */
export function redactUrl(rawUrl: string): string {
  const url = rawUrl.replace(SECRET_PATH, '$1[redacted]');
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const parts = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals === -1 ? pair : pair.slice(0, equals);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judge the name as sent
      }
      return equals !== -1 && SECRET_PARAMETER.test(name) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryStart)}?${parts.join('&')}`;
}

/**
 * One line per API request that went wrong (4xx warn, 5xx error), successful ones at debug; the same
 * failure on the same route is logged once per interval with a count (an outage fails every request,
 * a scanner tries every path).
 * Secrets in query strings never reach the log.
 */
export function requestLogMiddleware(logger: Pino, repeatIntervalMs = 10_000) {
  const failures = new RepeatedLog(logger, repeatIntervalMs);
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const status = response.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'debug';
      if (!logger.isLevelEnabled(level)) return;
      const url = redactUrl(request.originalUrl);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const fields = { context: 'http', method: request.method, url, status, ms: Math.round(ms * 10) / 10 };
      const message = `${request.method} ${url} ${status}`;
      if (level === 'debug') return logger.debug(fields, message);
      // The route, not the path: requests for random paths or ids are one kind of failure.
      const route = (request.route as { path?: unknown } | undefined)?.path;
      failures[level](
        `${status} ${request.method} ${typeof route === 'string' ? route : '(no route)'}`,
        message,
        fields,
      );
    });
    next();
  };
}
