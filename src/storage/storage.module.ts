import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { BlobChunksRepository } from './blob-chunks.repository';
import { BlobStore } from './blob-store';
import { BlobSweeper } from './blob-sweeper';
import { PendingBlobsRepository } from './pending-blobs.repository';
import { PostgresBlobStore } from './postgres-blob-store';

/**
 * The store BLOB_STORAGE names. The S3 client is loaded only when it is used: the AWS SDK costs
 * start-up time and memory that an installation storing files in PostgreSQL has no use for.
 */
export async function createBlobStore(config: AppConfig, chunks: BlobChunksRepository): Promise<BlobStore> {
  if (config.BLOB_STORAGE === 'postgres') return new PostgresBlobStore(chunks);
  const { S3BlobStore } = await import('./s3-blob-store');
  return new S3BlobStore({
    endpoint: config.S3_ENDPOINT,
    bucket: config.S3_BUCKET as string,
    region: config.S3_REGION,
    credentials:
      config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    prefix: config.S3_PREFIX,
  });
}

/**
 * The blob store chosen by BLOB_STORAGE, its pending list and sweep, for every module (api and
 * worker roles alike).
 */
@Global()
@Module({
  providers: [
    BlobChunksRepository,
    PendingBlobsRepository,
    BlobSweeper,
    { provide: BlobStore, useFactory: createBlobStore, inject: [AppConfig, BlobChunksRepository] },
  ],
  exports: [BlobStore, PendingBlobsRepository, BlobSweeper],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(private readonly store: BlobStore) {}

  onApplicationShutdown(): void {
    this.store.close();
  }
}
