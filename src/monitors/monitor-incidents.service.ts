import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IssueActivityRepository } from '../issues/issue-activity.repository';
import { IssuesRepository } from '../issues/issues.repository';
import { MonitorIssuesRepository } from '../issues/monitor-issues.repository';
import { monitorGroupingKey, monitorOfGroupingKey } from '../issues/monitor-issue-key';
import { AlertTriggerProducer, RecordedTriggers } from '../issues/transitions/alert-trigger.producer';
import { monitorFailureText } from './monitor-failure-text';
import type { MonitorFailure, MonitorKind, MonitorRef } from './monitor-ref';

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

/**
 * The issues monitors open: one per monitor and environment, of kind `cron` or `uptime`. The
 * caller counts consecutive failures and successes against its thresholds and calls this when one
 * is reached, in its own transaction, so that the monitor's state, the issue and the alert trigger
 * commit together. An issue opens (or reopens, when resolved) once per incident, with one
 * `monitor_failed` alert; further failures while it is open count on it; recovery resolves it with
 * one `monitor_recovered` alert. A muted issue counts failures and stays muted.
 */
@Injectable()
export class MonitorIncidentsService {
  private readonly logger = new Logger(MonitorIncidentsService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly issues: IssuesRepository,
    private readonly monitorIssues: MonitorIssuesRepository,
    private readonly activity: IssueActivityRepository,
    private readonly triggers: AlertTriggerProducer,
  ) {}

  /**
   * Records a failure that reached the threshold. A failure no later than the last one recorded
   * (a retried job, a late report) changes nothing, so that a call repeated after a crash is harmless.
   * Without `manager` it runs in a transaction of its own and publishes its alert after the commit.
   */
  async monitorFailed(
    ref: MonitorRef,
    failure: MonitorFailure,
    manager?: EntityManager,
  ): Promise<MonitorIncidentResult> {
    if (manager) return this.fail(manager, ref, failure);
    const result = await this.db.transaction((own) => this.fail(own, ref, failure));
    await this.publish(result);
    return result;
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

  /** The unresolved issue of each monitor and environment, keyed `${monitorId}:${environment}`. */
  async openIssueIds(
    projectId: number,
    kind: MonitorKind,
    monitorIds: number[],
  ): Promise<Map<string, number>> {
    const rows = await this.monitorIssues.findUnresolvedMonitorIssues(projectId, kind, monitorIds);
    const byMonitor = new Map<string, number>();
    for (const row of rows) {
      const monitor = monitorOfGroupingKey(row.groupingKey);
      if (monitor) byMonitor.set(`${monitor.monitor_id}:${monitor.environment}`, row.id);
    }
    return byMonitor;
  }

  private async fail(
    manager: EntityManager,
    ref: MonitorRef,
    failure: MonitorFailure,
  ): Promise<MonitorIncidentResult> {
    const key = monitorGroupingKey(ref.kind, ref.monitorId, ref.environment);
    let issue = await this.monitorIssues.lockMonitorIssue(manager, ref.projectId, key);
    if (!issue) {
      // No issue lock is held yet: the project's numbering lock comes first (see the lock order in
      // issues.repository.ts), then the issue another transaction may have opened meanwhile.
      const projects = await this.issues.lockProjectsForNumbering(manager, [ref.projectId]);
      if (!projects.has(ref.projectId)) return { issueId: null, opened: false, triggers: NONE };
      issue = await this.monitorIssues.lockMonitorIssue(manager, ref.projectId, key);
    }
    const entry = {
      kind: 'monitor_failed' as const,
      data: {
        reason: failure.reason,
        detail: failure.detail,
        at: failure.at.toISOString(),
        ...(failure.checkInId ? { check_in_id: failure.checkInId } : {}),
        ...(failure.httpStatus != null ? { http_status: failure.httpStatus } : {}),
      },
      by: null,
    };
    if (!issue) {
      const number = await this.issues.reserveNumbers(manager, ref.projectId, 1);
      const issueId = await this.monitorIssues.insertMonitorIssue(manager, {
        projectId: ref.projectId,
        groupingKey: key,
        number,
        kind: ref.kind,
        type: TITLES[ref.kind],
        message: `${ref.name} (${ref.environment})`,
        culprit: monitorFailureText(ref, failure),
        level: 'error',
        firstSeen: failure.at,
      });
      await this.activity.record(manager, [{ issueId, ...entry }]);
      this.logger.log(
        `monitor ${ref.kind}:${ref.monitorId} (${ref.environment}) failed: issue ${issueId} opened`,
      );
      return {
        issueId,
        opened: true,
        triggers: await this.trigger(manager, 'monitor_failed', ref, issueId, failure.at),
      };
    }
    if (failure.at.getTime() <= new Date(issue.lastSeen).getTime())
      return { issueId: issue.id, opened: false, triggers: NONE };
    const reopen = issue.state === 'resolved';
    await this.monitorIssues.addMonitorFailure(
      manager,
      issue.id,
      failure.at,
      reopen,
      monitorFailureText(ref, failure),
    );
    if (!reopen) return { issueId: issue.id, opened: false, triggers: NONE };
    await this.activity.record(manager, [{ issueId: issue.id, ...entry }]);
    this.logger.log(
      `monitor ${ref.kind}:${ref.monitorId} (${ref.environment}) failed: issue ${issue.id} reopened`,
    );
    return {
      issueId: issue.id,
      opened: true,
      triggers: await this.trigger(manager, 'monitor_failed', ref, issue.id, failure.at),
    };
  }

  private async recover(manager: EntityManager, ref: MonitorRef, at: Date): Promise<MonitorIncidentResult> {
    const key = monitorGroupingKey(ref.kind, ref.monitorId, ref.environment);
    const issue = await this.monitorIssues.lockMonitorIssue(manager, ref.projectId, key);
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
