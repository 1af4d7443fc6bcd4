import { Injectable } from '@nestjs/common';
import { OutcomesRepository } from '../outcomes/outcomes.repository';
import { FilteredCount, InboundFiltersView } from './dto/inbound-filters.response';
import { InboundFilterSnapshot } from './filters/inbound-filter-snapshot.service';
import { FILTER_REASONS } from './filters/inbound-filters';
import { LEGACY_BROWSERS } from './filters/user-agents';
import { checkedInboundFiltersChange, inboundFilterSettingsOf } from './inbound-filter-settings';
import {
  InboundFiltersChange,
  InboundFiltersRepository,
  InboundFiltersRow,
} from './inbound-filters.repository';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

@Injectable()
export class InboundFiltersService {
  constructor(
    private readonly rows: InboundFiltersRepository,
    private readonly snapshot: InboundFilterSnapshot,
    private readonly outcomes: OutcomesRepository,
  ) {}

  async get(projectId: number, now = Date.now()): Promise<InboundFiltersView> {
    const [row, filtered] = await Promise.all([
      this.rows.find(projectId),
      this.filteredCounts(projectId, now),
    ]);
    return view(projectId, row, filtered);
  }

  /** Throws InvalidInputError for a glob or range that does not parse, an unknown browser, a list too long. */
  async update(
    projectId: number,
    change: InboundFiltersChange,
    now = Date.now(),
  ): Promise<InboundFiltersView> {
    const row = await this.rows.upsert(projectId, checkedInboundFiltersChange(change));
    // This process filters with the new settings before the answer; others within their reload.
    await this.snapshot.refresh();
    return view(projectId, row, await this.filteredCounts(projectId, now));
  }

  /** From the hourly outcomes: two small reads of one project's rows. */
  private async filteredCounts(projectId: number, now: number): Promise<FilteredCount[]> {
    const to = new Date(Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS);
    const [day, month] = await Promise.all([
      this.outcomes.totals(projectId, { from: new Date(to.getTime() - DAY_MS), to }),
      this.outcomes.totals(projectId, { from: new Date(to.getTime() - 30 * DAY_MS), to }),
    ]);
    const sum = (rows: typeof day, reason: string) =>
      rows
        .filter((row) => row.outcome === 'filtered' && row.reason === reason)
        .reduce((total, row) => total + row.quantity, 0);
    return FILTER_REASONS.map((reason) => ({
      reason,
      last_24h: sum(day, reason),
      last_30d: sum(month, reason),
    }));
  }
}

function view(
  projectId: number,
  row: InboundFiltersRow | undefined,
  filtered: FilteredCount[],
): InboundFiltersView {
  const settings = inboundFilterSettingsOf(row);
  return {
    project_id: projectId,
    browser_extensions: settings.browserExtensions,
    localhost: settings.localhost,
    web_crawlers: settings.webCrawlers,
    legacy_browsers: [...settings.legacyBrowsers],
    releases: [...settings.releases],
    error_messages: [...settings.errorMessages],
    client_ips: [...settings.clientIps],
    updated_at: row ? row.updated_at.toISOString() : null,
    legacy_browser_choices: [...LEGACY_BROWSERS],
    filtered,
  };
}
