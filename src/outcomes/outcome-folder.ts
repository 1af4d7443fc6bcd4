import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { outcomeKeys, readOutcomeFields } from './outcome-fields';
import { OutcomesRepository } from './outcomes.repository';

/**
 * Takes the live hash as a batch: renamed, so that ingest's next counts start a new live hash, and
 * its id added to the set of batches to fold, in one step (a crash in between would leave a batch
 * nobody knows of). KEYS: live hash, batch hash, set of batches. ARGV: batch id.
 */
const TAKE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`;

/** A batch committed to PostgreSQL and not yet deleted from Redis is retried within this. */
const FOLDS_REMEMBERED_MS = 7 * 24 * 3_600_000;

type TakeCommand = (live: string, batch: string, folds: string, batchId: string) => Promise<number>;

export interface OutcomeFoldReport {
  /** Batches whose counts were added now. */
  folded: number;
  /** Batches found already added (a fold that died after its commit) and only cleaned up. */
  alreadyFolded: number;
}

/**
 * Moves the outcome counts from Redis into `outcomes_hourly`, exactly once. A fold takes the live
 * hash under a new batch id (TAKE_SCRIPT), then for every batch in the set (this one, and any a
 * failed fold left): adds its counts with the batch id recorded in the same statement, then
 * deletes the batch from Redis. A fold that dies after the commit leaves the batch in the set; the
 * next fold finds its id recorded, adds nothing, and only deletes it. A fold that dies before the
 * commit leaves it to be added by the next. Run once a minute by the maintenance queue.
 */
@Injectable()
export class OutcomeFolder {
  private readonly logger = new Logger('Outcomes');
  private readonly keys: ReturnType<typeof outcomeKeys>;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly outcomes: OutcomesRepository,
    config: AppConfig,
  ) {
    this.keys = outcomeKeys(config.REDIS_PREFIX);
    if (!('takeOutcomes' in this.redis)) {
      this.redis.defineCommand('takeOutcomes', { numberOfKeys: 3, lua: TAKE_SCRIPT });
    }
  }

  async fold(now = new Date()): Promise<OutcomeFoldReport> {
    const batchId = randomUUID();
    const take = (this.redis as unknown as { takeOutcomes: TakeCommand }).takeOutcomes;
    await take.call(this.redis, this.keys.live, this.keys.batch(batchId), this.keys.folds, batchId);
    const report: OutcomeFoldReport = { folded: 0, alreadyFolded: 0 };
    for (const id of await this.redis.smembers(this.keys.folds)) {
      const counts = readOutcomeFields(await this.redis.hgetall(this.keys.batch(id)));
      if (counts.length > 0) {
        if (await this.outcomes.foldBatch(id, counts)) report.folded++;
        else report.alreadyFolded++;
      }
      await this.redis.multi().del(this.keys.batch(id)).srem(this.keys.folds, id).exec();
    }
    if (report.alreadyFolded > 0) {
      this.logger.log(`${report.alreadyFolded} outcome batch(es) folded before were only cleaned up`);
    }
    await this.outcomes.forgetFoldsBefore(new Date(now.getTime() - FOLDS_REMEMBERED_MS));
    return report;
  }
}
