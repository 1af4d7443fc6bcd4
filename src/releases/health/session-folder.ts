import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { RepeatedLog } from '../../common/repeated-log';
import { AppConfig } from '../../config/app-config';
import { REDIS, RedisClient } from '../../redis/redis.module';
import { ReleaseHealthRepository } from './release-health.repository';
import { readLiveFields, sessionKeys } from './session-keys';

/**
 * Takes the live hash as a batch: renamed, so that ingest's next updates start a new live hash,
 * and its id added to the set of batches to fold, in one step (`#!lua`: refused whole when Redis is
 * out of memory, rather than renaming without recording the batch). KEYS: live, batch, set of batches.
 */
const TAKE_SCRIPT = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

const FOLDS_REMEMBERED_MS = 7 * 24 * 3_600_000;
/** The hourly cap of new releases needs only the current hour's row; a day is kept for reading. */
const NEW_RELEASES_REMEMBERED_MS = 24 * 3_600_000;
/** Fields read from a batch per HSCAN round trip. */
const SCAN_COUNT = 5_000;

type TakeCommand = (live: string, batch: string, folds: string, batchId: string) => Promise<number>;

export interface SessionFoldReport {
  folded: number;
  alreadyFolded: number;
  /** Live fields read (bucket counters and user classes). */
  fields: number;
  /** PostgreSQL rows inserted or updated. */
  rows: number;
  /** Sessions dropped: their release was past the project's hourly cap of new releases. */
  refusedSessions: number;
}

/**
 * Moves the session counts from Redis into `release_health_hourly` and `release_health_users`,
 * exactly once, as the outcome fold does (docs/outcomes.md): take the live hash under a new batch
 * id, then for each batch in the set add its counts with the batch id recorded in the same
 * statement, then delete it from Redis. Run once a minute by the maintenance queue.
 */
@Injectable()
export class SessionFolder {
  private readonly logger = new Logger('ReleaseHealth');
  private readonly keys: ReturnType<typeof sessionKeys>;
  private readonly newReleasesPerHour: number;
  private readonly releaseLimitLog = new RepeatedLog(this.logger, 60_000);

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly health: ReleaseHealthRepository,
    config: AppConfig,
  ) {
    this.keys = sessionKeys(config.REDIS_PREFIX);
    this.newReleasesPerHour = config.MAX_NEW_RELEASES_FROM_SESSIONS_PER_HOUR;
    if (!('takeSessions' in this.redis)) {
      this.redis.defineCommand('takeSessions', { numberOfKeys: 3, lua: TAKE_SCRIPT });
    }
  }

  async fold(now = new Date()): Promise<SessionFoldReport> {
    const batchId = randomUUID();
    const take = (this.redis as unknown as { takeSessions: TakeCommand }).takeSessions;
    await take.call(this.redis, this.keys.live, this.keys.batch(batchId), this.keys.folds, batchId);
    const report: SessionFoldReport = { folded: 0, alreadyFolded: 0, fields: 0, rows: 0, refusedSessions: 0 };
    for (const id of await this.redis.smembers(this.keys.folds)) {
      const hash = await this.readBatch(this.keys.batch(id));
      const { buckets, users } = readLiveFields(hash);
      report.fields += buckets.length + users.length;
      if (buckets.length + users.length > 0) {
        const written = await this.health.foldBatch(id, buckets, users, {
          newReleasesPerHour: this.newReleasesPerHour,
          now,
        });
        report.refusedSessions += written.refusedSessions;
        if (written.recorded) report.folded++;
        else report.alreadyFolded++;
        report.rows += written.rows;
      }
      await this.redis.multi().del(this.keys.batch(id)).srem(this.keys.folds, id).exec();
    }
    if (report.alreadyFolded > 0) {
      this.logger.log(`${report.alreadyFolded} session batch(es) folded before were only cleaned up`);
    }
    if (report.refusedSessions > 0) {
      this.releaseLimitLog.warn(
        'release-limit',
        `${report.refusedSessions} session(s) dropped: their release would pass MAX_NEW_RELEASES_FROM_SESSIONS_PER_HOUR ` +
          `(${this.newReleasesPerHour} new releases per project and hour)`,
      );
    }
    await this.health.forgetFoldsBefore(new Date(now.getTime() - FOLDS_REMEMBERED_MS));
    await this.health.forgetNewReleasesBefore(new Date(now.getTime() - NEW_RELEASES_REMEMBERED_MS));
    return report;
  }

  /** A batch in pieces: a busy minute's hash is too large for one HGETALL answer to be kind to Redis. */
  private async readBatch(key: string): Promise<Record<string, string>> {
    const hash: Record<string, string> = {};
    let cursor = '0';
    do {
      const [next, entries] = await this.redis.hscan(key, cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i < entries.length; i += 2) hash[entries[i]] = entries[i + 1];
      cursor = next;
    } while (cursor !== '0');
    return hash;
  }
}
