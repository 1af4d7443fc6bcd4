import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Names an uptime monitor to the incidents it opens (one issue per monitor and environment). */
export interface UptimeIncidentRef {
  projectId: number;
  kind: 'uptime';
  monitorId: number;
  slug: string;
  name: string;
  environment: string;
}

export interface UptimeFailure {
  at: Date;
  reason: 'down' | 'tls_expiring';
  detail: string;
  httpStatus?: number | null;
}

/**
 * Where an uptime monitor's failures and recoveries go: the issues and alerts of monitors. Called
 * inside the transaction that records the check (`manager`), so that a check's outcome and its
 * incident commit together.
 */
export abstract class UptimeIncidents {
  abstract monitorFailed(
    ref: UptimeIncidentRef,
    failure: UptimeFailure,
    manager: EntityManager,
  ): Promise<void>;
  abstract monitorRecovered(ref: UptimeIncidentRef, at: Date, manager: EntityManager): Promise<void>;
  /** The open issue of each monitor, by monitor id. */
  abstract openIssueIds(projectId: number, monitorIds: number[]): Promise<Map<number, number>>;
}

/** Opens no issue: stands in until monitor issues are provided (the runner logs each transition). */
@Injectable()
export class NoUptimeIncidents extends UptimeIncidents {
  monitorFailed(): Promise<void> {
    return Promise.resolve();
  }

  monitorRecovered(): Promise<void> {
    return Promise.resolve();
  }

  openIssueIds(): Promise<Map<number, number>> {
    return Promise.resolve(new Map());
  }
}

/** The environment uptime incidents are filed under: monitors have none of their own. */
export const UPTIME_ENVIRONMENT = 'production';

export function incidentRef(monitor: { id: number; project_id: number; name: string }): UptimeIncidentRef {
  return {
    projectId: monitor.project_id,
    kind: 'uptime',
    monitorId: monitor.id,
    slug: String(monitor.id),
    name: monitor.name,
    environment: UPTIME_ENVIRONMENT,
  };
}
