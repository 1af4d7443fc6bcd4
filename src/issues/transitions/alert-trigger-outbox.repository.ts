import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { AlertTrigger } from './alert-trigger';

/** An outbox row as stored. */
export interface OutboxRow {
  id: string;
  alert_type: AlertTrigger['alertType'];
  project_id: number;
  issue_id: number;
  occurred_at: Date;
}

/** The alert_trigger_outbox table: every statement on triggers waiting to be published is here. */
@Injectable()
export class AlertTriggerOutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the triggers in the caller's transaction; returns their ids, in the same order. */
  async insert(manager: EntityManager, triggers: AlertTrigger[]): Promise<string[]> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO alert_trigger_outbox (alert_type, project_id, issue_id, occurred_at)
       SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[])
       RETURNING id`,
      [
        triggers.map((trigger) => trigger.alertType),
        triggers.map((trigger) => trigger.projectId),
        triggers.map((trigger) => trigger.issueId),
        triggers.map((trigger) => trigger.occurredAt),
      ],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Up to `limit` rows written more than `graceMs` ago, oldest first, locked in the caller's
   * transaction; rows another sweep holds are skipped.
   */
  takeOverdue(manager: EntityManager, graceMs: number, limit: number): Promise<OutboxRow[]> {
    return manager.query(
      `SELECT id, alert_type, project_id, issue_id, occurred_at FROM alert_trigger_outbox
        WHERE created_at < now() - $1 * interval '1 millisecond'
        ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [graceMs, limit],
    );
  }

  /** Deletes the rows, in the caller's transaction when `manager` is given. */
  async delete(ids: string[], manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query('DELETE FROM alert_trigger_outbox WHERE id = ANY($1::bigint[])', [ids]);
  }
}
