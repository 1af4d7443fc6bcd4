import { Inject, Injectable, Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { REDIS, RedisClient } from '../redis/redis.module';
import { sessionKeys } from '../releases/health/session-keys';
import { LimitKeys } from './limit-keys';
import { BASELINE_HOURS, baselineHours, dayStart, HOUR_MS, hourStart, spikeLimit } from './quota-periods';
import { ProjectLimitInputs, QuotasRepository, SpikeRow } from './quotas.repository';

/** What the quotas API shows of a project's counters, read from Redis. */
export interface QuotaUsage {
  today: number;
  this_month: number;
  this_hour: number;
  /** The hour's spike protection limit as ingest applies it; null: off or not published yet. */
  spike_limit: number | null;
  /** The current hour's drops by spike protection, live. */
  spike_dropped_this_hour: number;
  /** Session items accepted in the current UTC day. */
  sessions_today: number;
}

/** A spike the minute job found engaged for the first time: one alert. */
export type NewSpike = SpikeRow;

/** Spike hashes live until two hours after their hour (ingest sets it); closed spikes are removed from the set. */
const SPIKE_ENDS_AFTER_QUIET_MS = HOUR_MS;

/**
 * Publishes each project's quotas and spike protection limit to the Redis hash ingest reads (ingest
 * never queries PostgreSQL), and turns the spikes ingest marked into project_spikes rows. The
 * settings API publishes one project at once; the minute job (SpikeAlertsService) all of them,
 * which also restores the hashes after Redis lost its data.
 */
@Injectable()
export class QuotaLimitsService {
  private readonly logger = new Logger('QuotaLimits');
  private readonly failures = new RepeatedLog(this.logger, 60_000);
  private readonly keys: LimitKeys;
  private readonly sessionKeys: ReturnType<typeof sessionKeys>;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly quotas: QuotasRepository,
    private readonly config: AppConfig,
  ) {
    this.keys = new LimitKeys(config.REDIS_PREFIX);
    this.sessionKeys = sessionKeys(config.REDIS_PREFIX);
  }

  /** The project's spike protection limit for the hour of `now` (null: turned off). */
  limitOf(inputs: ProjectLimitInputs, now: number): number | null {
    if (!inputs.spike_protection) return null;
    return spikeLimit({
      recentEvents: Number(inputs.recent_events),
      hours: baselineHours(inputs.created_at.getTime(), now),
      multiplier: this.config.SPIKE_PROTECTION_MULTIPLIER,
      floor: this.config.SPIKE_PROTECTION_MIN_PER_HOUR,
    });
  }

  /** Publishes one project's limits (after its settings changed). */
  async publish(projectId: number, now: number): Promise<void> {
    const { from, to } = baselineWindow(now);
    const inputs = await this.quotas.projectInputs(projectId, from, to);
    if (inputs) await this.write([inputs], now);
  }

  /** Publishes every project's limits; returns how many. */
  async publishAll(now: number): Promise<number> {
    const { from, to } = baselineWindow(now);
    const inputs = await this.quotas.limitInputs(from, to);
    for (let start = 0; start < inputs.length; start += 500)
      await this.write(inputs.slice(start, start + 500), now);
    return inputs.length;
  }

  private async write(inputs: ProjectLimitInputs[], now: number): Promise<void> {
    // Each command on its own, all sent at once (ioredis writes them back to back): a pipeline would
    // have to keep to one slot on a Redis Cluster, and the projects' limits hashes and the session
    // quotas' hash are spread over slots.
    const writes = inputs.flatMap((project) => [
      this.redis.hset(this.keys.limits(project.project_id), {
        d: project.daily_quota ?? -1,
        mo: project.monthly_quota ?? -1,
        sp: this.limitOf(project, now) ?? 0,
      }),
      // The session quota sits with the session keys: the script that applies sessions reads it.
      project.daily_session_quota === null
        ? this.redis.hdel(this.sessionKeys.dailyQuotas, String(project.project_id))
        : this.redis.hset(this.sessionKeys.dailyQuotas, String(project.project_id), project.daily_session_quota),
    ]);
    await Promise.all(writes);
  }

  async usage(projectId: number, now: number): Promise<QuotaUsage> {
    const [today, month, hour, limits, spike, sessions] = await Promise.all([
      this.redis.get(this.keys.acceptedToday(projectId, now)),
      this.redis.get(this.keys.acceptedThisMonth(projectId, now)),
      this.redis.get(this.keys.acceptedThisHour(projectId, now)),
      this.redis.hget(this.keys.limits(projectId), 'sp'),
      this.redis.hget(this.keys.spike(projectId, now), 'dropped'),
      this.redis.get(this.sessionKeys.acceptedInDay(projectId, dayStart(now))),
    ]);
    const limit = Number(limits ?? 0);
    return {
      today: Number(today ?? 0),
      this_month: Number(month ?? 0),
      this_hour: Number(hour ?? 0),
      spike_limit: limit > 0 ? limit : null,
      spike_dropped_this_hour: Number(spike ?? 0),
      sessions_today: Number(sessions ?? 0),
    };
  }

  /**
   * Records the spikes ingest marked: a project whose drops started opens a spike (returned, for
   * its alert); an open spike follows the hours it keeps dropping in, and ends once a whole hour
   * passed without a drop. Several runs at once open a spike once (the partial unique index).
   */
  async collectSpikes(now: number): Promise<NewSpike[]> {
    const marked = (await this.redis.smembers(this.keys.engagedProjects()))
      .map(Number)
      .filter(Number.isSafeInteger);
    const open = new Map((await this.quotas.openSpikes()).map((spike) => [spike.project_id, spike]));
    const projects = new Set([...marked, ...open.keys()]);
    const opened: NewSpike[] = [];
    const thisHour = hourStart(now);
    for (const projectId of projects) {
      try {
        const spike = await this.followSpike(projectId, open.get(projectId), thisHour);
        if (spike) opened.push(spike);
      } catch (error) {
        this.failures.warn(
          `spike:${projectId}`,
          `spike of project ${projectId} not recorded: ${(error as Error).message}`,
        );
      }
    }
    return opened;
  }

  private async followSpike(
    projectId: number,
    open: SpikeRow | undefined,
    thisHour: number,
  ): Promise<NewSpike | undefined> {
    const current = await this.redis.hgetall(this.keys.spike(projectId, thisHour));
    const dropping = current.dropped !== undefined;
    if (!open) {
      if (!dropping) {
        await this.redis.srem(this.keys.engagedProjects(), String(projectId));
        return undefined;
      }
      const spike = await this.quotas.insertSpike(
        projectId,
        new Date(Number(current.since)),
        Number(current.limit),
        new Date(thisHour),
        Number(current.dropped),
      );
      if (spike) {
        this.logger.warn(
          `spike protection engaged for project ${projectId} at ${spike.started_at.toISOString()}: ` +
            `limit ${spike.limit_per_hour} events per hour`,
        );
      }
      return spike;
    }
    const openHour = open.current_hour.getTime();
    const lastFinal = await this.redis.hget(this.keys.spike(projectId, openHour), 'dropped');
    if (dropping) {
      await this.quotas.updateSpike(
        open.id,
        new Date(thisHour),
        Number(current.limit),
        Number(current.dropped),
        openHour < thisHour && lastFinal !== null ? Number(lastFinal) : undefined,
      );
      return undefined;
    }
    if (thisHour >= openHour + HOUR_MS + SPIKE_ENDS_AFTER_QUIET_MS) {
      await this.quotas.closeSpike(
        open.id,
        new Date(openHour + HOUR_MS),
        lastFinal === null ? undefined : Number(lastFinal),
      );
      await this.redis.srem(this.keys.engagedProjects(), String(projectId));
      this.logger.log(`spike protection of project ${projectId} disengaged`);
    } else if (lastFinal !== null) {
      await this.quotas.updateSpike(
        open.id,
        new Date(openHour),
        open.limit_per_hour,
        Number(lastFinal),
        undefined,
      );
    }
    return undefined;
  }
}

/** The whole hours of the baseline: the BASELINE_HOURS before the hour of `now`. */
export function baselineWindow(now: number): { from: Date; to: Date } {
  const to = hourStart(now);
  return { from: new Date(to - BASELINE_HOURS * HOUR_MS), to: new Date(to) };
}
