import { gunzipSync, inflateSync } from 'node:zlib';
import { isGzip, isZlibWrapped } from './compressed-data';
import type { BodySink } from './body-sink';
import { EnvelopeError } from './envelope-error';
import { MAX_EVENT_BYTES } from './envelope-limits';
import { checkEventPayload, EventPayloadFacts } from './event-payload';

/**
 * Legacy (Raven protocol) clients encode store bodies in several ways without saying so in
 * `Content-Encoding`: raven-node, raven-ruby, raven-go (large events), raven-java and sentry-php 1.x
 * send base64 of zlib data as `application/octet-stream`; sentry-php without the zlib extension
 * sends base64 of the JSON; some send gzip. A body that does not start with `{` is decoded
 * accordingly (as Sentry's own store endpoint did), within the event size limit.
 */
export function decodeLegacyStoreBody(body: Buffer, maxEventBytes = MAX_EVENT_BYTES): string {
  let start = 0;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) start = 3; // UTF-8 byte order mark
  while (start < body.length && isSpace(body[start])) start++;
  if (start >= body.length || body[start] === 0x7b /* { */) return body.toString('utf8', start);
  let data: Buffer = body.subarray(start);
  // Only the zlib header that compression libraries write (0x78): base64 text may start with other
  // bytes that would pass as a zlib header.
  const zlib = data[0] === 0x78 && data.length > 1 && isZlibWrapped(data[0], data[1]);
  if (!zlib && !isGzip(data)) {
    const text = data.toString('latin1').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return body.toString('utf8', start);
    data = Buffer.from(text, 'base64');
    if (data[0] === 0x7b) return data.toString('utf8');
  }
  try {
    const options = { maxOutputLength: maxEventBytes };
    const inflated = isGzip(data) ? gunzipSync(data, options) : inflateSync(data, options);
    return inflated.toString('utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new EnvelopeError(413, `event is larger than ${maxEventBytes} bytes`);
    }
    throw new EnvelopeError(400, 'request body is neither JSON nor a base64 or compressed event');
  }
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * The legacy store endpoint's body is one event JSON (or a legacy encoding of it, see
 * decodeLegacyStoreBody): kept whole (up to the event limit) and checked like an envelope's event
 * item.
 */
export class StoreBodyReader implements BodySink {
  event?: string;
  eventFacts?: EventPayloadFacts;
  private chunks: Buffer[] = [];
  private bytes = 0;

  constructor(private readonly maxEventBytes = MAX_EVENT_BYTES) {}

  write(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxEventBytes) {
      throw new EnvelopeError(413, `event is larger than ${this.maxEventBytes} bytes`);
    }
    this.chunks.push(chunk);
  }

  end(): void {
    if (this.bytes === 0) throw new EnvelopeError(400, 'request body is empty');
    const text = decodeLegacyStoreBody(Buffer.concat(this.chunks, this.bytes), this.maxEventBytes);
    this.chunks = [];
    this.eventFacts = checkEventPayload(text);
    this.event = text;
  }
}
