import { Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { AppConfig } from '../../config/app-config';
import { DeliveryError } from './delivery-error';
import { RefusalReason } from '../../common/ip-ranges';
import { guardedLookup, literalRefusal, refusalWords } from '../../common/outbound-address';

/** A receiver that has not answered within this time has failed this attempt (the queue retries). */
export const OUTBOUND_TIMEOUT_MS = 5_000;

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Names the receiver in messages: "webhook answered 200 OK". */
  label: string;
}

/**
 * What is kept of a receiver's answer: its status and the standard reason phrase for it. Neither the
 * body nor the receiver's own reason phrase is kept: either may echo the request (secret headers,
 * credentials in the URL), and delivery messages reach the API (test endpoint, history, last_error).
 */
export interface OutboundResponse {
  status: number;
  statusText: string;
}

/** The refusal message names the setting that lifts it, so an operator knows what to change. */
function refusedMessage(target: string, reason: RefusalReason, resolved: boolean): string {
  return `${refusalWords(target, reason, resolved)} (set ALERTS_ALLOW_PRIVATE_NETWORKS=true to allow them)`;
}

/** Connect-time lookup for alerts: a refused address is a permanent delivery failure. */
const alertLookup = guardedLookup(
  (target, reason, resolved) => new DeliveryError(refusedMessage(target, reason, resolved), true),
);

/**
 * The only way alerts reach the network over HTTP: http(s) only, the destination checked at connect
 * time (see `guardedLookup`), redirects never followed, one overall timeout, a fresh connection per
 * request (no keep-alive pool that could reuse a connection resolved under other rules).
 */
@Injectable()
export class OutboundHttp {
  constructor(private readonly config: AppConfig) {}

  /** Resolves with any HTTP answer; rejects with a DeliveryError when no answer was obtained. */
  async post(request: OutboundRequest): Promise<OutboundResponse> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new DeliveryError(`${request.label} URL is not a valid URL`, true);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DeliveryError(
        `${request.label} URL must use http or https, not ${url.protocol.replace(':', '')}`,
        true,
      );
    }
    const allowPrivate = this.config.ALERTS_ALLOW_PRIVATE_NETWORKS;
    // The URL parser has already turned decimal, hex and octal IPv4 spellings into dotted quads; a
    // literal address is never passed to lookup by Node, so it is checked here.
    const literal = allowPrivate ? null : literalRefusal(url);
    if (literal !== null) throw new DeliveryError(refusedMessage(url.hostname, literal, false), true);
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body, 'utf8');

    return new Promise<OutboundResponse>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, response?: OutboundResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(response!);
      };
      const req = client.request(url, {
        method: 'POST',
        agent: false,
        lookup: allowPrivate ? undefined : alertLookup,
        headers: { ...request.headers, 'Content-Length': String(body.length) },
      });
      const timer = setTimeout(() => {
        req.destroy(
          new DeliveryError(`${request.label} did not answer within ${OUTBOUND_TIMEOUT_MS / 1000} s`),
        );
      }, OUTBOUND_TIMEOUT_MS);
      req.on('error', (error) => finish(toDeliveryError(error, request.label, url)));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        // The status line is the whole answer: the body is not read, and the connection (never
        // reused, see agent: false) is closed at once rather than held open by a slow receiver.
        finish(null, { status, statusText: http.STATUS_CODES[status] ?? '' });
        res.destroy();
      });
      req.end(body);
    });
  }
}

function toDeliveryError(error: Error, label: string, url: URL): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const target = url.host;
  switch (code ?? '') {
    case 'ECONNREFUSED':
      return new DeliveryError(`${label} connection to ${target} refused`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new DeliveryError(`${label} host ${url.hostname} could not be resolved`);
    case 'ECONNRESET':
      return new DeliveryError(`${label} connection to ${target} was reset`);
    case 'ETIMEDOUT':
      return new DeliveryError(`${label} connection to ${target} timed out`);
    default:
      return new DeliveryError(`${label} request to ${target} failed: ${error.message}`);
  }
}

/** "webhook answered 200 OK" */
export function describeResponse(label: string, response: OutboundResponse): string {
  return `${label} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

/**
 * Turns an HTTP answer into the outcome of a delivery: 2xx is success, a redirect is a failure
 * (never followed: it could point anywhere, including a private address), anything else is a
 * failure described by its status.
 */
export function requireSuccess(label: string, response: OutboundResponse): string {
  const described = describeResponse(label, response);
  if (response.status >= 200 && response.status < 300) return described;
  if (response.status >= 300 && response.status < 400) {
    throw new DeliveryError(`${described}: redirects are not followed, configure the final URL`);
  }
  throw new DeliveryError(described);
}
