import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { DatabaseUnavailableError } from '../database/database-unavailable.error';
import { ProjectKeyChanges } from '../projects/project-key-changes';
import { ProjectKeyRow, ProjectsRepository } from '../projects/projects.repository';

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

/** A project's keys as the snapshot holds them; the previous one only while a rotation's grace lasts. */
export interface ProjectKeyEntry {
  key: string;
  previousKey: string | null;
  /** Epoch milliseconds; compared when a request comes, so the old key stops on time between reloads. */
  previousExpiresAt: number;
}

/**
 * `valid`: the current key, or the previous one before its expiry. `expired`: the previous one after
 * it, which no reload can make valid again (keys are never reused), so it needs none. `unknown`:
 * anything else, which a reload may turn into a key (a project or rotation made elsewhere).
 */
export type KeyCheck = 'valid' | 'expired' | 'unknown';

export function checkKey(entry: ProjectKeyEntry | undefined, key: string, now: number): KeyCheck {
  if (entry === undefined) return 'unknown';
  if (entry.key === key) return 'valid';
  if (entry.previousKey !== key) return 'unknown';
  return now < entry.previousExpiresAt ? 'valid' : 'expired';
}

function entryOf(row: ProjectKeyRow): ProjectKeyEntry {
  const expiresAt = row.previous_client_key_expires_at?.getTime() ?? 0;
  return {
    key: row.client_key,
    previousKey: expiresAt > 0 ? row.previous_client_key : null,
    previousExpiresAt: expiresAt,
  };
}

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
  private keys: Map<number, ProjectKeyEntry> | undefined;
  private lastAttempt = 0;
  private loading: Promise<void> | undefined;
  private scheduled: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly projects: ProjectsRepository,
    private readonly keyChanges: ProjectKeyChanges,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.keyChanges.subscribe(() => this.refresh().catch(() => undefined));
    void this.reload().catch(() => undefined);
    this.timer = setInterval(() => void this.reload().catch(() => undefined), PROJECT_KEYS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /**
   * `key` is the canonical dashed UUID. Known keys are answered synchronously from the snapshot,
   * also while the database is down; a key the snapshot lacks waits for a reload, and rejects with
   * DatabaseUnavailableError when the database does not answer.
   */
  isValid(projectId: number, key: string): boolean | Promise<boolean> {
    if (this.keys !== undefined) {
      const entry = this.keys.get(projectId);
      if (entry !== undefined && entry.key === key) return true;
      const check = checkKey(entry, key, Date.now());
      if (check !== 'unknown') return check === 'valid';
      // When the reload fails the key cannot be judged (a project created since?): 503, not 401.
      return this.reloadSoon().then(() => this.checkLoaded(projectId, key));
    }
    return this.reload().then(() => this.checkLoaded(projectId, key));
  }

  /**
   * Reads the keys again after a change made in this process. A load already under way may have
   * read them before the change, so it is waited for and not reused.
   */
  async refresh(): Promise<void> {
    await this.loading?.catch(() => undefined);
    await this.reload();
  }

  private checkLoaded(projectId: number, key: string): boolean {
    return checkKey(this.keys?.get(projectId), key, Date.now()) === 'valid';
  }

  /**
   * A miss waits for a reload that starts after it, at most one a second: a project created a
   * moment ago (here or on another instance) is found, and a flood of random keys shares one query
   * a second. A load already under way may have read the keys before the missing one was created,
   * so it is waited for, never taken as the answer; when it fails, the database is down and the
   * miss gets that failure (503) without a second wait.
   */
  private reloadSoon(): Promise<void> {
    this.scheduled ??= this.reloadAfterMissInterval();
    return this.scheduled;
  }

  private async reloadAfterMissInterval(): Promise<void> {
    try {
      await this.loading;
      const wait = this.lastAttempt + PROJECT_KEYS_MISS_REFRESH_MS - Date.now();
      if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, wait));
      await this.loading?.catch(() => undefined);
    } finally {
      this.scheduled = undefined;
    }
    return this.reload();
  }

  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    this.lastAttempt = Date.now();
    try {
      const rows = await withDeadline(this.projects.clientKeys(), LOAD_DEADLINE_MS, 'no answer within 3 s');
      this.keys = new Map(rows.map((row) => [row.id, entryOf(row)]));
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
