import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MonitorIncidentsService } from '../incidents/monitor-incidents.service';
import type { MonitorFailure, MonitorIssueSummary, MonitorRef } from '../incidents/monitor-ref';

/** Names an uptime monitor to the incidents it opens (one issue per monitor and environment). */
export type UptimeIncidentRef = MonitorRef & { kind: 'uptime' };

export type UptimeFailure = MonitorFailure & { reason: 'down' | 'tls_expiring' };

/** What to do once the transaction that recorded an incident has committed (send its alerts). */
export type AfterCommit = () => Promise<void>;

/**
 * Where an uptime monitor's failures and recoveries go: the issues and alerts of monitors. Called
 * inside the transaction that records the check (`manager`), so that a check's outcome and its
 * incident commit together; what each call returns runs after the commit.
 */
export abstract class UptimeIncidents {
  abstract monitorFailed(
    ref: UptimeIncidentRef,
    failure: UptimeFailure,
    manager: EntityManager,
  ): Promise<AfterCommit>;
  abstract monitorRecovered(ref: UptimeIncidentRef, at: Date, manager: EntityManager): Promise<AfterCommit>;
  /** The issue of each monitor that has had one (open, or its last incident), by monitor id. */
  abstract monitorIssues(projectId: number, monitorIds: number[]): Promise<Map<number, MonitorIssueSummary>>;
}

/** The environment uptime incidents are filed under: monitors have none of their own. */
export const UPTIME_ENVIRONMENT = 'production';

/** Uptime incidents as monitor issues (`MonitorIncidentsService`): kind `uptime`, alerts after the commit. */
@Injectable()
export class MonitorUptimeIncidents extends UptimeIncidents {
  constructor(private readonly incidents: MonitorIncidentsService) {
    super();
  }

  async monitorFailed(
    ref: UptimeIncidentRef,
    failure: UptimeFailure,
    manager: EntityManager,
  ): Promise<AfterCommit> {
    const result = await this.incidents.monitorFailed(ref, failure, manager);
    return () => this.incidents.publish(result);
  }

  async monitorRecovered(ref: UptimeIncidentRef, at: Date, manager: EntityManager): Promise<AfterCommit> {
    const result = await this.incidents.monitorRecovered(ref, at, manager);
    return () => this.incidents.publish(result);
  }

  async monitorIssues(projectId: number, monitorIds: number[]): Promise<Map<number, MonitorIssueSummary>> {
    const issues = await this.incidents.monitorIssues(projectId, 'uptime', monitorIds);
    const byMonitor = new Map<number, MonitorIssueSummary>();
    for (const id of monitorIds) {
      const issue = issues.get(`${id}:${UPTIME_ENVIRONMENT}`);
      if (issue !== undefined) byMonitor.set(id, issue);
    }
    return byMonitor;
  }
}

export function incidentRef(monitor: { id: number; project_id: number; name: string }): UptimeIncidentRef {
  return {
    projectId: monitor.project_id,
    kind: 'uptime',
    monitorId: monitor.id,
    slug: monitor.name,
    name: monitor.name,
    environment: UPTIME_ENVIRONMENT,
  };
}
