import { dayStart, hourStart, monthStart } from './quota-periods';

/**
 * The Redis keys of a project's limits and counters. The project id is a hash tag: the ingest script
 * touches them all in one call, which a Redis Cluster allows only within one slot.
 */
export class LimitKeys {
  constructor(private readonly prefix: string) {}

  private base(projectId: number): string {
    return `${this.prefix}:ratelimit:{${projectId}}`;
  }

  minute(projectId: number, minuteStart: number): string {
    return `${this.base(projectId)}:m:${minuteStart}`;
  }

  hour(projectId: number, start: number): string {
    return `${this.base(projectId)}:h:${start}`;
  }

  /** Check-ins (category `monitor`) accepted in the minute starting at `minuteStart`. */
  /** The minute's counter of a category limited apart from the events (`monitor`, `feedback`). */
  categoryMinute(projectId: number, category: string, minuteStart: number): string {
    return `${this.base(projectId)}:${category}:m:${minuteStart}`;
  }

  /** Hash: `d` daily quota, `mo` monthly quota (absent or -1: none), `sp` spike limit per hour (absent or 0: none). */
  limits(projectId: number): string {
    return `${this.base(projectId)}:limits`;
  }

  /** Events accepted in the UTC day, month and hour of `now`. */
  acceptedToday(projectId: number, now: number): string {
    return `${this.base(projectId)}:day:${dayStart(now)}`;
  }

  acceptedThisMonth(projectId: number, now: number): string {
    return `${this.base(projectId)}:month:${monthStart(now)}`;
  }

  acceptedThisHour(projectId: number, now: number): string {
    return `${this.base(projectId)}:ah:${hourStart(now)}`;
  }

  /** Hash of the hour's spike: `since` (epoch ms of the first drop), `limit`, `dropped`. */
  spike(projectId: number, hour: number): string {
    return `${this.base(projectId)}:spike:${hourStart(hour)}`;
  }

  /** When ingest first refused the project's events for `reason` in the period starting at `periodStart` (epoch ms). */
  quotaRefusal(projectId: number, reason: 'daily_quota' | 'monthly_quota', periodStart: number): string {
    return `${this.base(projectId)}:refused:${reason}:${periodStart}`;
  }

  /** The projects a quota refused events of: the minute job alerts once per period from there. */
  refusingProjects(): string {
    return `${this.prefix}:quota-refusals`;
  }

  /** The projects whose spike protection engaged and whose spike the minute job has not closed yet. */
  engagedProjects(): string {
    return `${this.prefix}:spikes`;
  }
}
