import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IssueActivityRepository } from '../../issues/issue-activity.repository';
import { IssueSearchRepository } from '../../issues/issue-search.repository';
import { IssueLockedForBatch, IssuesRepository } from '../../issues/issues.repository';
import { shortId } from '../../issues/issue-view';
import { monitorGroupingKey, monitorOfGroupingKey } from '../../issues/monitor-issue-key';
import { AlertTriggerProducer, RecordedTriggers } from '../../issues/transitions/alert-trigger.producer';
import { monitorFailureText } from './monitor-failure-text';
import type { MonitorFailure, MonitorIssueSummary, MonitorKind, MonitorRef } from './monitor-ref';

export interface MonitorIncidentResult {
  /** The monitor's issue; null when its project is gone. */
  issueId: number | null;
  /** Whether this call opened the issue, or reopened it: what alerts `monitor_failed`. */
  opened: boolean;
  /** The alert triggers written in the transaction: `publish` them once it has committed. */
  triggers: RecordedTriggers;
}

const NONE: RecordedTriggers = { ids: [], triggers: [] };

const TITLES: Record<MonitorKind, string> = { cron: 'Cron failure', uptime: 'Downtime' };

/** A failure to record, of one monitor in one environment. */
export interface MonitorFailureEntry {
  ref: MonitorRef;
  failure: MonitorFailure;
}

/**
 * The issues monitors open: one per monitor and environment, of kind `cron` or `uptime`. The
 * caller counts consecutive failures and successes against its thresholds (monitor-thresholds.ts)
 * and calls this with what a step did, in its own transaction, so that the monitor's state, the
 * issue and the alert trigger commit together. An issue opens (or reopens, when resolved) once per
 * incident, with one `monitor_failed` alert; further failures while it is open count on it;
 * recovery resolves it with one `monitor_recovered` alert. A muted issue counts failures and stays
 * muted.
 *
 * The issues are written through IssuesRepository's statements, in its lock order (see
 * issues.repository.ts): after the monitor's own rows, the numbering lock of the projects whose
 * issue is created, then every issue of the transaction at once, in id order.
 */
@Injectable()
export class MonitorIncidentsService {
  private readonly logger = new Logger(MonitorIncidentsService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly issues: IssuesRepository,
    private readonly search: IssueSearchRepository,
    private readonly activity: IssueActivityRepository,
    private readonly triggers: AlertTriggerProducer,
  ) {}

  /**
   * Records a failure: it opens the issue, reopens it, or counts on it. A failure no later than the
   * last one recorded (a retried job, a late report) changes nothing, so that a call repeated after
   * a crash is harmless. Without `manager` it runs in a transaction of its own and publishes its
   * alert after the commit.
   */
  async monitorFailed(
    ref: MonitorRef,
    failure: MonitorFailure,
    manager?: EntityManager,
  ): Promise<MonitorIncidentResult> {
    if (manager) return (await this.monitorsFailed(manager, [{ ref, failure }]))[0];
    const [result] = await this.db.transaction((own) => this.monitorsFailed(own, [{ ref, failure }]));
    await this.publish(result);
    return result;
  }

  /**
   * Records the failures of several monitors (or environments) in the caller's transaction, taking
   * the issues' locks in the lock order whatever the order of `entries`; one result per entry.
   */
  async monitorsFailed(
    manager: EntityManager,
    entries: MonitorFailureEntry[],
  ): Promise<MonitorIncidentResult[]> {
    if (entries.length === 0) return [];
    const issueIds = await this.issueIdsByKey(
      manager,
      entries.map((entry) => entry.ref),
    );
    const missing = entries.filter((entry) => !issueIds.has(issueKey(entry.ref)));
    let liveProjects: Set<number> | undefined;
    if (missing.length > 0) {
      // Before any issue lock (lock order 1, then 4); then the issues another transaction may have
      // opened before we had the lock.
      const projectIds = [...new Set(missing.map((entry) => entry.ref.projectId))].sort((a, b) => a - b);
      liveProjects = await this.issues.lockProjectsForNumbering(manager, projectIds);
      const meanwhile = await this.issueIdsByKey(
        manager,
        missing.map((entry) => entry.ref),
      );
      for (const [key, id] of meanwhile) issueIds.set(key, id);
    }
    const ids = [...new Set(issueIds.values())].sort((a, b) => a - b);
    const locked = new Map(
      (ids.length > 0 ? await this.issues.lockForBatch(manager, ids) : []).map((row) => [row.id, row]),
    );
    const results: MonitorIncidentResult[] = [];
    for (const entry of entries) {
      const key = issueKey(entry.ref);
      const issue = locked.get(issueIds.get(key) ?? -1);
      if (issue) {
        results.push(await this.failOn(manager, issue, entry));
      } else if (liveProjects?.has(entry.ref.projectId)) {
        const created = await this.open(manager, entry);
        issueIds.set(key, created.id);
        locked.set(created.id, created);
        results.push({
          issueId: created.id,
          opened: true,
          triggers: await this.trigger(
            manager,
            'monitor_failed',
            entry.ref,
            created.id,
            entry.failure.since ?? entry.failure.at,
          ),
        });
      } else {
        results.push({ issueId: null, opened: false, triggers: NONE });
      }
    }
    return results;
  }

  /** The recovery threshold was reached: resolves the open issue, if any, and alerts `monitor_recovered`. */
  async monitorRecovered(ref: MonitorRef, at: Date, manager?: EntityManager): Promise<MonitorIncidentResult> {
    if (manager) return this.recover(manager, ref, at);
    const result = await this.db.transaction((own) => this.recover(own, ref, at));
    await this.publish(result);
    return result;
  }

  /** After the caller's commit: the alerts go out now rather than at the outbox's next sweep. */
  async publish(result: Pick<MonitorIncidentResult, 'triggers'>): Promise<void> {
    await this.triggers.publish(result.triggers);
  }

  /** The issue of each monitor and environment that has had one, in any state, by `<monitor id>:<environment>`. */
  async monitorIssues(
    projectId: number,
    kind: MonitorKind,
    monitorIds: number[],
  ): Promise<Map<string, MonitorIssueSummary>> {
    const rows = await this.search.monitorIssues(projectId, kind, monitorIds);
    const byMonitor = new Map<string, MonitorIssueSummary>();
    for (const row of rows) {
      const monitor = monitorOfGroupingKey(row.groupingKey);
      if (monitor) {
        byMonitor.set(`${monitor.monitor_id}:${monitor.environment}`, {
          id: row.id,
          short_id: shortId(row.slug, row.number),
          state: row.state,
        });
      }
    }
    return byMonitor;
  }

  /** The issue (the survivor, for a merged one) of each monitor that has one, keyed by project and grouping key. */
  private async issueIdsByKey(manager: EntityManager, refs: MonitorRef[]): Promise<Map<string, number>> {
    const found = await this.issues.findByGroupingKeys(
      manager,
      refs.map((ref) => ({ projectId: ref.projectId, key: groupingKeyOf(ref) })),
    );
    return new Map(found.map((row) => [`${row.projectId}\n${row.groupingKey}`, row.id]));
  }

  /** A new issue, numbered under the project's lock, with its first failure counted. */
  private async open(
    manager: EntityManager,
    { ref, failure }: MonitorFailureEntry,
  ): Promise<IssueLockedForBatch> {
    const number = await this.issues.reserveNumbers(manager, ref.projectId, 1);
    const [{ id }] = await this.issues.insertNew(manager, [
      {
        projectId: ref.projectId,
        groupingKey: groupingKeyOf(ref),
        number,
        kind: ref.kind,
        type: TITLES[ref.kind],
        message: `${ref.name} (${ref.environment})`,
        culprit: monitorFailureText(ref, failure),
        level: 'error',
        firstSeen: failure.since ?? failure.at,
        lastSeen: failure.since ?? failure.at,
        firstRelease: null,
        lastRelease: null,
      },
    ]);
    await this.count(manager, id, { ref, failure }, null);
    await this.activity.record(manager, [{ issueId: id, ...this.failedEntry(failure) }]);
    this.logger.log(`monitor ${ref.kind}:${ref.monitorId} (${ref.environment}) failed: issue ${id} opened`);
    return {
      id,
      projectId: ref.projectId,
      state: 'open',
      eventCount: 1,
      resolvedIn: null,
      resolvedAbove: null,
      muteUntil: null,
      muteUntilCount: null,
      mutedEventCount: null,
      mergedIntoId: null,
      lastSeen: failure.at,
    };
  }

  /** A failure of a monitor whose issue exists: counted on it, reopening it when resolved. */
  private async failOn(
    manager: EntityManager,
    issue: IssueLockedForBatch,
    { ref, failure }: MonitorFailureEntry,
  ): Promise<MonitorIncidentResult> {
    if (failure.at.getTime() <= new Date(issue.lastSeen).getTime())
      return { issueId: issue.id, opened: false, triggers: NONE };
    const reopen = issue.state === 'resolved';
    await this.count(manager, issue.id, { ref, failure }, reopen ? 'regressed' : null);
    issue.lastSeen = failure.at;
    if (!reopen) return { issueId: issue.id, opened: false, triggers: NONE };
    issue.state = 'open';
    await this.activity.record(manager, [{ issueId: issue.id, ...this.failedEntry(failure) }]);
    this.logger.log(
      `monitor ${ref.kind}:${ref.monitorId} (${ref.environment}) failed: issue ${issue.id} reopened`,
    );
    return {
      issueId: issue.id,
      opened: true,
      triggers: await this.trigger(manager, 'monitor_failed', ref, issue.id, failure.since ?? failure.at),
    };
  }

  /** Counts the failure on the issue (the digest's batch statement): count, last seen, culprit. */
  private async count(
    manager: EntityManager,
    id: number,
    { ref, failure }: MonitorFailureEntry,
    change: 'regressed' | null,
  ): Promise<void> {
    await this.issues.addBatch(manager, [
      {
        id,
        added: failure.count ?? 1,
        first: failure.since ?? failure.at,
        last: failure.at,
        lastRelease: null,
        change,
        culprit: monitorFailureText(ref, failure),
      },
    ]);
  }

  private failedEntry(failure: MonitorFailure) {
    return {
      kind: 'monitor_failed' as const,
      data: {
        reason: failure.reason,
        detail: failure.detail,
        at: (failure.since ?? failure.at).toISOString(),
        ...(failure.checkInId ? { check_in_id: failure.checkInId } : {}),
        ...(failure.httpStatus != null ? { http_status: failure.httpStatus } : {}),
      },
      by: null,
    };
  }

  private async recover(manager: EntityManager, ref: MonitorRef, at: Date): Promise<MonitorIncidentResult> {
    const found = (await this.issueIdsByKey(manager, [ref])).get(issueKey(ref));
    const [issue] = found === undefined ? [] : await this.issues.lockForBatch(manager, [found]);
    if (!issue || issue.state === 'resolved')
      return { issueId: issue?.id ?? null, opened: false, triggers: NONE };
    await this.issues.setState(
      manager,
      [issue.id],
      {
        state: 'resolved',
        resolvedIn: null,
        resolvedAbove: null,
        muteUntil: null,
        muteUntilCount: null,
        muteUntilUsers: null,
      },
      at,
    );
    await this.activity.record(manager, [
      { issueId: issue.id, kind: 'monitor_recovered', data: { at: at.toISOString() }, by: null },
    ]);
    this.logger.log(
      `monitor ${ref.kind}:${ref.monitorId} (${ref.environment}) recovered: issue ${issue.id} resolved`,
    );
    return {
      issueId: issue.id,
      opened: false,
      triggers: await this.trigger(manager, 'monitor_recovered', ref, issue.id, at),
    };
  }

  private trigger(
    manager: EntityManager,
    alertType: 'monitor_failed' | 'monitor_recovered',
    ref: MonitorRef,
    issueId: number,
    at: Date,
  ): Promise<RecordedTriggers> {
    return this.triggers.record(manager, [
      { alertType, projectId: ref.projectId, issueId, occurredAt: at.toISOString() },
    ]);
  }
}

function groupingKeyOf(ref: MonitorRef): string {
  return monitorGroupingKey(ref.kind, ref.monitorId, ref.environment);
}

/** A monitor's issue among those of several projects. */
function issueKey(ref: MonitorRef): string {
  return `${ref.projectId}\n${groupingKeyOf(ref)}`;
}
