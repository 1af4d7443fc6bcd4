import { Readable } from 'node:stream';
import { BlobChunksRepository } from './blob-chunks.repository';
import { BlobStore, BlobWriter } from './blob-store';

/**
 * Bytes per row. Large enough that a 100 MiB file is 200 inserts, small enough that no single
 * value is huge: PostgreSQL and the driver hold a whole value in memory to send or receive it.
 */
export const POSTGRES_CHUNK_BYTES = 512 * 1024;

/** Blobs as rows of `blob_chunks`, written and read a chunk at a time. */
export class PostgresBlobStore extends BlobStore {
  readonly backend = 'postgres' as const;

  constructor(
    private readonly chunks: BlobChunksRepository,
    private readonly chunkBytes = POSTGRES_CHUNK_BYTES,
  ) {
    super();
  }

  openWriter(key: string): BlobWriter {
    return new PostgresBlobWriter(this.chunks, key, this.chunkBytes);
  }

  read(key: string): Readable {
    const chunks = this.chunks;
    return Readable.from(
      (async function* () {
        for (let seq = 0; ; seq++) {
          const data = await chunks.chunk(key, seq);
          if (data === undefined) {
            if (seq === 0 && !(await chunks.exists(key))) throw new Error(`blob ${key} not found`);
            return;
          }
          yield data;
        }
      })(),
      { objectMode: false },
    );
  }

  delete(keys: string[]): Promise<void> {
    return this.chunks.delete(keys);
  }

  exists(key: string): Promise<boolean> {
    return this.chunks.exists(key);
  }
}

class PostgresBlobWriter implements BlobWriter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private seq = 0;

  constructor(
    private readonly chunks: BlobChunksRepository,
    private readonly key: string,
    private readonly chunkBytes: number,
  ) {}

  async write(bytes: Buffer): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      const take = Math.min(this.chunkBytes - this.bufferedBytes, bytes.length - offset);
      this.buffered.push(bytes.subarray(offset, offset + take));
      this.bufferedBytes += take;
      offset += take;
      if (this.bufferedBytes === this.chunkBytes) await this.flush();
    }
  }

  async finish(): Promise<void> {
    // An empty blob still gets its one (empty) row, so that it exists.
    if (this.bufferedBytes > 0 || this.seq === 0) await this.flush();
  }

  async abort(): Promise<void> {
    this.buffered = [];
    this.bufferedBytes = 0;
    await this.chunks.delete([this.key]);
  }

  private async flush(): Promise<void> {
    const data =
      this.buffered.length === 1 ? this.buffered[0] : Buffer.concat(this.buffered, this.bufferedBytes);
    this.buffered = [];
    this.bufferedBytes = 0;
    await this.chunks.insert(this.key, this.seq++, data);
  }
}
