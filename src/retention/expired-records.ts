import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Growing tables outside events and rollups that retention trims: alert history and sessions. */
@Injectable()
export class ExpiredRecords {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async deleteAlertHistory(before: Date, limit: number): Promise<number> {
    return this.deleteBatch(
      `DELETE FROM alert_history WHERE id = ANY(ARRAY(
         SELECT id FROM alert_history WHERE created_at < $1 AND status <> 'pending' LIMIT $2))`,
      [before, limit],
    );
  }

  async deleteExpiredSessions(now: Date, limit: number): Promise<number> {
    return this.deleteBatch(
      `DELETE FROM sessions WHERE token_hash = ANY(ARRAY(
         SELECT token_hash FROM sessions WHERE expires_at < $1 LIMIT $2))`,
      [now, limit],
    );
  }

  private async deleteBatch(sql: string, parameters: unknown[]): Promise<number> {
    const [, deleted] = (await this.dataSource.query(sql, parameters)) as [unknown, number];
    return deleted;
  }
}
