import { Injectable, Logger, OnModuleInit, ServiceUnavailableException } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { RepeatedLog } from '../../common/repeated-log';
import { ReleaseHealthRepository } from './release-health.repository';

const RETRY_MS = 2_000;

/**
 * Hashes the distinct ids (`did`) of sessions with the installation's key (HMAC-SHA256, kept in
 * PostgreSQL, made once by the migration), so that users are counted without their ids being
 * stored: only the first 128 bits of the hash leave this class. The key is read once at start
 * (ingest does not query PostgreSQL per request), and read again every 2 s until it is.
 */
@Injectable()
export class UserHasher implements OnModuleInit {
  private readonly logger = new Logger('ReleaseHealth');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private key: Buffer | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly health: ReleaseHealthRepository) {}

  onModuleInit(): Promise<void> {
    return this.load();
  }

  private async load(): Promise<void> {
    try {
      this.key = await this.health.userHashKey();
    } catch (error) {
      this.failures.warn('key', `user hash key not read yet, retrying: ${(error as Error).message}`);
      this.timer = setTimeout(() => void this.load(), RETRY_MS);
      this.timer.unref();
    }
  }

  /** 32 hex digits; a 503 until the key is known (only while PostgreSQL was away since start). */
  hash(projectId: number, did: string): string {
    if (this.key === undefined)
      throw new ServiceUnavailableException('release health not ready, try again later');
    return userHashOf(this.key, projectId, did);
  }
}

/** The keyed hash of a distinct id in a project, as release health stores it (32 hex digits). */
export function userHashOf(key: Buffer, projectId: number, did: string): string {
  return createHmac('sha256', key).update(`${projectId}\n${did}`).digest('hex').slice(0, 32);
}
