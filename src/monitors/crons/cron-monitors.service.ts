import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MonitorIncidentsService } from '../incidents/monitor-incidents.service';
import type { MonitorIssueSummary } from '../incidents/monitor-ref';
import { ConflictError, InvalidInputError, NotFoundError } from '../../common/domain-errors';
import { decodeKeyCursor, encodeKeyCursor, Page, toPage } from '../../common/pagination';
import { CONFIG_DEFAULTS, normaliseSlug } from './check-in-record';
import { CheckInRow, CheckInsRepository, CheckInStatus } from './check-ins.repository';
import {
  describeSchedule,
  MAX_MARGIN_MINUTES,
  MAX_RUNTIME_MINUTES,
  nextExpected,
  validMinutes,
  validSchedule,
  validThreshold,
  validTimezone,
} from './cron-schedule';
import {
  CronMonitorRow,
  CronMonitorSettings,
  CronMonitorsRepository,
  MonitorEnvironmentRow,
} from './cron-monitors.repository';
import type {
  CHECK_IN_STATUS_FILTERS,
  CreateCronMonitorDto,
  UpdateCronMonitorDto,
} from './dto/cron-monitor.dto';
import type { CheckInView, MonitorView } from './dto/cron-monitor.response';

type CheckInStatusFilter = (typeof CHECK_IN_STATUS_FILTERS)[number];
import { marginMs, scheduleOf, worstStatus } from './cron-state';

const DEFAULT_CHECK_IN_PAGE = 100;

/** The cron monitors API: monitors of a project, their settings, mute, check-ins. */
@Injectable()
export class CronMonitorsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly monitors: CronMonitorsRepository,
    private readonly checkIns: CheckInsRepository,
    private readonly incidents: MonitorIncidentsService,
  ) {}

  async list(projectId: number): Promise<MonitorView[]> {
    return this.views(await this.monitors.list(projectId));
  }

  async get(projectId: number, slug: string): Promise<MonitorView> {
    return (await this.views([await this.findOrFail(projectId, slug)]))[0];
  }

  async findOrFail(projectId: number, slug: string): Promise<CronMonitorRow> {
    const monitor = await this.monitors.findBySlug(projectId, slug.toLowerCase());
    if (!monitor) throw new NotFoundError(`no monitor "${slug}" in project ${projectId}`);
    return monitor;
  }

  async create(projectId: number, body: CreateCronMonitorDto): Promise<MonitorView> {
    const slug = normaliseSlug(body.slug ?? body.name);
    if (slug === '')
      throw new InvalidInputError('the slug (or the name it is made from) has no letters or digits');
    const settings: CronMonitorSettings = {
      name: body.name.trim(),
      ...scheduleColumns(body.schedule),
      timezone: body.timezone === undefined ? CONFIG_DEFAULTS.timezone : validTimezone(body.timezone),
      checkin_margin:
        minutes('checkin_margin', body.checkin_margin, 0, MAX_MARGIN_MINUTES) ??
        CONFIG_DEFAULTS.checkin_margin,
      max_runtime:
        minutes('max_runtime', body.max_runtime, 1, MAX_RUNTIME_MINUTES) ?? CONFIG_DEFAULTS.max_runtime,
      failure_issue_threshold:
        threshold('failure_issue_threshold', body.failure_issue_threshold) ??
        CONFIG_DEFAULTS.failure_issue_threshold,
      recovery_threshold:
        threshold('recovery_threshold', body.recovery_threshold) ?? CONFIG_DEFAULTS.recovery_threshold,
      muted: false,
    };
    const monitor = await this.monitors.insert(projectId, slug, settings);
    if (!monitor) throw new ConflictError(`project ${projectId} has a monitor "${slug}" already`);
    return (await this.views([monitor]))[0];
  }

  async update(projectId: number, slug: string, body: UpdateCronMonitorDto): Promise<MonitorView> {
    const current = await this.findOrFail(projectId, slug);
    const change: Partial<CronMonitorSettings> = {
      name: body.name?.trim(),
      ...(body.schedule === undefined ? {} : scheduleColumns(body.schedule)),
      timezone: body.timezone === undefined ? undefined : validTimezone(body.timezone),
      checkin_margin: minutes('checkin_margin', body.checkin_margin, 0, MAX_MARGIN_MINUTES),
      max_runtime: minutes('max_runtime', body.max_runtime, 1, MAX_RUNTIME_MINUTES),
      failure_issue_threshold: threshold('failure_issue_threshold', body.failure_issue_threshold),
      recovery_threshold: threshold('recovery_threshold', body.recovery_threshold),
      muted: body.muted,
    };
    const updated = await this.dataSource.transaction(async (manager) => {
      const monitor = (await this.monitors.update(current.id, change)) ?? current;
      const timing =
        body.schedule !== undefined || body.timezone !== undefined || body.checkin_margin !== undefined;
      if (timing) {
        // The next expected time follows the new schedule from the last check-in on.
        for (const env of await this.monitors.environmentsOf(manager, monitor.id)) {
          if (!env.next_expected_at) continue;
          const next = nextExpected(
            scheduleOf(monitor),
            monitor.timezone,
            env.last_check_in_at ?? new Date(),
          );
          await this.monitors.updateEnvironment(manager, env.id, {
            next_expected_at: next,
            deadline_at: new Date(next.getTime() + marginMs(monitor)),
          });
        }
      }
      return monitor;
    });
    return (await this.views([updated]))[0];
  }

  async delete(projectId: number, slug: string): Promise<CronMonitorRow> {
    const monitor = await this.findOrFail(projectId, slug);
    await this.monitors.delete(monitor.id);
    return monitor;
  }

  async checkInPage(
    projectId: number,
    slug: string,
    query: { environment?: string; status?: CheckInStatusFilter; cursor?: string; limit?: number },
  ): Promise<Page<CheckInView>> {
    const monitor = await this.findOrFail(projectId, slug);
    const limit = query.limit ?? DEFAULT_CHECK_IN_PAGE;
    const after = decodeKeyCursor(query.cursor, 'uuid');
    const statuses: CheckInStatus[] | undefined =
      query.status === undefined
        ? undefined
        : query.status === 'failed'
          ? ['error', 'missed', 'timeout']
          : [query.status];
    const rows = await this.checkIns.list(
      monitor.id,
      query.environment || undefined,
      after,
      limit + 1,
      statuses,
    );
    return toPage(rows, limit, (row) => encodeKeyCursor({ at: row.created_at, id: row.id }), checkInView);
  }

  private async views(monitors: CronMonitorRow[]): Promise<MonitorView[]> {
    const ids = monitors.map((monitor) => monitor.id);
    const environments = await this.monitors.environments(ids);
    const issues = await this.monitorIssues(monitors);
    const byMonitor = new Map<number, MonitorEnvironmentRow[]>();
    for (const env of environments) {
      const list = byMonitor.get(env.monitor_id) ?? [];
      list.push(env);
      byMonitor.set(env.monitor_id, list);
    }
    return monitors.map((monitor) => monitorView(monitor, byMonitor.get(monitor.id) ?? [], issues));
  }

  private async monitorIssues(monitors: CronMonitorRow[]): Promise<Map<string, MonitorIssueSummary>> {
    if (monitors.length === 0) return new Map();
    return this.incidents.monitorIssues(
      monitors[0].project_id,
      'cron',
      monitors.map((monitor) => monitor.id),
    );
  }
}

function scheduleColumns(
  raw: unknown,
): Pick<CronMonitorSettings, 'schedule_type' | 'schedule_value' | 'schedule_unit'> {
  const schedule = validSchedule(raw);
  return {
    schedule_type: schedule.type,
    schedule_value: String(schedule.value),
    schedule_unit: schedule.type === 'interval' ? schedule.unit : null,
  };
}

function minutes(field: string, value: number | undefined, min: number, max: number): number | undefined {
  return value === undefined ? undefined : validMinutes(field, value, min, max);
}

function threshold(field: string, value: number | undefined): number | undefined {
  return value === undefined ? undefined : validThreshold(field, value);
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

function monitorView(
  monitor: CronMonitorRow,
  environments: MonitorEnvironmentRow[],
  issues: Map<string, MonitorIssueSummary>,
): MonitorView {
  const schedule = scheduleOf(monitor);
  const latest = (values: (Date | null)[], pick: (a: number, b: number) => number) => {
    const times = values.filter((value): value is Date => value !== null).map((value) => value.getTime());
    return times.length === 0 ? null : new Date(times.reduce((a, b) => pick(a, b))).toISOString();
  };
  return {
    id: monitor.id,
    slug: monitor.slug,
    name: monitor.name,
    project_id: monitor.project_id,
    schedule: schedule.type === 'crontab' ? { type: 'crontab', value: schedule.value } : { ...schedule },
    schedule_description: describeSchedule(schedule),
    timezone: monitor.timezone,
    checkin_margin: monitor.checkin_margin,
    max_runtime: monitor.max_runtime,
    failure_issue_threshold: monitor.failure_issue_threshold,
    recovery_threshold: monitor.recovery_threshold,
    muted: monitor.muted,
    status: worstStatus(environments.map((env) => env.status)),
    next_expected_at: latest(
      environments.map((env) => env.next_expected_at),
      Math.min,
    ),
    last_check_in_at: latest(
      environments.map((env) => env.last_check_in_at),
      Math.max,
    ),
    created_at: monitor.created_at.toISOString(),
    environments: environments.map((env) => {
      const issue = issues.get(`${monitor.id}:${env.environment}`) ?? null;
      return {
        environment: env.environment,
        status: env.status,
        last_check_in_at: iso(env.last_check_in_at),
        next_expected_at: iso(env.next_expected_at),
        issue_id: issue !== null && issue.state !== 'resolved' ? issue.id : null,
        issue,
        consecutive_failures: env.consecutive_failures,
      };
    }),
  };
}

function checkInView(row: CheckInRow): CheckInView {
  return {
    id: row.id,
    environment: row.environment,
    status: row.status,
    duration_ms: row.duration_ms,
    release: row.release,
    expected_at: iso(row.expected_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
