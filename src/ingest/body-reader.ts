import {
  BadRequestException,
  HttpException,
  InternalServerErrorException,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { BodySink, EnvelopeError } from './envelope-reader';

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

type Encoding = 'identity' | 'gzip' | 'deflate' | 'br';

/** `Content-Encoding` → the decoder to use; anything else is a 415 before a byte is read. */
export function parseContentEncoding(header: string | undefined): Encoding {
  const value = (header ?? '').trim().toLowerCase();
  switch (value) {
    case '':
    case 'identity':
    case 'none':
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
 * HTTP's "deflate" is meant to be zlib-wrapped (RFC 9110), but some clients send raw deflate. A zlib
 * stream starts with CMF/FLG bytes: compression method 8 in CMF's low nibble and CMF·256+FLG a
 * multiple of 31; raw deflate data practically never matches both.
 */
export function isZlibWrapped(first: number, second: number | undefined): boolean {
  if ((first & 0x0f) !== 8 || first >> 4 > 7) return false;
  return second === undefined || ((first << 8) | second) % 31 === 0;
}

function toHttpError(error: unknown): HttpException {
  if (error instanceof HttpException) return error;
  if (error instanceof EnvelopeError) {
    return error.status === 413
      ? new PayloadTooLargeException(error.message)
      : new BadRequestException(error.message);
  }
  // Called from stream callbacks, where a throw would crash the process: a bug becomes a 500.
  return new InternalServerErrorException('request body could not be processed');
}

/**
 * Streams a request body into `sink`, decompressing on the fly and enforcing the limits as bytes
 * arrive (compressed bytes as they are read, decompressed bytes as they are produced), so neither a
 * huge upload nor a compression bomb is ever held in memory.
 *
 * A malformed body (the sink throws a 400) is still read to its end, without keeping anything: a
 * body that is both malformed and over a size limit is consistently reported as too large. Size
 * errors stop reading at once; the rest of the upload is drained and discarded so that the
 * connection stays usable and the client gets its answer.
 */
export function readBody(
  request: IncomingMessage,
  sink: BodySink,
  limits: BodyLimits = DEFAULT_LIMITS,
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
    const fail = (error: HttpException) => {
      if (settled) return;
      settled = true;
      cleanup();
      request.resume(); // drain and discard the rest of the upload
      reject(error);
    };
    const finish = () => {
      if (settled) return;
      if (deferred) return fail(deferred);
      try {
        sink.end();
      } catch (error) {
        return fail(toHttpError(error));
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
      try {
        sink.write(chunk);
      } catch (error) {
        const httpError = toHttpError(error);
        if (httpError.getStatus() === 413) return fail(httpError);
        deferred = httpError;
      }
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
    function onData(chunk: Buffer) {
      compressedBytes += chunk.length;
      if (compressedBytes > limits.maxCompressedBytes) {
        return fail(
          new PayloadTooLargeException(`request body is larger than ${limits.maxCompressedBytes} bytes`),
        );
      }
      if (encoding === 'identity') return feed(chunk);
      if (chunk.length === 0) return;
      decoder ??= startDecoder(chunk);
      if (!decoder.write(chunk)) request.pause();
    }
    function onEnd() {
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
