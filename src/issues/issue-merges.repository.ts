import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/**
 * The `issues` rows' writes of a merge: the issues locked (`ids` sorted, FOR NO KEY UPDATE, step 4
 * of the lock order in issues.repository.ts), their counts folded into the survivor, the merged
 * ones pointed at it.
 */
@Injectable()
export class IssueMergesRepository {
  /** Every issue of a merge (`ids` sorted), locked. */
  async lockForMerge(
    manager: EntityManager,
    ids: number[],
  ): Promise<{ id: number; projectId: number; mergedIntoId: number | null }[]> {
    const locked: { id: number; project_id: number; merged_into_id: number | null }[] = await manager.query(
      'SELECT id, project_id, merged_into_id FROM issues WHERE id = ANY($1::int[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
    return locked.map((row) => ({ id: row.id, projectId: row.project_id, mergedIntoId: row.merged_into_id }));
  }

  /** Adds the `from` issues' counts, times and releases to issue `to`'s. */
  async foldCountsInto(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query(
      `UPDATE issues t
          SET event_count = t.event_count + s.events,
              first_release = CASE WHEN s.first_seen < t.first_seen THEN coalesce(s.first_release, t.first_release)
                                   ELSE t.first_release END,
              last_release = CASE WHEN s.last_seen > t.last_seen THEN coalesce(s.last_release, t.last_release)
                                  ELSE t.last_release END,
              first_seen = LEAST(t.first_seen, s.first_seen),
              last_seen = GREATEST(t.last_seen, s.last_seen)
         FROM (SELECT sum(event_count)::int AS events, min(first_seen) AS first_seen, max(last_seen) AS last_seen,
                      (array_agg(first_release ORDER BY first_seen))[1] AS first_release,
                      (array_agg(last_release ORDER BY last_seen DESC))[1] AS last_release
                 FROM issues WHERE id = ANY($1::int[])) s
        WHERE t.id = $2`,
      [from, to],
    );
  }

  /**
   * Recomputes issue `to`'s user count from its rollups' `user` tag key, once a merge has merged
   * the tag values of the issues it took in.
   */
  async recountUsersFromTags(manager: EntityManager, to: number): Promise<void> {
    await manager.query(
      `UPDATE issues SET user_count = coalesce(
         (SELECT distinct_values FROM issue_tag_keys WHERE issue_id = $1 AND key = 'user'), 0)
        WHERE id = $1`,
      [to],
    );
  }

  /** The `from` issues, and the pointers to them, now point to `to`: one hop, always. */
  async pointTo(manager: EntityManager, from: number[], to: number): Promise<void> {
    await manager.query(
      `UPDATE issues SET merged_into_id = $2, event_count = 0, user_count = 0
        WHERE id = ANY($1::int[]) OR merged_into_id = ANY($1::int[])`,
      [from, to],
    );
  }
}
