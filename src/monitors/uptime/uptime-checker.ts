import { Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import tls, { type TLSSocket } from 'node:tls';
import { RefusalReason, refusalReason } from '../../common/ip-ranges';
import { AddressPolicy, guardedLookup, literalRefusal, refusalWords } from '../../common/outbound-address';
import { AppConfig } from '../../config/app-config';
import { checkUrl, UptimeMethod } from './uptime-monitor-rules';

/** Names the product to the sites it checks, so that their operators know who calls. */
export const UPTIME_USER_AGENT = 'error-tracker-uptime/1.0 (uptime check; +https://github.com/error-tracker)';
/** How much of a body is read to look for `body_contains`: enough for a health page, bounded. */
export const MAX_BODY_READ_BYTES = 64 * 1024;
/** Redirects followed, each checked again like the first URL. */
export const MAX_REDIRECTS = 5;

export interface CheckRequest {
  url: string;
  method: UptimeMethod;
  headers: Record<string, string>;
  body: string | null;
  expectedStatusMin: number;
  expectedStatusMax: number;
  bodyContains: string | null;
  timeoutSeconds: number;
}

export interface CheckResult {
  ok: boolean;
  /** From the request to the answer's end (its headers, or the body when it was read). */
  responseMs: number | null;
  statusCode: number | null;
  /** Why the check failed, in words for the dashboard; null when ok. */
  error: string | null;
  /** The expiry of the last TLS certificate seen (the final URL's, after redirects). */
  tlsExpiresAt: Date | null;
}

/** A failure of the check: its message is what the monitor shows. */
class CheckFailure extends Error {}

function refusedMessage(target: string, reason: RefusalReason, resolved: boolean): string {
  return `${refusalWords(target, reason, resolved)} (set UPTIME_ALLOW_PRIVATE_NETWORKS=true to allow them)`;
}

const refuse = (target: string, reason: RefusalReason, resolved: boolean) =>
  new CheckFailure(refusedMessage(target, reason, resolved));

interface Answer {
  status: number;
  location: string | null;
  body: string | null;
  tlsExpiresAt: Date | null;
}

/** What one request of a check sends: after a redirect, maybe less than the monitor's settings. */
interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/**
 * Checks one URL the way the uptime monitors need: http(s) only, no credentials in URLs, every
 * address connected to checked by the SSRF guard (`guardedLookup`, the one webhooks use) unless
 * UPTIME_ALLOW_PRIVATE_NETWORKS is set, redirects followed by hand (at most MAX_REDIRECTS, each one
 * checked again), one timeout for the whole check, at most MAX_BODY_READ_BYTES of body read, and a
 * fresh connection each time (no pooled connection resolved under other rules).
 */
@Injectable()
export class UptimeChecker {
  /** Certificate authorities trusted besides the system's (PEM); tests trust one of their own. */
  extraCertificateAuthorities: string[] = [];
  private policy: AddressPolicy | null = null;
  private lookup: ReturnType<typeof guardedLookup> | undefined;

  constructor(config: AppConfig) {
    this.guardWith(config.UPTIME_ALLOW_PRIVATE_NETWORKS ? null : refusalReason);
  }

  /** A checker whose guard follows `policy` (tests: one loopback address allowed, the others refused). */
  static withPolicy(config: AppConfig, policy: AddressPolicy): UptimeChecker {
    const checker = new UptimeChecker(config);
    checker.guardWith(policy);
    return checker;
  }

  private guardWith(policy: AddressPolicy | null): void {
    this.policy = policy;
    this.lookup = policy === null ? undefined : guardedLookup(refuse, policy);
  }

  async check(request: CheckRequest): Promise<CheckResult> {
    const started = performance.now();
    const deadline = started + request.timeoutSeconds * 1000;
    let tlsExpiresAt: Date | null = null;
    let method: string = request.method;
    let body = request.body;
    let headers = request.headers;
    let url = request.url;
    try {
      for (let redirects = 0; ; redirects++) {
        const answer = await this.send(url, { method, headers, body }, request, deadline);
        tlsExpiresAt = answer.tlsExpiresAt ?? tlsExpiresAt;
        const elapsed = Math.round(performance.now() - started);
        if (answer.location !== null) {
          if (redirects >= MAX_REDIRECTS) {
            return failure(`more than ${MAX_REDIRECTS} redirects`, elapsed, answer.status, tlsExpiresAt);
          }
          const next = redirectTarget(url, answer.location);
          // As browsers do: 303 always, and 301/302 after a POST, continue with a GET without body.
          if (
            answer.status === 303 ||
            ((answer.status === 301 || answer.status === 302) && method === 'POST')
          ) {
            method = method === 'HEAD' ? 'HEAD' : 'GET';
            body = null;
          }
          if (originOf(next) !== originOf(url)) {
            // What the monitor was configured with is for its URL's origin only: any header may
            // carry a credential (fetch drops Authorization, this drops them all), and a body
            // that a 307 or 308 would send on is not sent anywhere else.
            headers = {};
            if (body !== null) {
              const origin = originOf(next);
              const message = `redirected to another origin (${origin}) with the request body: check ${next} itself`;
              return failure(message, elapsed, answer.status, tlsExpiresAt);
            }
          }
          url = next;
          continue;
        }
        const result = { responseMs: elapsed, statusCode: answer.status, tlsExpiresAt };
        if (answer.status < request.expectedStatusMin || answer.status > request.expectedStatusMax) {
          return {
            ...result,
            ok: false,
            error: `HTTP ${answer.status}, expected ${request.expectedStatusMin}–${request.expectedStatusMax}`,
          };
        }
        if (request.bodyContains !== null && !(answer.body ?? '').includes(request.bodyContains)) {
          return {
            ...result,
            ok: false,
            error: `the first ${MAX_BODY_READ_BYTES / 1024} KiB of the body do not contain the expected text`,
          };
        }
        return { ...result, ok: true, error: null };
      }
    } catch (error) {
      const message = error instanceof CheckFailure ? error.message : describeNetworkError(error, url);
      return failure(message, null, null, tlsExpiresAt);
    }
  }

  private send(target: string, outgoing: Outgoing, request: CheckRequest, deadline: number): Promise<Answer> {
    const { method, headers, body } = outgoing;
    const url = checkUrlOrFail(target);
    const literal = this.policy === null ? null : literalRefusal(url, this.policy);
    if (literal !== null)
      return Promise.reject(new CheckFailure(refusedMessage(url.hostname, literal, false)));
    const remaining = deadline - performance.now();
    if (remaining <= 0) return Promise.reject(new CheckFailure(timeoutMessage(request.timeoutSeconds)));
    const payload = body === null ? null : Buffer.from(body, 'utf8');
    const readBody = request.bodyContains !== null && method !== 'HEAD';
    const isHttps = url.protocol === 'https:';

    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, answer?: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        if (error) reject(error);
        else resolve(answer!);
      };
      const options: https.RequestOptions = {
        method,
        agent: false,
        lookup: this.lookup,
        headers: {
          ...headers,
          'User-Agent': UPTIME_USER_AGENT,
          ...(payload ? { 'Content-Length': String(payload.length) } : {}),
        },
        // Certificates are verified during the handshake (Node's default): an untrusted one ends
        // the connection before the headers and the body are sent.
        ...(isHttps && this.extraCertificateAuthorities.length > 0
          ? { ca: [...tls.rootCertificates, ...this.extraCertificateAuthorities] }
          : {}),
      };
      const req = (isHttps ? https : http).request(url, options);
      const timer = setTimeout(
        () => finish(new CheckFailure(timeoutMessage(request.timeoutSeconds))),
        remaining,
      );
      req.on('error', (error) => {
        // An untrusted certificate ends the connection during the handshake, before any byte of
        // the request is written; Node records why on the socket before it destroys it.
        const untrusted = isHttps ? (req.socket as TLSSocket | null)?.authorizationError : undefined;
        if (untrusted) return finish(new CheckFailure(`TLS certificate not trusted: ${String(untrusted)}`));
        finish(error);
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let tlsExpiresAt: Date | null = null;
        if (isHttps) {
          // Only a verified certificate gets here: its expiry is the one to warn about.
          const validTo = (res.socket as TLSSocket).getPeerCertificate?.()?.valid_to;
          tlsExpiresAt = validTo ? new Date(validTo) : null;
          if (tlsExpiresAt !== null && Number.isNaN(tlsExpiresAt.getTime())) tlsExpiresAt = null;
        }
        const location = status >= 300 && status < 400 ? (res.headers.location ?? null) : null;
        if (!readBody || location !== null) {
          return finish(null, { status, location, body: null, tlsExpiresAt });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: the rest of a huge body is never downloaded.
          if (size >= MAX_BODY_READ_BYTES) done();
        });
        const done = () =>
          finish(null, {
            status,
            location,
            body: Buffer.concat(chunks).subarray(0, MAX_BODY_READ_BYTES).toString('utf8'),
            tlsExpiresAt,
          });
        res.on('end', done);
        res.on('error', (error) => finish(error));
      });
      req.end(payload ?? undefined);
    });
  }
}

function failure(
  error: string,
  responseMs: number | null,
  statusCode: number | null,
  tlsExpiresAt: Date | null,
): CheckResult {
  return { ok: false, error, responseMs, statusCode, tlsExpiresAt };
}

function timeoutMessage(seconds: number): string {
  return `no answer within ${seconds} s`;
}

function checkUrlOrFail(text: string): URL {
  try {
    return checkUrl(text, 'redirect location');
  } catch (error) {
    throw new CheckFailure((error as Error).message);
  }
}

function originOf(url: string): string {
  return new URL(url).origin;
}

function redirectTarget(from: string, location: string): string {
  try {
    return new URL(location, from).href;
  } catch {
    throw new CheckFailure('redirect location is not a valid URL');
  }
}

function describeNetworkError(error: unknown, target: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  let host = target;
  try {
    host = new URL(target).host;
  } catch {
    // the message names the URL as given
  }
  switch (code ?? '') {
    case 'ECONNREFUSED':
      return `connection to ${host} refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host ${host} could not be resolved`;
    case 'ECONNRESET':
      return `connection to ${host} was reset`;
    case 'ETIMEDOUT':
      return `connection to ${host} timed out`;
    default:
      return `request to ${host} failed: ${(error as Error).message}`.slice(0, 500);
  }
}
