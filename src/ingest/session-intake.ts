import { Injectable, Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import type { OutcomeCount } from '../outcomes/envelope-outcomes';
import { readSessionItems, SessionRecord } from '../releases/health/session-items';
import { HashedRecord, SessionLimitWindow, SessionRecorder } from '../releases/health/session-recorder';
import { UserHasher } from '../releases/health/user-hasher';
import type { EnvelopeReader } from './envelope-reader';

/** Item types that carry sessions, and count in the `session` rate-limit category. */
export const SESSION_ITEM_TYPES: ReadonlySet<string> = new Set(['session', 'sessions']);

export interface SessionIntakeResult {
  /** Session items the envelope held. */
  items: number;
  /**
   * Set when the project's session limit (`minute`, `hour`) or daily session quota (`day`) refused
   * them: nothing of them was recorded.
   */
  rateLimited?: { retryAfterSeconds: number; window: SessionLimitWindow };
  /** What was skipped or refused, as outcomes (category `session`). */
  outcomes: OutcomeCount[];
}

/**
 * An envelope's sessions at ingest: read and checked (session-items.ts), their distinct ids hashed,
 * then applied to Redis in one atomic step that also counts them against the session rate limit
 * (SessionRecorder). Awaited before the SDK is answered: a 200 means the updates are in Redis.
 */
@Injectable()
export class SessionIntake {
  private readonly logger = new Logger('Ingest');
  private readonly limitLog = new RepeatedLog(this.logger, 60_000);

  constructor(
    private readonly recorder: SessionRecorder,
    private readonly users: UserHasher,
  ) {}

  async take(projectId: number, reader: EnvelopeReader, now = Date.now()): Promise<SessionIntakeResult> {
    const updates = reader.itemsOfType('session');
    const aggregates = reader.itemsOfType('sessions');
    const items = updates.length + aggregates.length;
    const result: SessionIntakeResult = { items, outcomes: [] };
    if (items === 0) return result;
    const found = readSessionItems(updates, aggregates, now);
    const records = found.records.map((record) => this.hashed(projectId, record));
    for (const [reason, quantity] of found.skipped) {
      result.outcomes.push({ outcome: 'invalid', category: 'session', reason, quantity });
    }
    // Nothing valid to keep: no Redis round trip (and nothing to count against the limits).
    if (records.length === 0) return result;
    const verdict = await this.recorder.record(projectId, items, records, now);
    if (verdict.applied && verdict.untracked > 0) {
      result.outcomes.push({
        outcome: 'rate_limited',
        category: 'session',
        reason: 'untracked_session',
        quantity: verdict.untracked,
      });
      this.limitLog.warn(
        `untracked ${projectId}`,
        `project ${projectId}: ${verdict.untracked} session update(s) dropped: their session has no kept state ` +
          `(over MAX_TRACKED_SESSIONS_PER_HOUR, ${this.recorder.trackedPerHour} new sessions this hour, or started over a day ago)`,
      );
    }
    if (!verdict.applied) {
      result.rateLimited = { retryAfterSeconds: verdict.retryAfterSeconds, window: verdict.window };
      const reason = verdict.window === 'day' ? 'session_quota' : 'rate_limit';
      result.outcomes = [{ outcome: 'rate_limited', category: 'session', reason, quantity: items }];
      if (verdict.window === 'day') {
        this.limitLog.warn(
          `session quota ${projectId}`,
          `daily session quota exceeded for project ${projectId}: dropping sessions for ${verdict.retryAfterSeconds} s`,
        );
      } else if (verdict.over <= items) {
        const limit = verdict.window === 'minute' ? this.recorder.minuteLimit : this.recorder.hourLimit;
        this.limitLog.warn(
          `sessions ${projectId}`,
          `rate limit exceeded for project ${projectId}: more than ${limit} session items per ${verdict.window}; ` +
            `dropping sessions for ${verdict.retryAfterSeconds} s`,
        );
      }
    }
    return result;
  }

  private hashed(projectId: number, record: SessionRecord): HashedRecord {
    if (record.did === undefined) return record;
    const { did, ...rest } = record;
    return { ...rest, userHash: this.users.hash(projectId, did) };
  }
}
