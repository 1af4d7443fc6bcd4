import {
  BadRequestException,
  HttpException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import {
  brotliDecompressSync,
  constants as zlibConstants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';
import { isZlibWrapped } from './compressed-data';
import type { BodySink } from './body-sink';
import { EnvelopeError } from './envelope-error';

export const MAX_COMPRESSED_BYTES = 20 * 1024 * 1024;
export const MAX_DECOMPRESSED_BYTES = 100 * 1024 * 1024;

export interface BodyLimits {
  maxCompressedBytes: number;
  maxDecompressedBytes: number;
}

const DEFAULT_LIMITS: BodyLimits = {
  maxCompressedBytes: MAX_COMPRESSED_BYTES,
  maxDecompressedBytes: MAX_DECOMPRESSED_BYTES,
};

export type Encoding = 'identity' | 'gzip' | 'deflate' | 'br';

/** `Content-Encoding` → the decoder to use; anything else is a 415 before a byte is read. */
export function parseContentEncoding(header: string | undefined): Encoding {
  const value = (header ?? '').trim().toLowerCase();
  switch (value) {
    case '':
    case 'identity':
    case 'none':
    case 'utf-8': // sent by some old clients as if it were a charset
      return 'identity';
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    default:
      throw new UnsupportedMediaTypeException(`unsupported content encoding "${value}"`);
  }
}

/**
 * Envelope errors become their 400/413; anything else is passed on as it is, so that a bug is
 * answered 500 and logged with its reference by the error filter (readBody rejects, it never throws
 * from a stream callback).
 */
export function bodyRejection(error: unknown): unknown {
  if (error instanceof EnvelopeError) {
    return error.status === 413
      ? new PayloadTooLargeException(error.message)
      : new BadRequestException(error.message);
  }
  return error;
}

/**
 * Decodes the start of a body, never more than `limit` bytes of output whatever the input: the
 * synchronous decoders stop as soon as their output passes the limit, and the sync-flush mode
 * decodes an incomplete input as far as it goes. When the whole input decodes to more than the
 * limit, the longest prefix of the input that fits is found by bisection (output only grows with
 * input), so the first line of a bomb is still read for the price of a few small decodes.
 * `truncated` says the returned bytes are not all the input decodes to.
 */
export function decodeHead(
  compressed: Buffer,
  encoding: Encoding,
  limit: number,
): { head: Buffer; truncated: boolean } | undefined {
  if (encoding === 'identity') {
    return { head: compressed.subarray(0, limit), truncated: compressed.length > limit };
  }
  // Header lines sit in the first few hundred compressed bytes: try growing prefixes first.
  let best = Buffer.alloc(0);
  let low = 1;
  let high = compressed.length;
  for (let length = Math.min(512, compressed.length); ; length = Math.min(length * 4, compressed.length)) {
    const decoded = decodeAtMost(compressed.subarray(0, length), encoding, limit);
    if (decoded === 'too long') {
      high = length - 1;
      break;
    }
    if (decoded === undefined && length === compressed.length) return undefined;
    if (decoded) best = decoded;
    low = length + 1;
    if (best.includes(0x0a)) return { head: best, truncated: length < compressed.length };
    if (length === compressed.length) return { head: best, truncated: false };
  }
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const decoded = decodeAtMost(compressed.subarray(0, middle), encoding, limit);
    if (decoded === 'too long') {
      high = middle - 1;
    } else {
      if (decoded) best = decoded;
      low = middle + 1;
    }
  }
  return { head: best, truncated: true };
}

function decodeAtMost(compressed: Buffer, encoding: Exclude<Encoding, 'identity'>, limit: number) {
  const options = { maxOutputLength: limit, chunkSize: Math.max(64, Math.min(limit, 16 * 1024)) };
  try {
    switch (encoding) {
      case 'gzip':
        return gunzipSync(compressed, { ...options, finishFlush: zlibConstants.Z_SYNC_FLUSH });
      case 'br':
        return brotliDecompressSync(compressed, {
          ...options,
          finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH,
        });
      case 'deflate':
        return (isZlibWrapped(compressed[0], compressed[1]) ? inflateSync : inflateRawSync)(compressed, {
          ...options,
          finishFlush: zlibConstants.Z_SYNC_FLUSH,
        });
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'too long';
    return undefined;
  }
}

/**
 * Compressed bytes held back while looking for the first line: a header line compresses to far
 * less, and holding more would let a body that never yields a line (a gzip header with a long name,
 * say) cost decoding work before any key is known.
 */
const MAX_HELD_BEFORE_FIRST_LINE = 64 * 1024;

/**
 * Called with the first line of the decoded body (undefined when there is none within the limit,
 * or the body cannot be decoded) before anything past it is decoded; may throw or reject to refuse
 * the body, and reading waits for it.
 */
export type FirstLineCheck = (line: string | undefined) => void | Promise<void>;

/**
 * Streams a request body into `sink`, decompressing on the fly and enforcing the limits as bytes
 * arrive (compressed bytes as they are read, decompressed bytes as they are produced), so neither a
 * huge upload nor a compression bomb is ever held in memory.
 *
 * A malformed body (the sink throws a 400) is still read to its end, without keeping anything: a
 * body that is both malformed and over a size limit is consistently reported as too large. Any
 * other error (size, credentials) stops decoding at once; the rest of the upload is drained and
 * discarded undecoded so that the connection stays usable and the client gets its answer.
 *
 * With `checkFirstLine`, the raw bytes are held back until their decoded start holds a first line
 * (at most `maxFirstLineBytes`), which is checked before the stream decoder starts: a stream
 * decoder decodes each input chunk whole, and one chunk of a compression bomb decodes to
 * megabytes, so a body whose first line is refused costs only the decoding of that line.
 */
export function readBody(
  request: IncomingMessage,
  sink: BodySink,
  limits: BodyLimits = DEFAULT_LIMITS,
  checkFirstLine?: { check: FirstLineCheck; maxFirstLineBytes: number },
): Promise<void> {
  const encoding = parseContentEncoding(request.headers['content-encoding'] as string | undefined);
  const declared = Number(request.headers['content-length']);
  if (declared > limits.maxCompressedBytes) {
    request.resume();
    return Promise.reject(
      new PayloadTooLargeException(`request body is larger than ${limits.maxCompressedBytes} bytes`),
    );
  }

  return new Promise<void>((resolve, reject) => {
    let compressedBytes = 0;
    let decompressedBytes = 0;
    let deferred: HttpException | undefined;
    let decoder: Transform | undefined;
    let settled = false;
    /** Raw chunks held back until the first line is checked; undefined once it is. */
    let held: Buffer[] | undefined = checkFirstLine ? [] : undefined;
    let heldBytes = 0;
    let nextAttemptAt = 0;
    let checking = false;
    /** The body ended while the first line was being checked. */
    let ended = false;
    /** Set while the sink makes the body wait (backpressure): chunks that still arrive queue here. */
    let waiting: Buffer[] | undefined;
    let endWhenDrained = false;

    const cleanup = () => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
      request.removeListener('aborted', onAborted);
      if (decoder) {
        decoder.removeAllListeners();
        decoder.on('error', () => undefined);
        decoder.destroy();
      }
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      request.resume(); // drain and discard the rest of the upload
      reject(bodyRejection(error));
    };
    const finish = () => {
      if (settled) return;
      if (waiting) {
        endWhenDrained = true;
        return;
      }
      if (deferred) return fail(deferred);
      try {
        sink.end();
      } catch (error) {
        return fail(error);
      }
      settled = true;
      cleanup();
      resolve();
    };
    /** Decompressed (or plain) bytes. */
    const feed = (chunk: Buffer) => {
      decompressedBytes += chunk.length;
      if (decompressedBytes > limits.maxDecompressedBytes) {
        return fail(
          new PayloadTooLargeException(
            `decompressed body is larger than ${limits.maxDecompressedBytes} bytes`,
          ),
        );
      }
      if (deferred) return;
      if (waiting) {
        waiting.push(chunk);
        return;
      }
      write(chunk);
    };
    const write = (chunk: Buffer) => {
      try {
        sink.write(chunk);
        const wait = sink.pressure?.();
        if (wait) holdUntil(wait);
      } catch (error) {
        const rejection = bodyRejection(error);
        // Only a malformed body is read on; refused credentials and limits stop reading at once.
        if (!(rejection instanceof BadRequestException)) return fail(rejection);
        deferred = rejection;
      }
    };
    /**
     * The sink asked the body to wait: the source stops (the decoder's output, or the request),
     * and resumes once the sink is ready; chunks already on their way queue meanwhile.
     */
    const holdUntil = (wait: Promise<void>) => {
      waiting = [];
      if (decoder) decoder.pause();
      else request.pause();
      wait.then(
        () => {
          if (settled) return;
          const queued = waiting ?? [];
          waiting = undefined;
          for (let i = 0; i < queued.length; i++) {
            if (deferred) break;
            write(queued[i]);
            if (settled) return;
            if (waiting) {
              (waiting as Buffer[]).push(...queued.slice(i + 1));
              return;
            }
          }
          if (endWhenDrained) return finish();
          if (decoder) decoder.resume();
          else if (held === undefined) request.resume();
        },
        (error: unknown) => fail(error),
      );
    };
    const startDecoder = (first: Buffer): Transform => {
      const created =
        encoding === 'gzip'
          ? createGunzip()
          : encoding === 'br'
            ? createBrotliDecompress()
            : isZlibWrapped(first[0], first.length > 1 ? first[1] : undefined)
              ? createInflate()
              : createInflateRaw();
      created.on('data', feed);
      created.on('end', finish);
      created.on('error', () => fail(new BadRequestException(`request body is not valid ${encoding} data`)));
      created.on('drain', () => request.resume());
      return created;
    };
    /** Raw (possibly compressed) bytes, once the first line, if asked for, has been checked. */
    const consume = (chunk: Buffer) => {
      if (encoding === 'identity') return feed(chunk);
      if (chunk.length === 0) return;
      decoder ??= startDecoder(chunk);
      if (!decoder.write(chunk)) request.pause();
    };
    const checkHead = (complete: boolean) => {
      if (!checkFirstLine || !held) return;
      if (checking) {
        ended ||= complete;
        return;
      }
      const overCap = heldBytes > MAX_HELD_BEFORE_FIRST_LINE;
      // Decoding again from the start each time would make a trickled body quadratic: try again
      // only once the held bytes have doubled (or at the end, or at the cap).
      if (!complete && !overCap && heldBytes < nextAttemptAt) return;
      nextAttemptAt = Math.max(512, heldBytes * 2);
      const raw = held.length === 1 ? held[0] : Buffer.concat(held);
      held = [raw];
      const decoded = decodeHead(
        raw.subarray(0, MAX_HELD_BEFORE_FIRST_LINE),
        encoding,
        checkFirstLine.maxFirstLineBytes + 1,
      );
      const newline = decoded ? decoded.head.indexOf(0x0a) : -1;
      let line: string | undefined;
      if (decoded && newline !== -1) {
        line = decoded.head.toString('utf8', 0, newline);
      } else if (decoded && complete && !decoded.truncated && !overCap) {
        line = decoded.head.toString('utf8'); // a header without items
      } else if (!decoded || decoded.truncated || complete || overCap) {
        line = undefined; // undecodable, or no line within the limits
      } else {
        return; // the first line is not complete yet: wait for more bytes
      }
      checking = true;
      request.pause();
      let verdict: void | Promise<void>;
      try {
        verdict = checkFirstLine.check(line);
      } catch (error) {
        return fail(error);
      }
      const proceed = () => {
        if (settled) return;
        const chunks = held ?? [];
        held = undefined;
        for (const chunk of chunks) consume(chunk);
        if (complete || ended) return onEnd();
        // Unless the sink made the body wait meanwhile (a decoder, paused instead, holds back itself).
        if (waiting === undefined || decoder) request.resume();
      };
      if (verdict) verdict.then(proceed, fail);
      else proceed();
    };
    function onData(chunk: Buffer) {
      compressedBytes += chunk.length;
      if (compressedBytes > limits.maxCompressedBytes) {
        return fail(
          new PayloadTooLargeException(`request body is larger than ${limits.maxCompressedBytes} bytes`),
        );
      }
      if (held) {
        held.push(chunk);
        heldBytes += chunk.length;
        return checkHead(false);
      }
      consume(chunk);
    }
    function onEnd() {
      if (held) return checkHead(true);
      if (encoding === 'identity') return finish();
      if (!decoder) return finish(); // empty body: the sink says what is wrong with it
      decoder.end();
    }
    function onError() {
      fail(new BadRequestException('request body could not be read'));
    }
    function onAborted() {
      fail(new BadRequestException('request was aborted'));
    }

    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}
