import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { RowDeletion } from '../events/event-partitions';

/**
 * The `issues` rows' writes that take issues, or events out of them, away: a user's deletion (its
 * one issue FOR UPDATE), retention's deletion of issues without events, and erasing a person's
 * data (the issues locked like a digest batch's). The lock order is in issues.repository.ts.
 */
@Injectable()
export class IssueRemovalRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Locks the issue to delete it; false when it does not exist. */
  async lockForDeletion(manager: EntityManager, id: number): Promise<boolean> {
    const locked: unknown[] = await manager.query('SELECT id FROM issues WHERE id = $1 FOR UPDATE', [id]);
    return locked.length > 0;
  }

  /** Its events and rollups go with it (foreign keys). */
  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.query('DELETE FROM issues WHERE id = $1', [id]);
  }

  /**
   * Deletes up to `limit` issues whose last event is older than the deletion's cutoff and none of
   * whose events is left (retention took them), of the projects it covers; returns how many went.
   * Their rollups go with them (foreign keys).
   */
  async deleteExpired(deletion: RowDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM issues WHERE id = ANY(ARRAY(
         SELECT i.id FROM issues i
          WHERE i.last_seen < $1
            AND i.merged_into_id IS NULL
            AND ($2::int[] IS NULL OR i.project_id = ANY($2))
            AND ($3::int[] IS NULL OR i.project_id <> ALL($3))
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id)
          ORDER BY i.id
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /** The ids of a project's issues, merged ones included, in id order. */
  async idsOfProject(projectId: number): Promise<number[]> {
    const rows: { id: number }[] = await this.dataSource.query(
      'SELECT id FROM issues WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    return rows.map((row) => row.id);
  }

  /** The issues an erasure takes events from (`ids` sorted), locked like a digest batch's. */
  async lockForErasure(manager: EntityManager, ids: number[]): Promise<number[]> {
    const rows: { id: number }[] = await manager.query(
      'SELECT id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Takes erased events out of their issues' counts (under their locks, after their rollups):
   * event count down by theirs, user count from the `user` tag key, and the first or last seen
   * time moved to the remaining events' when an erased event was at that edge.
   */
  async subtractErased(
    manager: EntityManager,
    removed: Array<{ id: number; count: number; first: Date; last: Date }>,
  ): Promise<void> {
    await manager.query(
      `UPDATE issues i
          SET event_count = GREATEST(i.event_count - r.count, 0),
              user_count = coalesce((SELECT distinct_values FROM issue_tag_keys k
                                      WHERE k.issue_id = i.id AND k.key = 'user'), 0),
              first_seen = CASE WHEN r.first_ts <= i.first_seen
                                THEN coalesce((SELECT min(e.timestamp) FROM events e WHERE e.issue_id = i.id), i.first_seen)
                                ELSE i.first_seen END,
              last_seen = CASE WHEN r.last_ts >= i.last_seen
                               THEN coalesce((SELECT max(e.timestamp) FROM events e WHERE e.issue_id = i.id), i.last_seen)
                               ELSE i.last_seen END
         FROM unnest($1::int[], $2::int[], $3::timestamptz[], $4::timestamptz[]) AS r(id, count, first_ts, last_ts)
        WHERE i.id = r.id`,
      [
        removed.map((row) => row.id),
        removed.map((row) => row.count),
        removed.map((row) => row.first),
        removed.map((row) => row.last),
      ],
    );
  }

  /** Of these issues, those with no event left. */
  async withoutEvents(manager: EntityManager, ids: number[]): Promise<number[]> {
    const rows: { id: number }[] = await manager.query(
      `SELECT i.id FROM issues i WHERE i.id = ANY($1::int[])
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.issue_id = i.id) ORDER BY i.id`,
      [ids],
    );
    return rows.map((row) => row.id);
  }
}
