import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { PassThrough, Readable } from 'node:stream';
import { BlobStore, BlobWriter } from './blob-store';

/** S3's smallest part but the last: a writer holds at most this much before it uploads. */
export const S3_PART_BYTES = 5 * 1024 * 1024;
/** DeleteObjects takes at most 1,000 keys a request. */
const DELETE_BATCH = 1000;

export interface S3Settings {
  endpoint?: string;
  bucket: string;
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  prefix: string;
}

/**
 * Blobs as objects of an S3-compatible bucket. A blob smaller than a part is one PutObject at the
 * end; a larger one a multipart upload, a part of 5 MiB at a time, so memory stays bounded.
 */
export class S3BlobStore extends BlobStore {
  readonly backend = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    super();
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      credentials: settings.credentials,
      forcePathStyle: settings.forcePathStyle,
      // Ingest answers 503 and the SDK retries: a long retry loop here would only hold the request.
      maxAttempts: 2,
      // A storage that stops answering fails the request within seconds instead of holding it.
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 15_000 },
    });
  }

  objectKey(key: string): string {
    return `${this.settings.prefix}${key}`;
  }

  openWriter(key: string): BlobWriter {
    return new S3BlobWriter(this.client, this.settings.bucket, this.objectKey(key));
  }

  read(key: string): Readable {
    const out = new PassThrough();
    this.client
      .send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }))
      .then((answer) => {
        const body = answer.Body as Readable | undefined;
        if (!body) return out.end();
        body.on('error', (error) => out.destroy(error));
        body.pipe(out);
      })
      .catch((error: unknown) => out.destroy(error as Error));
    return out;
  }

  async delete(keys: string[]): Promise<void> {
    for (let start = 0; start < keys.length; start += DELETE_BATCH) {
      const batch = keys.slice(start, start + DELETE_BATCH);
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.settings.bucket,
          Delete: { Objects: batch.map((key) => ({ Key: this.objectKey(key) })), Quiet: true },
        }),
      );
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(
        new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return false;
      throw error;
    }
  }

  close(): void {
    this.client.destroy();
  }
}

class S3BlobWriter implements BlobWriter {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private uploadId?: string;
  private readonly parts: { ETag: string; PartNumber: number }[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
  ) {}

  async write(bytes: Buffer): Promise<void> {
    this.buffered.push(bytes);
    this.bufferedBytes += bytes.length;
    if (this.bufferedBytes >= S3_PART_BYTES) await this.uploadPart(this.take());
  }

  async finish(): Promise<void> {
    if (this.uploadId === undefined) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: this.take() }));
      return;
    }
    if (this.bufferedBytes > 0) await this.uploadPart(this.take());
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
  }

  async abort(): Promise<void> {
    this.buffered = [];
    this.bufferedBytes = 0;
    if (this.uploadId !== undefined) {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId }),
      );
    }
  }

  private take(): Buffer {
    const data =
      this.buffered.length === 1 ? this.buffered[0] : Buffer.concat(this.buffered, this.bufferedBytes);
    this.buffered = [];
    this.bufferedBytes = 0;
    return data;
  }

  private async uploadPart(data: Buffer): Promise<void> {
    if (this.uploadId === undefined) {
      const created = await this.client.send(
        new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }),
      );
      this.uploadId = created.UploadId;
    }
    const PartNumber = this.parts.length + 1;
    const answer = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        PartNumber,
        Body: data,
      }),
    );
    this.parts.push({ ETag: answer.ETag ?? '', PartNumber });
  }
}
