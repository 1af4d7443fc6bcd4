import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A release a rule found in breach and has not seen recover yet. */
export interface OpenBreach {
  release: string;
  /** Names this breach in its notifications' idempotency keys. */
  breachId: string;
  breachedAt: Date;
}

/**
 * The release_health_alert_states table: one row per `release_health` rule and release in breach.
 * A release alerts when its row is inserted, and alerts again only after the row was deleted
 * (it recovered); the primary key lets one evaluation insert it, however many run at once.
 */
@Injectable()
export class ReleaseHealthAlertStatesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async openFor(ruleId: number): Promise<OpenBreach[]> {
    const rows: { release: string; breach_id: string; breached_at: Date }[] = await this.dataSource.query(
      'SELECT release, breach_id, breached_at FROM release_health_alert_states WHERE rule_id = $1',
      [ruleId],
    );
    return rows.map((row) => ({
      release: row.release,
      breachId: row.breach_id,
      breachedAt: new Date(row.breached_at),
    }));
  }

  /** True when this call opened the breach; false when it was already open. */
  async open(
    manager: EntityManager,
    ruleId: number,
    release: string,
    breachId: string,
    at: Date,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO release_health_alert_states (rule_id, release, breach_id, breached_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
      [ruleId, release, breachId, at],
    );
    return rows.length > 0;
  }

  /** The releases recovered: their next breach alerts again. */
  async close(ruleId: number, releases: string[]): Promise<void> {
    if (releases.length === 0) return;
    await this.dataSource.query(
      'DELETE FROM release_health_alert_states WHERE rule_id = $1 AND release = ANY($2)',
      [ruleId, releases],
    );
  }

  /** A rule whose conditions changed judges every release afresh. */
  async closeAll(ruleId: number): Promise<void> {
    await this.dataSource.query('DELETE FROM release_health_alert_states WHERE rule_id = $1', [ruleId]);
  }
}
