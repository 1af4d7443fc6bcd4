import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { IssueState } from './issue.entity';
import type { NewIssue } from './issues.repository';

/**
 * The rows of the issues monitors open (kind `cron` or `uptime`, one per monitor and environment,
 * see monitor-issue-key.ts): the one place besides IssuesRepository that writes the `issues` row,
 * taking the same locks in the same order (the lock order is in issues.repository.ts).
 */
@Injectable()
export class MonitorIssuesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A monitor's issue (see monitor-issue-key.ts), the survivor if it was merged, locked FOR NO KEY
   * UPDATE (lock order: issues, 4), or null.
   */
  async lockMonitorIssue(
    manager: EntityManager,
    projectId: number,
    groupingKey: string,
  ): Promise<{ id: number; state: IssueState; lastSeen: Date } | null> {
    const rows: { id: number; state: IssueState; lastSeen: Date }[] = await manager.query(
      `SELECT i.id, i.state, i.last_seen AS "lastSeen" FROM issues i
        WHERE i.id = (SELECT coalesce(k.merged_into_id, k.id) FROM issues k
                       WHERE k.project_id = $1 AND k.grouping_key = $2)
        FOR NO KEY UPDATE`,
      [projectId, groupingKey],
    );
    return rows[0] ?? null;
  }

  /** Inserts a monitor's open issue with its first failure counted (under the project's numbering lock). */
  async insertMonitorIssue(
    manager: EntityManager,
    issue: Omit<NewIssue, 'firstRelease' | 'lastRelease' | 'lastSeen'> & { kind: 'cron' | 'uptime' },
  ): Promise<number> {
    const [{ id }] = (await manager.query(
      `INSERT INTO issues (project_id, grouping_key, number, type, message, culprit, level, state, kind,
                           event_count, first_seen, last_seen)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, 1, $9, $9)
       RETURNING id`,
      [
        issue.projectId,
        issue.groupingKey,
        issue.number,
        issue.type,
        issue.message,
        issue.culprit,
        issue.level,
        issue.kind,
        issue.firstSeen,
      ],
    )) as { id: number }[];
    return id;
  }

  /**
   * Counts one more failure of a monitor's issue; `reopen` opens a resolved one again as a regression
   * (the same columns an event's regression sets, see addBatch).
   */
  async addMonitorFailure(
    manager: EntityManager,
    id: number,
    at: Date,
    reopen: boolean,
    culprit: string,
  ): Promise<void> {
    await manager.query(
      `UPDATE issues SET
         event_count = event_count + 1,
         culprit = $4,
         last_seen = GREATEST(last_seen, $2),
         state = CASE WHEN $3 THEN 'open' ELSE state END,
         last_regressed_at = CASE WHEN $3 THEN now() ELSE last_regressed_at END,
         regression_count = regression_count + CASE WHEN $3 THEN 1 ELSE 0 END,
         resolved_in = CASE WHEN $3 THEN NULL ELSE resolved_in END,
         resolved_above = CASE WHEN $3 THEN NULL ELSE resolved_above END
       WHERE id = $1`,
      [id, at, reopen, culprit],
    );
  }

  /** The unresolved issues of these monitors, by grouping key (see monitor-issue-key.ts). */
  async findUnresolvedMonitorIssues(
    projectId: number,
    kind: 'cron' | 'uptime',
    monitorIds: number[],
  ): Promise<{ id: number; groupingKey: string }[]> {
    if (monitorIds.length === 0) return [];
    const rows: { id: number; grouping_key: string }[] = await this.dataSource.query(
      `SELECT id, grouping_key FROM issues
        WHERE project_id = $1 AND kind = $2 AND state <> 'resolved' AND merged_into_id IS NULL
          AND grouping_key LIKE ANY($3::text[])`,
      [projectId, kind, monitorIds.map((id) => `monitor:${kind}:${id}:%`)],
    );
    return rows.map((row) => ({ id: row.id, groupingKey: row.grouping_key }));
  }
}
