import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { EntityManager } from 'typeorm';
import { InvalidInputError } from '../common/domain-errors';
import { RepeatedLog } from '../common/repeated-log';
import { Semaphore } from '../common/crypto';
import { ProjectsService, VisibleProjects } from '../projects/projects.service';
import { InvalidBundleError, NO_RELEASE, openArtifactBundle } from './artifact-bundle';
import { ArtifactBundlesRepository, BundleUpload } from './artifact-bundles.repository';
import { AssembleAnswer, assembleStep, failed, ok } from './assemble-state';
import { readChunkUpload, UPLOAD_LIMITS } from './chunk-upload';
import { FileChunksRepository } from './file-chunks.repository';
import { BlobStore } from '../storage/blob-store';
import { PendingBlobsRepository } from '../storage/pending-blobs.repository';
import type { ChunkUploadOptions } from './dto/upload.response';

/** An assemble call as sentry-cli makes it (see AssembleBundleDto). */
export interface AssembleRequest {
  checksum: string;
  chunks: string[];
  projects: (string | number)[];
  version?: string;
  dist?: string;
}

/** Bundles put together at once per process: each holds its bundle (up to 256 MiB) in memory. */
const CONCURRENT_ASSEMBLIES = 2;

/** The chunk-upload options sentry-cli asks for before uploading (see docs/source-maps.md). */
export function chunkUploadOptions(org: string): ChunkUploadOptions {
  return {
    url: `/api/0/organizations/${encodeURIComponent(org)}/chunk-upload/`,
    chunkSize: UPLOAD_LIMITS.chunkSize,
    chunksPerRequest: UPLOAD_LIMITS.chunksPerRequest,
    maxRequestSize: UPLOAD_LIMITS.maxRequestSize,
    maxFileSize: UPLOAD_LIMITS.maxBundleSize,
    concurrency: UPLOAD_LIMITS.concurrency,
    maxWait: UPLOAD_LIMITS.maxWaitSeconds,
    hashAlgorithm: 'sha1',
    compression: ['gzip'],
    // sentry-cli 2.x chooses artifact bundles only when release files are announced too.
    accept: ['release_files', 'artifact_bundles', 'artifact_bundles_v2', 'sources'],
  };
}

/**
 * Source map uploads as sentry-cli makes them: chunks first, then an assemble call that puts a
 * bundle together from them, checks it and stores its files for each project named, all in one
 * transaction (a bad bundle stores nothing).
 */
@Injectable()
export class ArtifactUploadService {
  private readonly logger = new Logger('ArtifactUpload');
  private readonly refusals = new RepeatedLog(this.logger, 60_000);
  // The others wait their turn, however many: an upload is not refused for being one too many.
  private readonly assembling = new Semaphore(CONCURRENT_ASSEMBLIES, Number.POSITIVE_INFINITY);

  constructor(
    private readonly chunks: FileChunksRepository,
    private readonly bundles: ArtifactBundlesRepository,
    private readonly projects: ProjectsService,
    private readonly blobs: BlobStore,
    private readonly pending: PendingBlobsRepository,
  ) {}

  async storeChunks(request: IncomingMessage): Promise<number> {
    try {
      const chunks = await readChunkUpload(request);
      await this.chunks.store(chunks);
      return chunks.length;
    } catch (error) {
      if (error instanceof InvalidInputError)
        this.refusals.warn('chunk', `chunk upload refused: ${error.message}`);
      throw error;
    }
  }

  async assemble(request: AssembleRequest, visible: VisibleProjects = 'all'): Promise<AssembleAnswer> {
    // The bundler plugins send the release "undefined" when they know none, with whatever dist.
    const noRelease = request.version === NO_RELEASE;
    const version = noRelease ? undefined : request.version;
    if (request.dist !== undefined && request.version === undefined) {
      throw new InvalidInputError('dist needs a release: give version with it');
    }
    const projectIds = (await this.projects.findReferenced(request.projects, visible)).map(
      (project) => project.id,
    );
    const upload: BundleUpload = {
      checksum: request.checksum.toLowerCase(),
      release: version ?? null,
      dist: noRelease ? null : (request.dist ?? null),
    };
    const chunks = request.chunks.map((chunk) => chunk.toLowerCase());
    const step = assembleStep(
      { chunks },
      await this.chunks.stored(chunks),
      await this.bundles.isStored(projectIds, upload),
    );
    if (step.kind === 'answer') return step.answer;
    try {
      const files = await this.assembling.run(() => this.store(projectIds, upload, chunks));
      // Another call holds this bundle's assembly: sentry-cli --wait asks again, and finds it stored.
      if (files === 'busy') return { state: 'assembling', missingChunks: [], detail: null };
      if (files === 0) return ok();
      this.logger.log(
        `artifact bundle ${upload.checksum} stored for project(s) ${projectIds.join(', ')}: ${files} files` +
          (upload.release ? `, release ${upload.release}${upload.dist ? ` dist ${upload.dist}` : ''}` : ''),
      );
      return ok();
    } catch (error) {
      if (!(error instanceof InvalidBundleError)) throw error;
      this.refusals.warn('bundle', `artifact bundle ${upload.checksum} refused: ${error.message}`);
      return failed(error.message);
    }
  }

  /**
   * Puts the chunks together and stores the bundle's files for each project, in one transaction
   * that holds the bundle's assembly lock; returns how many files, 0 when another call stored the
   * bundle meanwhile, or `busy` while another call is assembling it.
   */
  private store(projectIds: number[], upload: BundleUpload, chunks: string[]): Promise<number | 'busy'> {
    return this.bundles.inAssembly(upload.checksum, async (manager) => {
      if (await this.bundles.isStored(projectIds, upload, manager)) return 0;
      const bytes = await this.bundleBytes(manager, upload.checksum, chunks);
      const bundle = await openArtifactBundle(bytes);
      try {
        const { manifest } = bundle;
        // A release given with the upload wins over the manifest's, as in Sentry.
        const stored: BundleUpload = {
          ...upload,
          release: upload.release ?? manifest.release,
          dist: upload.release ? upload.dist : manifest.dist,
        };
        const size = manifest.files.reduce((sum, file) => sum + file.size, 0);
        const ids: [number, string][] = [];
        for (const projectId of projectIds) {
          const id = await this.bundles.insertBundle(manager, projectId, stored, {
            debugId: manifest.debugId,
            fileCount: manifest.files.length,
            size,
          });
          if (id !== null) ids.push([projectId, id]);
        }
        const written: string[] = [];
        for await (const file of bundle.files()) {
          for (const [projectId, id] of ids) {
            const blobKey = await this.writeBlob(projectId, file.data);
            if (blobKey !== undefined) written.push(blobKey);
            await this.bundles.insertFile(manager, id, projectId, file, blobKey);
          }
        }
        // Kept only if the bundle's rows commit; otherwise the sweep deletes them.
        await this.pending.takeOff(manager, written);
        return manifest.files.length;
      } finally {
        bundle.close();
      }
    });
  }

  /**
   * With S3 storage, a file's bytes go to an object (staged on the pending list first); with
   * PostgreSQL they stay in the file's row, where they always were: undefined then.
   */
  private async writeBlob(projectId: number, data: Buffer): Promise<string | undefined> {
    if (this.blobs.backend !== 's3') return undefined;
    const key = `artifacts/${projectId}/${randomUUID()}`;
    await this.pending.stage(key);
    const writer = this.blobs.openWriter(key);
    await writer.write(data);
    await writer.finish();
    return key;
  }

  /** The chunks, concatenated, checked against the bundle's checksum and size. */
  private async bundleBytes(manager: EntityManager, checksum: string, chunks: string[]): Promise<Buffer> {
    const parts = await this.chunks.read(manager, chunks);
    const missing = chunks.filter((_, index) => parts[index] === undefined);
    if (missing.length > 0)
      throw new InvalidBundleError(`chunks expired before assembly: ${missing.join(', ')}`);
    const size = parts.reduce((sum, part) => sum + (part as Buffer).length, 0);
    if (size > UPLOAD_LIMITS.maxBundleSize) {
      throw new InvalidBundleError(
        `the bundle is ${size} bytes, over the limit of ${UPLOAD_LIMITS.maxBundleSize}`,
      );
    }
    const bytes = Buffer.concat(parts as Buffer[], size);
    parts.length = 0;
    const actual = createHash('sha1').update(bytes).digest('hex');
    if (actual !== checksum) {
      throw new InvalidBundleError(`the chunks make up a file whose SHA-1 is ${actual}, not ${checksum}`);
    }
    return bytes;
  }
}
