import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { QueueName } from '../../common/queues';
import { AppConfig } from '../../config/app-config';
import type { PersonMatch } from '../../events/events.repository';
import { openQueue } from '../../jobs/queue-layout';
import { closeRedisClient, createRedisClient } from '../../redis/redis-client';
import { ReleaseHealthRepository } from '../../releases/health/release-health.repository';
import { eraseSessionUsers } from '../../releases/health/session-erasure';
import { userHashOf } from '../../releases/health/user-hasher';
import type { ErasedByKind } from '../dto/erasure-report.response';
import { eraseFromFailedDigestJobs } from './failed-digest-jobs';
import { emailOf } from './person-identifier';

export type TracesErased = Pick<
  ErasedByKind,
  'release_health_users' | 'session_user_entries' | 'session_states' | 'failed_jobs'
>;

/** Fail rather than wait forever when Redis is away: the erasure is then run again. */
const REDIS_TUNING = { offlineQueue: true, maxRetriesPerRequest: 1 } as const;

/**
 * What is kept of a person besides their events and feedback: release health's users (keyed
 * hashes of their distinct ids, in PostgreSQL and in Redis), the states of their sessions (Redis),
 * and the payloads of the digest's failed set. Connections of its own, opened for one erasure:
 * the command line has no Redis otherwise, and erasures are rare.
 */
@Injectable()
export class PersonTracesService {
  constructor(
    private readonly health: ReleaseHealthRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * `preview`: counts what would go, deleting nothing; its PostgreSQL rows are deleted in the
   * preview's transaction, which the caller rolls back.
   */
  async erase(projectId: number, match: PersonMatch, preview?: { manager: EntityManager }): Promise<TracesErased> {
    const dryRun = preview !== undefined;
    const key = await this.health.userHashKey();
    const userHashes = distinctIdsOf(match).map((did) => userHashOf(key, projectId, did));
    const redis = createRedisClient(this.config, REDIS_TUNING);
    redis.on('error', () => undefined);
    const queue = openQueue(this.config, QueueName.Digest, REDIS_TUNING);
    try {
      // Redis before PostgreSQL: what a fold moves meanwhile is then found in PostgreSQL.
      const sessions = await eraseSessionUsers(redis, this.config.REDIS_PREFIX, userHashes, { dryRun });
      const rows = await this.health.deleteUsers(projectId, userHashes, preview?.manager);
      const failed = await eraseFromFailedDigestJobs(queue, projectId, match, { dryRun });
      return {
        release_health_users: rows,
        session_user_entries: sessions.userEntries,
        session_states: sessions.states,
        failed_jobs: failed,
      };
    } finally {
      await queue.close();
      await closeRedisClient(redis);
    }
  }
}

/**
 * The distinct ids (`did`) a session of the person may carry: SDKs send the user's id, e-mail or
 * username as it is, so the value itself, and an e-mail address also in lower case.
 */
export function distinctIdsOf(match: PersonMatch): string[] {
  const ids = new Set([match.value]);
  if (emailOf(match) !== null) ids.add(match.value.toLowerCase());
  return [...ids];
}
