import { HttpException, HttpStatus, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { envelopeOutcomes } from '../outcomes/envelope-outcomes';
import { OutcomeCounter } from '../outcomes/outcome-counter';
import { CHECK_IN_ITEM_TYPE, CheckInIntake } from './check-in-intake';
import { CheckInLimits, rateLimitedCheckIns } from './check-in-limits';
import type { EnvelopeReader } from './envelope-reader';
import { FeedbackIntake } from './feedback-intake';
import { IngestRejection } from './ingest-rejection';
import { SessionIntake } from './session-intake';

/**
 * The items of an envelope beside its event, each in its own category: feedback, cron check-ins
 * (category `monitor`, their own limit) and sessions (their own limits), and the outcomes of the
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
  ) {}

  /** Queues the envelope's feedback and check-ins, if it has any. */
  async takeFeedbackAndCheckIns(projectId: number, reader: EnvelopeReader): Promise<void> {
    await this.feedback.acceptEnvelope(projectId, reader);
    if (reader.smallItems.has(CHECK_IN_ITEM_TYPE)) await this.takeCheckIns(projectId, reader);
  }

  /**
   * Records the envelope's sessions, if it has any (they count in their own category). A
   * sessions-only envelope over the session limits is refused with a 429 that names the `session`
   * category; beside an event, its sessions are only dropped (and counted as rate limited).
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
      throw new IngestRejection(
        `rate limit exceeded: too many session items per ${taken.rateLimited.window} for this project`,
        HttpStatus.TOO_MANY_REQUESTS,
        { 'Retry-After': seconds, 'X-Sentry-Rate-Limits': `${seconds}:session:project` },
      );
    }
    if (taken.outcomes.length > 0) this.outcomes.count(projectId, taken.outcomes);
  }

  /**
   * Queues the envelope's check-ins within the project's check-in limit (category `monitor`). Past
   * it, an envelope of check-ins alone is refused with a 429 naming `monitor`; beside other items,
   * the check-ins past it are dropped and counted as rate limited.
   */
  private async takeCheckIns(projectId: number, reader: EnvelopeReader): Promise<void> {
    const allowance = await this.checkIns.acceptEnvelope(projectId, reader);
    if (allowance.refused === 0) return;
    const onlyCheckIns = reader.itemTypes.every(
      (type) => type === CHECK_IN_ITEM_TYPE || type === 'client_report',
    );
    if (onlyCheckIns && allowance.taken === 0) throw this.checkInLimits.refusal(allowance);
    this.outcomes.count(projectId, [rateLimitedCheckIns(allowance.refused)]);
  }

  /** The common envelope, one event and nothing else, has nothing to count and costs one comparison. */
  countOutcomes(projectId: number, reader: EnvelopeReader): void {
    const types = reader.itemTypes;
    if (types.length === 1 && types[0] === 'event') return;
    this.outcomes.count(projectId, envelopeOutcomes(types, reader.clientReports));
  }
}
