import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ConflictError, InvalidInputError, NotFoundError } from '../../common/domain-errors';
import { STATUS_PAGE_SLUG, type UpdateStatusPageDto } from './dto/status-page.dto';
import type { PublicStatusPageView, StatusDayView, StatusPageSettingsView } from './dto/status-page.response';
import { StatusPageRow, StatusPagesRepository } from './status-pages.repository';
import { UptimeChecksRepository } from '../uptime/uptime-checks.repository';
import { UptimeClock } from '../uptime/uptime-clock';
import { UptimeMonitorsRepository } from '../uptime/uptime-monitors.repository';
import { CheckInsRepository } from '../crons/check-ins.repository';
import { CronMonitorsRepository } from '../crons/cron-monitors.repository';
import { uptimePercent } from '../uptime/uptime-percent';

export const STATUS_PAGE_DAYS = 90;
const DAY_MS = 86_400_000;
const DEFAULT_TITLE = 'Status';
const NOT_FOUND = 'status page not found';
/**
 * A public page is computed at most once per this long per process: anyone may ask for it, and it
 * sums up to 90 days of hourly totals per monitor. A change of settings clears this process's copies;
 * other processes serve theirs until they expire.
 */
export const PUBLIC_PAGE_TTL_MS = 10_000;
/**
 * A slug without an enabled page is remembered as such for this long per process, so that asking
 * for slugs that do not exist, however often, costs PostgreSQL one query per slug and interval.
 * Saving a page forgets them on this process at once; the others see a newly published page within
 * this time.
 */
export const MISSING_PAGE_TTL_MS = 5_000;

/**
 * A project's public status page: its settings (admins), and the page itself, which shows the
 * chosen monitors' names, states and daily uptime, and nothing else (no URL, no error, no project).
 */
@Injectable()
export class StatusPageService {
  private readonly published = new LRUCache<string, PublicStatusPageView>({
    max: 1_000,
    ttl: PUBLIC_PAGE_TTL_MS,
  });
  /** Kept apart from the pages, so that a run of made-up slugs cannot push real pages out. */
  private readonly missing = new LRUCache<string, true>({ max: 10_000, ttl: MISSING_PAGE_TTL_MS });

  constructor(
    private readonly pages: StatusPagesRepository,
    private readonly monitors: UptimeMonitorsRepository,
    private readonly checks: UptimeChecksRepository,
    private readonly clock: UptimeClock,
    private readonly cronMonitors: CronMonitorsRepository,
    private readonly checkIns: CheckInsRepository,
  ) {}

  async settings(projectId: number): Promise<StatusPageSettingsView> {
    return toSettingsView(await this.pages.find(projectId));
  }

  async update(projectId: number, body: UpdateStatusPageDto): Promise<StatusPageSettingsView> {
    const current = await this.pages.find(projectId);
    const slug = body.slug !== undefined ? body.slug : (current?.slug ?? null);
    if (body.enabled && slug === null)
      throw new InvalidInputError('slug is needed to enable the status page');
    if (slug !== null && (await this.pages.slugTaken(slug, projectId))) {
      throw new ConflictError(`the status page slug "${slug}" is taken`);
    }
    const uptimeIds = [...new Set(body.uptime_monitor_ids ?? current?.uptime_monitor_ids ?? [])];
    const found = new Set(await this.monitors.idsInProject(projectId, uptimeIds));
    const unknown = uptimeIds.filter((id) => !found.has(id));
    if (unknown.length > 0) {
      throw new InvalidInputError(
        `uptime_monitor_ids: no uptime monitor ${unknown.join(', ')} in this project`,
      );
    }
    const cronIds = [...new Set(body.cron_monitor_ids ?? current?.cron_monitor_ids ?? [])];
    const cronFound = new Set(
      (await this.cronMonitors.summariesByIds(cronIds))
        .filter((row) => row.project_id === projectId)
        .map((row) => row.id),
    );
    const unknownCron = cronIds.filter((id) => !cronFound.has(id));
    if (unknownCron.length > 0) {
      throw new InvalidInputError(
        `cron_monitor_ids: no cron monitor ${unknownCron.join(', ')} in this project`,
      );
    }
    const saved = await this.pages.save(projectId, {
      enabled: body.enabled,
      slug,
      title: (body.title ?? current?.title ?? DEFAULT_TITLE).trim() || DEFAULT_TITLE,
      uptimeMonitorIds: uptimeIds,
      cronMonitorIds: cronIds,
    });
    this.published.clear();
    this.missing.clear();
    return toSettingsView(saved);
  }

  /** The public page; a page that does not exist or is disabled is not found. */
  async publicPage(slug: string): Promise<PublicStatusPageView> {
    const cached = this.published.get(slug);
    if (cached) return cached;
    // A slug no page could have is not looked up, nor remembered.
    if (!STATUS_PAGE_SLUG.test(slug) || this.missing.has(slug)) throw new NotFoundError(NOT_FOUND);
    const page = await this.pages.findEnabled(slug);
    if (!page) {
      this.missing.set(slug, true);
      throw new NotFoundError(NOT_FOUND);
    }
    const built = await this.buildPublicPage(page);
    this.published.set(slug, built);
    return built;
  }

  private async buildPublicPage(page: StatusPageRow): Promise<PublicStatusPageView> {
    const now = this.clock.now();
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    const first = new Date(today - (STATUS_PAGE_DAYS - 1) * DAY_MS);
    const dates = Array.from({ length: STATUS_PAGE_DAYS }, (_, i) =>
      new Date(first.getTime() + i * DAY_MS).toISOString().slice(0, 10),
    );
    return {
      title: page.title,
      monitors: [
        ...(await this.uptimeEntries(page, dates, first)),
        ...(await this.cronEntries(page, dates, first)),
      ],
      updated_at: now.toISOString(),
    };
  }

  /** Uptime monitors: their state, each day the share of their checks that passed. */
  private async uptimeEntries(page: StatusPageRow, dates: string[], first: Date): Promise<StatusEntry[]> {
    // Monitors moved out of the project or deleted since the page was saved are not shown.
    const rows = (await this.monitors.byIds(page.uptime_monitor_ids)).filter(
      (row) => row.project_id === page.project_id,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const daily = rows.length > 0 ? await this.checks.daily([...byId.keys()], first) : [];
    const days = daySeries(
      dates,
      daily.map((entry) => ({
        monitorId: entry.monitor_id,
        day: entry.day,
        ok: entry.ok,
        total: entry.checks,
      })),
    );
    return page.uptime_monitor_ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      return [{ name: row.name, kind: 'uptime' as const, status: row.status, days: days(id) }];
    });
  }

  /** Cron monitors: down while any environment failed, each day the share of its runs that were ok. */
  private async cronEntries(page: StatusPageRow, dates: string[], first: Date): Promise<StatusEntry[]> {
    const rows = (await this.cronMonitors.summariesByIds(page.cron_monitor_ids)).filter(
      (row) => row.project_id === page.project_id,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    const daily = rows.length > 0 ? await this.checkIns.dailyResults([...byId.keys()], first) : [];
    const days = daySeries(
      dates,
      daily.map((entry) => ({
        monitorId: entry.monitor_id,
        day: entry.day,
        ok: entry.ok,
        total: entry.runs,
      })),
    );
    return page.cron_monitor_ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      const failing = row.statuses.some((status) => ['error', 'missed', 'timeout'].includes(status));
      const reported = row.statuses.some((status) => status === 'ok' || status === 'in_progress');
      const status = failing ? ('down' as const) : reported ? ('up' as const) : ('pending' as const);
      return [{ name: row.name, kind: 'cron' as const, status, days: days(id) }];
    });
  }
}

type StatusEntry = PublicStatusPageView['monitors'][number];

/** What one monitor passed (`ok`) of its checks or runs (`total`) on one UTC day (`YYYY-MM-DD`). */
interface DayCounts {
  monitorId: number;
  day: string;
  ok: number;
  total: number;
}

/**
 * The page's day series, the same for either kind of monitor: for each of `dates`, the share of the
 * monitor's checks or runs that passed, null on a day without any.
 */
function daySeries(dates: string[], counts: DayCounts[]): (monitorId: number) => StatusDayView[] {
  const byMonitor = new Map<number, Map<string, DayCounts>>();
  for (const entry of counts) {
    const days = byMonitor.get(entry.monitorId) ?? new Map<string, DayCounts>();
    days.set(entry.day, entry);
    byMonitor.set(entry.monitorId, days);
  }
  return (monitorId) => {
    const days = byMonitor.get(monitorId);
    return dates.map((date) => {
      const entry = days?.get(date);
      return { date, uptime_percent: entry ? uptimePercent(entry.ok, entry.total) : null };
    });
  };
}

function toSettingsView(row: StatusPageRow | undefined): StatusPageSettingsView {
  return {
    enabled: row?.enabled ?? false,
    slug: row?.slug ?? null,
    title: row?.title ?? DEFAULT_TITLE,
    uptime_monitor_ids: row?.uptime_monitor_ids ?? [],
    cron_monitor_ids: row?.cron_monitor_ids ?? [],
  };
}
