import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { withDeadline } from '../../common/deadline';
import { RepeatedLog } from '../../common/repeated-log';
import { inboundFilterSettingsOf } from '../inbound-filter-settings';
import { InboundFiltersRepository } from '../inbound-filters.repository';
import { anyFilterOn, CompiledInboundFilters } from './inbound-filters';

/** Other api processes see a change within this time; the one that made it, at once. */
export const INBOUND_FILTERS_REFRESH_MS = 10_000;
const LOAD_DEADLINE_MS = 3_000;

/**
 * Every project's inbound filters, compiled, in memory: ingest asks it for each event without a
 * query. The snapshot is reloaded in the background; while PostgreSQL is unreachable the last one
 * is kept, and until the first load succeeds nothing is filtered (events are kept, never lost).
 */
@Injectable()
export class InboundFilterSnapshot implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InboundFilters');
  private readonly failureLog = new RepeatedLog(this.logger, 60_000);
  private filters = new Map<number, CompiledInboundFilters>();
  private loading: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly rows: InboundFiltersRepository) {}

  onApplicationBootstrap(): void {
    void this.reload();
    this.timer = setInterval(() => void this.reload(), INBOUND_FILTERS_REFRESH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The project's filters; undefined when none is on (the common case costs one map lookup). */
  forProject(projectId: number): CompiledInboundFilters | undefined {
    return this.filters.get(projectId);
  }

  /** Reads the rows again after a change made in this process; a load under way may predate it. */
  async refresh(): Promise<void> {
    await this.loading;
    await this.reload();
  }

  private reload(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    let rows;
    try {
      rows = await withDeadline(this.rows.all(), LOAD_DEADLINE_MS, 'no answer within 3 s');
    } catch (error) {
      this.failureLog.warn(
        'reload failed',
        `inbound filters not reloaded (${(error as Error).message}); the last ones stay`,
      );
      return;
    }
    const filters = new Map<number, CompiledInboundFilters>();
    for (const row of rows) {
      const settings = inboundFilterSettingsOf(row);
      if (!anyFilterOn(settings)) continue;
      try {
        filters.set(row.project_id, new CompiledInboundFilters(settings));
      } catch (error) {
        // The API refuses what does not compile; a row written otherwise filters nothing.
        this.failureLog.warn(
          `project ${row.project_id}`,
          `project ${row.project_id}: inbound filters not applied: ${(error as Error).message}`,
        );
      }
    }
    this.filters = filters;
  }
}
