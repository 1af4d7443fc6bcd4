import busboy from 'busboy';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { InvalidInputError } from '../common/domain-errors';

/**
 * What the chunk-upload options announce and the uploads are held to (sentry-cli splits a bundle
 * into `chunkSize` pieces, sends up to `chunksPerRequest` of them, at most `maxRequestSize` bytes
 * before compression, per request, and refuses bundles over `maxFileSize`).
 */
export const UPLOAD_LIMITS = {
  chunkSize: 8 * 1024 * 1024,
  chunksPerRequest: 64,
  // Two chunks a request: a slow uplink still sends one within the request timeout.
  maxRequestSize: 16 * 1024 * 1024,
  maxBundleSize: 256 * 1024 * 1024,
  concurrency: 4,
  /** Seconds `--wait` waits at most; assembling is done within the call, so this is generous. */
  maxWaitSeconds: 60,
};

export interface UploadedChunk {
  /** SHA-1 of the chunk's bytes (before compression), lower-case hex. */
  checksum: string;
  data: Buffer;
}

const SHA1 = /^[0-9a-f]{40}$/;
/** gzip can make incompressible data slightly larger than it was. */
const GZIP_SLACK = 64 * 1024;

/**
 * Reads a chunk upload: a multipart body with one part per chunk, named `file` (raw) or
 * `file_gzip` (gzipped), whose file name is the chunk's SHA-1. Every chunk is checked (size, SHA-1)
 * before any is returned, so that a bad request stores nothing.
 */
export function readChunkUpload(request: IncomingMessage, limits = UPLOAD_LIMITS): Promise<UploadedChunk[]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        limits: {
          files: limits.chunksPerRequest,
          fileSize: limits.chunkSize + GZIP_SLACK,
          fields: 16,
          parts: limits.chunksPerRequest + 16,
        },
      });
    } catch {
      reject(
        new InvalidInputError(
          'a chunk upload is a multipart/form-data body with one "file" or "file_gzip" part per chunk',
        ),
      );
      return;
    }
    const received: { field: string; name: string; data: Buffer }[] = [];
    let failure: Error | undefined;
    // Bytes kept so far: past the request's limit the rest of the body is read and dropped, so that
    // the answer is the 400 below rather than a reset connection, and memory stays bounded.
    let kept = 0;
    const keepAtMost = limits.maxRequestSize + GZIP_SLACK * limits.chunksPerRequest;
    const fail = (error: Error) => {
      failure ??= error;
    };
    parser.on('file', (field, stream, info) => {
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => {
        kept += part.length;
        if (kept > keepAtMost) {
          fail(
            new InvalidInputError(
              `the chunks of one request add up to more than ${limits.maxRequestSize} bytes`,
            ),
          );
          return;
        }
        if (!failure) parts.push(part);
      });
      stream.on('limit', () =>
        fail(
          new InvalidInputError(
            `chunk ${info.filename}: larger than the chunk size of ${limits.chunkSize} bytes`,
          ),
        ),
      );
      stream.on('close', () =>
        received.push({ field, name: info.filename ?? '', data: Buffer.concat(parts) }),
      );
    });
    parser.on('filesLimit', () =>
      fail(new InvalidInputError(`at most ${limits.chunksPerRequest} chunks per request`)),
    );
    parser.on('partsLimit', () =>
      fail(new InvalidInputError(`at most ${limits.chunksPerRequest} chunks per request`)),
    );
    parser.on('close', () => {
      if (failure) return reject(failure);
      try {
        resolve(checkChunks(received, limits));
      } catch (error) {
        reject(error as Error);
      }
    });
    // A client that goes away, or a body that is not what its headers say, ends the read too.
    pipeline(request, parser, (error) => {
      if (error) reject(new InvalidInputError(`the multipart body cannot be read: ${error.message}`));
    });
  });
}

function checkChunks(
  parts: { field: string; name: string; data: Buffer }[],
  limits: typeof UPLOAD_LIMITS,
): UploadedChunk[] {
  if (parts.length === 0)
    throw new InvalidInputError('the upload holds no chunk ("file" or "file_gzip" parts)');
  const chunks: UploadedChunk[] = [];
  let total = 0;
  for (const part of parts) {
    const name = part.name.toLowerCase();
    if (!SHA1.test(name))
      throw new InvalidInputError(
        `chunk ${JSON.stringify(part.name)}: its file name must be its SHA-1 (40 hex digits)`,
      );
    if (part.field !== 'file' && part.field !== 'file_gzip') {
      throw new InvalidInputError(
        `chunk ${name}: the part must be named "file" or "file_gzip", not ${JSON.stringify(part.field)}`,
      );
    }
    const data = part.field === 'file_gzip' ? gunzip(part.data, name, limits.chunkSize) : part.data;
    if (data.length > limits.chunkSize) {
      throw new InvalidInputError(`chunk ${name}: larger than the chunk size of ${limits.chunkSize} bytes`);
    }
    const actual = createHash('sha1').update(data).digest('hex');
    if (actual !== name) throw new InvalidInputError(`chunk ${name}: its content has the SHA-1 ${actual}`);
    total += data.length;
    if (total > limits.maxRequestSize) {
      throw new InvalidInputError(
        `the chunks of one request add up to more than ${limits.maxRequestSize} bytes`,
      );
    }
    chunks.push({ checksum: name, data });
  }
  return chunks;
}

function gunzip(data: Buffer, name: string, limit: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InvalidInputError(`chunk ${name}: larger than the chunk size of ${limit} bytes`);
    }
    throw new InvalidInputError(`chunk ${name}: the file_gzip part is not gzip data`);
  }
}
