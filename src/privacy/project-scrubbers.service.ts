import { Injectable } from '@nestjs/common';
import { DEFAULT_SCRUB_SETTINGS, EventScrubber } from './scrubbing/event-scrubber';
import { scrubSettingsOf } from './privacy-settings';
import { PrivacySettingsRepository } from './privacy-settings.repository';

/**
 * How long a worker keeps a project's settings: a change reaches every worker within this time,
 * and applies to the events digested from then on (never to events already stored).
 */
export const SETTINGS_TTL_MS = 5_000;

interface Cached {
  scrubber: Promise<EventScrubber>;
  loadedAt: number;
}

/**
 * Each project's scrubber for the digest. Projects on the defaults share one scrubber, and a
 * project's scrubber is kept while its settings stay the same, so that what a scrubber remembers
 * (the strings it found clean) lasts beyond the few seconds between reloads.
 */
@Injectable()
export class ProjectScrubbers {
  private readonly cache = new Map<number, Cached>();
  private readonly defaults = new EventScrubber(DEFAULT_SCRUB_SETTINGS);
  /** The scrubber of each project with settings of its own, by the time they were last changed. */
  private readonly custom = new Map<number, { updatedAt: number; scrubber: EventScrubber }>();

  constructor(private readonly settings: PrivacySettingsRepository) {}

  forProject(projectId: number, now = Date.now()): Promise<EventScrubber> {
    const cached = this.cache.get(projectId);
    if (cached && now - cached.loadedAt < SETTINGS_TTL_MS) return cached.scrubber;
    const scrubber = this.load(projectId);
    this.cache.set(projectId, { scrubber, loadedAt: now });
    // A failed load (the database is down) is not kept: the job waits and the next event retries.
    scrubber.catch(() => this.cache.delete(projectId));
    return scrubber;
  }

  private async load(projectId: number): Promise<EventScrubber> {
    const [row] = await this.settings.findMany([projectId]);
    if (!row) {
      this.custom.delete(projectId);
      return this.defaults;
    }
    const updatedAt = row.updated_at.getTime();
    const known = this.custom.get(projectId);
    if (known && known.updatedAt === updatedAt) return known.scrubber;
    const scrubber = new EventScrubber(scrubSettingsOf(row));
    this.custom.set(projectId, { updatedAt, scrubber });
    return scrubber;
  }
}
