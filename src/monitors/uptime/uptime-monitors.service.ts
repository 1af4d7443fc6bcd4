import { Injectable } from '@nestjs/common';
import { InvalidInputError, NotFoundError } from '../../common/domain-errors';
import { resolvesToRefused } from '../../common/outbound-address';
import { maskHeaderValues } from '../../common/secret-mask';
import { AppConfig } from '../../config/app-config';
import type { CheckPeriod, CreateUptimeMonitorDto, UpdateUptimeMonitorDto } from './dto/uptime-monitor.dto';
import type {
  FailedCheckView,
  UptimeCheckView,
  UptimeMonitorView,
  UptimePercents,
} from './dto/uptime-monitor.response';
import { UptimeChecksRepository, CheckCounts } from './uptime-checks.repository';
import { UptimeClock } from './uptime-clock';
import {
  maskBody,
  rejectMaskedHeaders,
  restoreMaskedBody,
  restoreMaskedHeaders,
} from './uptime-header-secrets';
import { UptimeIncidents } from './uptime-incidents';
import type { MonitorIssueSummary } from '../incidents/monitor-ref';
import { checkSettings, DEFAULT_SETTINGS, UptimeSettings } from './uptime-monitor-rules';
import { UptimeMonitorRow, UptimeMonitorsRepository } from './uptime-monitors.repository';
import { uptimePercent } from './uptime-percent';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * Each period's chart: fixed buckets, the last one holding now, so that the chart spans the period
 * whatever the interval (24 h from the raw checks, longer periods from the hourly totals).
 */
const SERIES_BUCKETS: Record<CheckPeriod, { minutes: number; count: number }> = {
  '24h': { minutes: 30, count: 48 },
  '7d': { minutes: 60, count: 168 },
  '30d': { minutes: 360, count: 120 },
};
/** Failed checks listed at most, newest first. */
const FAILURES_LISTED = 100;
const PERIOD_DAYS: Record<CheckPeriod, number> = { '24h': 1, '7d': 7, '30d': 30 };
/** Hours of the response-time trend every monitor view carries. */
const TREND_HOURS = 24;

/** Uptime monitors of a project: settings, views with their uptime figures, the series. */
@Injectable()
export class UptimeMonitorsService {
  constructor(
    private readonly monitors: UptimeMonitorsRepository,
    private readonly checks: UptimeChecksRepository,
    private readonly clock: UptimeClock,
    private readonly incidents: UptimeIncidents,
    private readonly config: AppConfig,
  ) {}

  async list(projectId: number): Promise<UptimeMonitorView[]> {
    return this.views(projectId, await this.monitors.list(projectId));
  }

  async get(projectId: number, id: number): Promise<UptimeMonitorView> {
    return (await this.views(projectId, [await this.findOrFail(projectId, id)]))[0];
  }

  async create(projectId: number, body: CreateUptimeMonitorDto): Promise<UptimeMonitorView> {
    rejectMaskedHeaders(body.headers, body.body);
    const settings = await this.checked(merge({ ...DEFAULT_SETTINGS, name: body.name, url: body.url }, body));
    // Due at once: a new monitor shows a first result within a tick.
    const row = await this.monitors.insert(projectId, settings, this.clock.now());
    return this.get(projectId, row.id);
  }

  async update(projectId: number, id: number, body: UpdateUptimeMonitorDto): Promise<UptimeMonitorView> {
    const current = await this.findOrFail(projectId, id);
    const url = body.url ?? current.url;
    const headers = restoreMaskedHeaders(body.headers, current.headers, url, current.url);
    const requestBody = restoreMaskedBody(body.body, current.body, url, current.url);
    const settings = await this.checked(
      merge(settingsOf(current), { ...body, headers: headers as Record<string, string>, body: requestBody }),
    );
    const newUrl = settings.url !== current.url;
    const newInterval = settings.intervalSeconds !== current.interval_seconds;
    const nextDueAt = newUrl || newInterval ? this.clock.now() : null;
    if (!(await this.monitors.update(projectId, id, settings, nextDueAt, newUrl))) {
      throw new NotFoundError('uptime monitor not found');
    }
    return this.get(projectId, id);
  }

  async remove(projectId: number, id: number): Promise<void> {
    if (!(await this.monitors.delete(projectId, id))) throw new NotFoundError('uptime monitor not found');
  }

  async series(projectId: number, id: number, period: CheckPeriod): Promise<UptimeCheckView[]> {
    await this.findOrFail(projectId, id);
    const { minutes, count } = SERIES_BUCKETS[period];
    const size = minutes * 60_000;
    const from = new Date(Math.floor(this.clock.now().getTime() / size) * size - (count - 1) * size);
    const points =
      period === '24h'
        ? await this.checks.rawBuckets(id, from, minutes, count)
        : await this.checks.hourlyBuckets(id, from, minutes / 60, count);
    return points.map((point) => ({ ...point, t: new Date(point.t).toISOString() }));
  }

  /**
   * The period's failed checks, newest first: each at its own time while raw checks are kept
   * (UPTIME_CHECK_RETENTION_HOURS), and before that, the hours that had failures.
   */
  async failures(projectId: number, id: number, period: CheckPeriod): Promise<FailedCheckView[]> {
    await this.findOrFail(projectId, id);
    const now = this.clock.now().getTime();
    const from = now - PERIOD_DAYS[period] * DAY_MS;
    const keptFrom = now - this.config.UPTIME_CHECK_RETENTION_HOURS * HOUR_MS;
    // Past the raw checks, on an hour, so that no hour is both listed check by check and as a total.
    const rawFrom = from >= keptFrom ? from : Math.ceil(keptFrom / HOUR_MS) * HOUR_MS;
    const raw = await this.checks.rawFailures(id, new Date(rawFrom), FAILURES_LISTED);
    const hourly =
      rawFrom > from && raw.length < FAILURES_LISTED
        ? await this.checks.hourlyFailures(
            id,
            new Date(from),
            new Date(rawFrom),
            FAILURES_LISTED - raw.length,
          )
        : [];
    return [...raw, ...hourly].map((row) => ({
      ...row,
      at: new Date(row.at).toISOString(),
      until: row.until === null ? null : new Date(row.until).toISOString(),
    }));
  }

  /** Uptime over 24 h (raw checks, exact), 7 and 30 days (hourly totals, from the window's first hour). */
  async uptimeOf(monitorIds: number[]): Promise<Map<number, UptimePercents>> {
    const now = this.clock.now();
    const ago = (days: number) => new Date(now.getTime() - days * DAY_MS);
    const [day, week, month] = await Promise.all([
      this.checks.countsRaw(monitorIds, ago(1), now),
      this.checks.countsHourly(monitorIds, ago(7)),
      this.checks.countsHourly(monitorIds, ago(30)),
    ]);
    const percentOf = (rows: CheckCounts[], id: number) => {
      const row = rows.find((entry) => entry.monitor_id === id);
      return row ? uptimePercent(row.ok, row.checks) : null;
    };
    return new Map(
      monitorIds.map((id) => [
        id,
        { '24h': percentOf(day, id), '7d': percentOf(week, id), '30d': percentOf(month, id) },
      ]),
    );
  }

  private async findOrFail(projectId: number, id: number): Promise<UptimeMonitorRow> {
    const row = await this.monitors.find(projectId, id);
    if (!row) throw new NotFoundError('uptime monitor not found');
    return row;
  }

  /** The rules of the settings, then the destination: a private address is refused unless allowed. */
  private async checked(settings: UptimeSettings): Promise<UptimeSettings> {
    const valid = checkSettings(settings);
    if (!this.config.UPTIME_ALLOW_PRIVATE_NETWORKS) {
      const host = new URL(valid.url).hostname;
      const refused = await resolvesToRefused(host);
      if (refused) {
        // The kind of address, never the address: a name's answer is not for every member to see.
        const what = refused.resolved ? `url: ${host} resolves to` : 'url is';
        throw new InvalidInputError(
          `${what} a ${refused.reason} address, which uptime checks may not reach (UPTIME_ALLOW_PRIVATE_NETWORKS)`,
        );
      }
    }
    return valid;
  }

  private async views(projectId: number, rows: UptimeMonitorRow[]): Promise<UptimeMonitorView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [uptime, issues, trends] = await Promise.all([
      this.uptimeOf(ids),
      this.incidents.monitorIssues(projectId, ids),
      this.responseTrends(ids),
    ]);
    return rows.map((row) => ({
      ...toView(row, uptime.get(row.id)!, issues.get(row.id) ?? null),
      response_ms_24h: trends.get(row.id) ?? Array<null>(TREND_HOURS).fill(null),
    }));
  }

  /**
   * Each monitor's mean response time in each of the last 24 UTC hours, the current one last (null
   * for an hour without a timed check): one query for a whole list, for its sparklines.
   */
  private async responseTrends(monitorIds: number[]): Promise<Map<number, (number | null)[]>> {
    const thisHour = Math.floor(this.clock.now().getTime() / HOUR_MS) * HOUR_MS;
    const firstHour = thisHour - (TREND_HOURS - 1) * HOUR_MS;
    const trends = new Map<number, (number | null)[]>();
    for (const row of await this.checks.hourlyResponseTimes(monitorIds, new Date(firstHour))) {
      const slot = Math.round((new Date(row.t).getTime() - firstHour) / HOUR_MS);
      if (slot < 0 || slot >= TREND_HOURS) continue;
      const trend = trends.get(row.monitor_id) ?? Array<number | null>(TREND_HOURS).fill(null);
      trend[slot] = row.response_ms;
      trends.set(row.monitor_id, trend);
    }
    return trends;
  }
}

function settingsOf(row: UptimeMonitorRow): UptimeSettings {
  return {
    name: row.name,
    url: row.url,
    method: row.method,
    headers: row.headers,
    body: row.body,
    expectedStatusMin: row.expected_status_min,
    expectedStatusMax: row.expected_status_max,
    bodyContains: row.body_contains,
    intervalSeconds: row.interval_seconds,
    timeoutSeconds: row.timeout_seconds,
    tlsExpiryDays: row.tls_expiry_days,
    failureThreshold: row.failure_threshold,
    recoveryThreshold: row.recovery_threshold,
    muted: row.muted,
  };
}

function merge(base: UptimeSettings, body: UpdateUptimeMonitorDto): UptimeSettings {
  return {
    name: body.name ?? base.name,
    url: body.url ?? base.url,
    method: body.method ?? base.method,
    headers: body.headers ?? base.headers,
    body: body.body !== undefined ? body.body : base.body,
    expectedStatusMin: body.expected_status?.min ?? base.expectedStatusMin,
    expectedStatusMax: body.expected_status?.max ?? base.expectedStatusMax,
    bodyContains: body.body_contains !== undefined ? body.body_contains : base.bodyContains,
    intervalSeconds: body.interval_seconds ?? base.intervalSeconds,
    timeoutSeconds: body.timeout_seconds ?? base.timeoutSeconds,
    tlsExpiryDays: body.tls_expiry_days ?? base.tlsExpiryDays,
    failureThreshold: body.failure_threshold ?? base.failureThreshold,
    recoveryThreshold: body.recovery_threshold ?? base.recoveryThreshold,
    muted: body.muted ?? base.muted,
  };
}

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

function toView(
  row: UptimeMonitorRow,
  uptime: UptimePercents,
  issue: MonitorIssueSummary | null,
): Omit<UptimeMonitorView, 'response_ms_24h'> {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    url: row.url,
    method: row.method,
    // Write-only: any header may carry a credential, and every reader of the project sees this.
    headers: maskHeaderValues(row.headers),
    // Write-only as well: a body may carry a token or a password.
    body: maskBody(row.body),
    expected_status: { min: row.expected_status_min, max: row.expected_status_max },
    body_contains: row.body_contains,
    interval_seconds: row.interval_seconds,
    timeout_seconds: row.timeout_seconds,
    tls_expiry_days: row.tls_expiry_days,
    failure_threshold: row.failure_threshold,
    recovery_threshold: row.recovery_threshold,
    muted: row.muted,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    last_checked_at: iso(row.last_checked_at),
    last_response_ms: row.last_response_ms,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_check_at: iso(row.next_due_at)!,
    tls_expires_at: iso(row.tls_expires_at),
    issue_id: issue !== null && issue.state !== 'resolved' ? issue.id : null,
    issue,
    uptime,
    created_at: iso(row.created_at)!,
  };
}
