import { HttpException, HttpStatus, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { envelopeOutcomes } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { CHECK_IN_ITEM_TYPE, CheckInIntake } from './check-in-intake';
import { CategoryAllowance, CheckInLimits, FeedbackLimits } from '../limits/category-limits';
import { categoryRateLimited, categoryRejection } from './limit-rejections';
import type { EnvelopeReader } from './envelope-reader';
import { FEEDBACK_ITEM_TYPES, FeedbackIntake } from './feedback-intake';
import { IngestRejection } from './ingest-rejection';
import { SessionIntake } from './session-intake';

/**
 * The items of an envelope beside its event, each in its own category: feedback (category
 * `feedback`) and cron check-ins (category `monitor`), each with a limit of its own, and sessions (their own limits), and the outcomes of the
 * items ingest counts without keeping. IngestService hands the envelope here once it is read.
 */
@Injectable()
export class EnvelopeItemIntake {
  private readonly logger = new Logger('Ingest');
  private readonly rejectionLog = new RepeatedLog(this.logger, 10_000);

  constructor(
    private readonly outcomes: OutcomeCounter,
    private readonly sessions: SessionIntake,
    private readonly feedback: FeedbackIntake,
    private readonly checkIns: CheckInIntake,
    private readonly checkInLimits: CheckInLimits,
    private readonly feedbackLimits: FeedbackLimits,
  ) {}

  /**
   * Queues the envelope's feedback and check-ins, if it has any, each within its category's limit.
   * Past a limit, an envelope of that category's items alone (and client reports) is refused with a
   * 429 naming the category; beside other items, the items past it are dropped and counted as rate
   * limited.
   */
  async takeFeedbackAndCheckIns(projectId: number, reader: EnvelopeReader): Promise<void> {
    const feedback = await this.feedback.acceptEnvelope(projectId, reader);
    this.settle(projectId, reader, feedback, this.feedbackLimits, FEEDBACK_ITEM_TYPES);
    if (reader.smallItems.has(CHECK_IN_ITEM_TYPE)) {
      const checkIns = await this.checkIns.acceptEnvelope(projectId, reader);
      this.settle(projectId, reader, checkIns, this.checkInLimits, new Set([CHECK_IN_ITEM_TYPE]));
    }
  }

  private settle(
    projectId: number,
    reader: EnvelopeReader,
    allowance: CategoryAllowance,
    limits: CheckInLimits | FeedbackLimits,
    ownTypes: ReadonlySet<string>,
  ): void {
    if (allowance.refused === 0) return;
    const alone = reader.itemTypes.every((type) => ownTypes.has(type) || type === 'client_report');
    if (alone && allowance.taken === 0) throw categoryRejection(limits, allowance);
    this.outcomes.count(projectId, [categoryRateLimited(limits, allowance.refused)]);
  }

  /**
   * Records the envelope's sessions, if it has any (they count in their own category). A
   * sessions-only envelope over the session limits or the daily session quota is refused with a 429
   * that names the `session` category (and the reason `session_quota` for the quota); beside an
   * event, its sessions are only dropped (and counted as rate limited).
   */
  async takeSessions(projectId: number, reader: EnvelopeReader, withEvent: boolean): Promise<void> {
    if (!reader.smallItems.has('session') && !reader.smallItems.has('sessions')) return;
    let taken;
    try {
      taken = await this.sessions.take(projectId, reader);
    } catch (error) {
      if (error instanceof HttpException) throw error;
      this.rejectionLog.warn('sessions', `sessions not recorded, Redis refused: ${(error as Error).message}`);
      throw new ServiceUnavailableException('session store unavailable, try again later');
    }
    if (taken.rateLimited && !withEvent) {
      const seconds = String(taken.rateLimited.retryAfterSeconds);
      const quota = taken.rateLimited.window === 'day';
      throw new IngestRejection(
        quota
          ? 'daily session quota exceeded for this project'
          : `rate limit exceeded: too many session items per ${taken.rateLimited.window} for this project`,
        HttpStatus.TOO_MANY_REQUESTS,
        {
          'Retry-After': seconds,
          'X-Sentry-Rate-Limits': `${seconds}:session:project${quota ? ':session_quota' : ''}`,
        },
        // The quota's refusal counts every session item it drops, as beside an event.
        quota ? 'session_quota' : undefined,
        quota ? taken.outcomes : undefined,
      );
    }
    if (taken.outcomes.length > 0) this.outcomes.count(projectId, taken.outcomes);
  }

  /** The common envelope, one event and nothing else, has nothing to count and costs one comparison. */
  countOutcomes(projectId: number, reader: EnvelopeReader): void {
    const types = reader.itemTypes;
    if (types.length === 1 && types[0] === 'event') return;
    this.outcomes.count(projectId, envelopeOutcomes(types, reader.clientReports));
  }
}
