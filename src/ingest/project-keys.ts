import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RepeatedLog } from '../common/repeated-log';
import { DatabaseUnavailableError } from '../database/database-unavailable.error';

/** A request that waits for a reload gets its 503 after this when the database hangs. */
const LOAD_DEADLINE_MS = 3_000;

/** The snapshot is reloaded this often: a deleted project stops ingesting within this time. */
export const PROJECT_KEYS_REFRESH_MS = 30_000;
/**
 * A key missing from the snapshot reloads it (a project created a moment ago on another instance),
 * but at most this often: a flood of random keys costs one small query per interval, not one per
 * request.
 */
export const PROJECT_KEYS_MISS_REFRESH_MS = 1_000;

/**
 * Answers "does project <id> have client key <key>?" from an in-process snapshot of every
 * project's key, reloaded in the background. Cheap and bounded whatever the traffic: a hit or a
 * miss is a map lookup, unknown keys never evict known ones, and while PostgreSQL is unreachable
 * the last snapshot keeps known projects ingesting (their events wait in Redis).
 */
@Injectable()
export class ProjectKeys implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ProjectKeys');
  private readonly failureLog = new RepeatedLog(this.logger, 60_000);
  private keys: Map<number, string> | undefined;
  private lastAttempt = 0;
  private loading: Promise<void> | undefined;
  private scheduled: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    void this.reload().catch(() => undefined);
    this.timer = setInterval(() => void this.reload().catch(() => undefined), PROJECT_KEYS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * `key` is the canonical dashed UUID. Known keys are answered synchronously from the snapshot,
   * also while the database is down; a key the snapshot lacks waits for a reload, and rejects with
   * DatabaseUnavailableError when the database does not answer.
   */
  isValid(projectId: number, key: string): boolean | Promise<boolean> {
    if (this.keys !== undefined) {
      if (this.keys.get(projectId) === key) return true;
      // When the reload fails the key cannot be judged (a project created since?): 503, not 401.
      return this.reloadSoon().then(() => this.keys?.get(projectId) === key);
    }
    return this.reload().then(() => this.keys?.get(projectId) === key);
  }

  /**
   * A miss waits for the next reload the interval allows (at most a second): a project created on
   * another instance a moment ago is found, and a flood of random keys shares one query a second.
   */
  private reloadSoon(): Promise<void> {
    const wait = this.lastAttempt + PROJECT_KEYS_MISS_REFRESH_MS - Date.now();
    if (wait <= 0) return this.reload();
    this.scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, wait)).then(() => {
      this.scheduled = undefined;
      return this.reload();
    });
    return this.scheduled;
  }

  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    this.lastAttempt = Date.now();
    try {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 3 s')), LOAD_DEADLINE_MS);
      });
      const rows = await Promise.race([
        this.dataSource.query<{ id: number; client_key: string }[]>('SELECT id, client_key FROM projects'),
        deadline,
      ]).finally(() => clearTimeout(timer));
      this.keys = new Map(rows.map((row) => [row.id, row.client_key]));
    } catch (error) {
      this.failureLog.warn(
        'reload failed',
        `client keys could not be reloaded (${(error as Error).message}); ` +
          (this.keys ? 'known projects keep ingesting' : 'ingest answers 503 until the database answers'),
      );
      throw new DatabaseUnavailableError();
    }
  }
}
