import { Injectable, Logger } from '@nestjs/common';
import { RepeatedLog } from '../common/repeated-log';
import type { EntityManager } from 'typeorm';

/**
 * What cron monitors need of the monitor issues (src/monitors): open one when the failure threshold
 * is reached, resolve it when the recovery threshold is. The shapes are those of
 * MonitorIncidentsService, which is bound to MONITOR_INCIDENTS where it is available.
 */
export interface CronMonitorRef {
  projectId: number;
  kind: 'cron';
  monitorId: number;
  slug: string;
  name: string;
  environment: string;
}

export interface CronMonitorFailure {
  at: Date;
  reason: 'missed' | 'timeout' | 'error';
  detail: string;
  checkInId?: string;
}

export interface MonitorIncidents {
  monitorFailed(ref: CronMonitorRef, failure: CronMonitorFailure, manager?: EntityManager): Promise<unknown>;
  monitorRecovered(ref: CronMonitorRef, at: Date, manager?: EntityManager): Promise<unknown>;
  /** The open issue per `${monitorId}:${environment}`, for views. */
  openIssueIds?(projectId: number, kind: 'cron', monitorIds: number[]): Promise<Map<string, number>>;
}

export const MONITOR_INCIDENTS = Symbol('MONITOR_INCIDENTS');

/** Without the monitor issues: the thresholds are only logged. */
@Injectable()
export class LoggedMonitorIncidents implements MonitorIncidents {
  private readonly logger = new Logger('CronMonitors');
  /** After an outage every monitor may fail at once: a line a minute, not one per monitor. */
  private readonly failures = new RepeatedLog(this.logger, 60_000);

  monitorFailed(ref: CronMonitorRef, failure: CronMonitorFailure): Promise<unknown> {
    this.logger.warn(
      `monitor ${ref.slug} (${ref.environment}) of project ${ref.projectId} failed: ${failure.detail}`,
    );
    return Promise.resolve(undefined);
  }

  monitorRecovered(ref: CronMonitorRef): Promise<unknown> {
    this.logger.log(`monitor ${ref.slug} (${ref.environment}) of project ${ref.projectId} recovered`);
    return Promise.resolve(undefined);
  }
}
