import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { withDeadline } from '../common/deadline';
import { RepeatedLog } from '../common/repeated-log';
import { QuotaRefusalView, QuotasView, SpikeView } from './dto/quotas.response';
import { QuotaLimitsService, QuotaUsage } from './quota-limits.service';
import { QuotaRefusalsService } from './quota-refusals.service';
import { QuotaSettingsChange, QuotasRepository, SpikeRow } from './quotas.repository';

const RECENT_SPIKES = 10;
const REDIS_DEADLINE_MS = 2_000;

/** The quotas API: settings in PostgreSQL, published to Redis for ingest at once. */
@Injectable()
export class QuotasService {
  private readonly logger = new Logger('Quotas');
  private readonly failures = new RepeatedLog(this.logger, 60_000);

  constructor(
    private readonly quotas: QuotasRepository,
    private readonly limits: QuotaLimitsService,
    private readonly refusals: QuotaRefusalsService,
    private readonly clock: Clock,
  ) {}

  async get(projectId: number): Promise<QuotasView> {
    const now = this.clock.now();
    const [row, spikes, usage] = await Promise.all([
      this.quotas.find(projectId),
      this.quotas.recentSpikes(projectId, RECENT_SPIKES),
      this.usage(projectId, now),
    ]);
    const open = spikes.find((spike) => spike.ended_at === null);
    return {
      project_id: projectId,
      daily_quota: row?.daily_quota ?? null,
      monthly_quota: row?.monthly_quota ?? null,
      daily_session_quota: row?.daily_session_quota ?? null,
      spike_protection: row?.spike_protection ?? true,
      updated_at: row ? row.updated_at.toISOString() : null,
      usage,
      current_spike: open ? spikeView(open, usage) : null,
      recent_spikes: spikes.map((spike) => spikeView(spike, spike === open ? usage : null)),
    };
  }

  /** Stored, then published; when Redis is away the minute job publishes it (within a minute). */
  async update(projectId: number, change: QuotaSettingsChange): Promise<QuotasView> {
    await this.quotas.upsert(projectId, change);
    try {
      await withDeadline(this.limits.publish(projectId, this.clock.now()), REDIS_DEADLINE_MS, 'no answer');
    } catch (error) {
      this.failures.warn(
        'publish',
        `quotas of project ${projectId} saved, published within a minute: Redis failed (${(error as Error).message})`,
      );
    }
    return this.get(projectId);
  }

  /** Read from Redis only: the dashboard asks on every project page. Redis away: an error. */
  async refusal(projectId: number): Promise<QuotaRefusalView> {
    const refusal = await withDeadline(
      this.refusals.current(projectId, this.clock.now()),
      REDIS_DEADLINE_MS,
      'Redis did not answer',
    );
    const iso = (at: number | null | undefined) => (typeof at === 'number' ? new Date(at).toISOString() : null);
    return {
      refusing: refusal !== null,
      reason: refusal?.reason ?? null,
      since: iso(refusal?.since),
      until: iso(refusal?.until),
      limit: refusal?.limit ?? null,
      dropped: refusal?.dropped ?? null,
    };
  }

  private async usage(projectId: number, now: number): Promise<QuotaUsage | null> {
    try {
      return await withDeadline(this.limits.usage(projectId, now), REDIS_DEADLINE_MS, 'no answer');
    } catch (error) {
      this.failures.warn('usage', `quota usage not read: Redis failed (${(error as Error).message})`);
      return null;
    }
  }
}

/** An open spike's drops include the live count of its current hour. */
function spikeView(spike: SpikeRow, usage: QuotaUsage | null): SpikeView {
  const live = usage ? usage.spike_dropped_this_hour : 0;
  return {
    id: spike.id,
    started_at: spike.started_at.toISOString(),
    ended_at: spike.ended_at ? spike.ended_at.toISOString() : null,
    limit_per_hour: spike.limit_per_hour,
    dropped: Number(spike.dropped_earlier) + Math.max(Number(spike.dropped_this_hour), live),
  };
}
