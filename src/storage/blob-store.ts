import type { Readable } from 'node:stream';

/**
 * Where files (attachments) are kept: PostgreSQL by default, or S3-compatible object storage. Keys
 * are chosen by the caller and never reused; a blob is written once, through a BlobWriter, then
 * read or deleted whole.
 */
export abstract class BlobStore {
  abstract readonly backend: 'postgres' | 's3';

  /** Starts writing a new blob. Nothing is readable under `key` until `finish` resolves. */
  abstract openWriter(key: string): BlobWriter;

  /** The blob's bytes as a stream; it errors if the blob is gone. */
  abstract read(key: string): Readable;

  /** Deletes blobs; keys that do not exist are ignored. */
  abstract delete(keys: string[]): Promise<void>;

  /** Whether a blob exists (for tests and checks). */
  abstract exists(key: string): Promise<boolean>;

  /** Releases connections at shutdown. */
  close(): void {}
}

/**
 * Writes one blob. `write` resolves once the store has taken the bytes (or buffered at most one
 * chunk of them), so a caller that waits for it holds a bounded amount of memory whatever the
 * blob's size. Calls are made one at a time, never concurrently.
 */
export interface BlobWriter {
  write(bytes: Buffer): Promise<void>;
  /** Writes what is buffered and completes the blob. */
  finish(): Promise<void>;
  /** Drops what was written so far (best effort: a sweep removes what an abort could not). */
  abort(): Promise<void>;
}

/** The storage could not take or give the bytes now: the request is answered 503, the SDK retries. */
export class BlobStorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`file storage unavailable: ${(cause as Error)?.message ?? String(cause)}`);
  }
}
