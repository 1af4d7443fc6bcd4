import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../http/api-error.filter';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../common/cors';
import { CRON_CHECK_IN_ROUTE, CronCheckInEndpoint } from './cron-check-in.endpoint';
import { IngestEndpoint, IngestRejection, IngestService } from './ingest.service';

const INGEST_ROUTE = /^\/api\/([^/]+)\/(envelope|store)\/?$/;

/** What browser SDKs need: any origin, the Sentry headers, and the rate-limit headers readable. */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
  'X-Content-Type-Options': 'nosniff',
};
const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
  'Access-Control-Max-Age': '86400',
};

/**
 * Serves the ingest routes straight from Node's HTTP server, ahead of Express and Nest: the route
 * carries most of the traffic, and Express routing, the global guards, the body parser, cookie and
 * CORS middleware and Nest's request pipeline together cost more CPU per envelope than everything
 * ingest itself does (see bench/ingest.ts and docs/performance.md). Authentication,
 * limits and errors follow the same rules and the same `{ "error" }` shape as the rest of the API.
 */
@Injectable()
export class IngestHttpHandler {
  private readonly logger = new Logger('Ingest');

  constructor(
    private readonly ingest: IngestService,
    private readonly cron: CronCheckInEndpoint,
  ) {}

  /** Handles the request and returns true when it is for an ingest route; false lets Express have it. */
  tryHandle(request: IncomingMessage, response: ServerResponse): boolean {
    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const match = INGEST_ROUTE.exec(path);
    if (!match) return this.tryCronCheckIn(path, queryStart === -1 ? '' : url.slice(queryStart + 1), request, response);
    if (request.method === 'OPTIONS') {
      response.writeHead(204, PREFLIGHT_HEADERS).end();
    } else if (request.method === 'GET' && match[2] === 'store' && queryStart !== -1) {
      this.beacon(match[1], request, response, new URLSearchParams(url.slice(queryStart + 1)));
    } else if (request.method !== 'POST') {
      send(
        response,
        405,
        { error: `${request.method} is not allowed here; SDKs POST envelopes` },
        { Allow: 'POST, OPTIONS' },
      );
    } else {
      const sentryKey =
        queryStart === -1
          ? undefined
          : (new URLSearchParams(url.slice(queryStart + 1)).get('sentry_key') ?? undefined);
      this.ingest.ingest(match[2] as IngestEndpoint, match[1], request, sentryKey).then(
        (result) => send(response, 200, result),
        (error: unknown) => this.sendError(response, error),
      );
    }
    return true;
  }

  /** The DSN check-in URL of cron monitors (CronCheckInEndpoint): GET or POST, 202. */
  private tryCronCheckIn(path: string, query: string, request: IncomingMessage, response: ServerResponse): boolean {
    const match = CRON_CHECK_IN_ROUTE.exec(path);
    if (!match) return false;
    if (request.method === 'OPTIONS') {
      response.writeHead(204, PREFLIGHT_HEADERS).end();
    } else if (request.method !== 'GET' && request.method !== 'POST') {
      request.resume();
      send(response, 405, { error: `${request.method} is not allowed here: GET or POST a check-in` }, {
        Allow: 'GET, POST, OPTIONS',
      });
    } else {
      this.cron.checkIn(request, match[1], match[2], match[3], new URLSearchParams(query)).then(
        (result) => send(response, 202, result),
        (error: unknown) => this.sendError(response, error),
      );
    }
    return true;
  }

  /**
   * raven-js 1.x reports through an image request: `GET /api/<id>/store/?sentry_data=<event
   * JSON>&sentry_key=…`, and needs an image back for the browser to call it a success.
   */
  private beacon(
    rawProjectId: string,
    request: IncomingMessage,
    response: ServerResponse,
    query: URLSearchParams,
  ): void {
    this.ingest
      .storeFromQuery(rawProjectId, request, query.get('sentry_data'), query.get('sentry_key') ?? undefined)
      .then(
        (result) => {
          response.writeHead(200, {
            ...CORS_HEADERS,
            'Content-Type': 'image/gif',
            'Content-Length': PIXEL.length,
            'Cache-Control': 'no-store',
            'X-Sentry-ID': result.id,
          });
          response.end(PIXEL);
        },
        (error: unknown) => this.sendError(response, error),
      );
  }

  private sendError(response: ServerResponse, error: unknown): void {
    const { status, body } = describeError(error, this.logger);
    // Raven-protocol clients log the reason from this header.
    const headers: Record<string, string> = { 'X-Sentry-Error': body.error.replace(/[^\x20-\x7e]/g, '?') };
    send(
      response,
      status,
      body,
      error instanceof IngestRejection ? { ...headers, ...error.headers } : headers,
    );
  }
}

/** The smallest transparent GIF: the answer to an image beacon. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

function send(
  response: ServerResponse,
  status: number,
  body: object,
  headers?: Record<string, string>,
): void {
  if (response.headersSent) return;
  const json = JSON.stringify(body);
  response.writeHead(status, {
    ...CORS_HEADERS,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  response.end(json);
}
