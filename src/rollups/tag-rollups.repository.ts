import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { escapeLike } from '../common/like-pattern';
import type { ProjectTagKey, TagKeySummary, TagValueRow } from './dto/rollups.response';
import type { TagValueKey } from './rollups.repository';

/**
 * The reads of the tag rollups (`issue_tag_keys`, `issue_tag_values`) behind an issue's tags and the
 * search suggestions; RollupsRepository writes them.
 */
@Injectable()
export class TagRollupsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Every tag key of an issue with its totals and its `top` most frequent values. */
  async tagSummaries(issueId: number, top: number): Promise<TagKeySummary[]> {
    const rows = await this.dataSource.query<
      Array<{ key: string; total: number; distinct: number; top: TagValueRow[] }>
    >(
      `SELECT k.key, k.total, k.distinct_values AS distinct,
              coalesce((SELECT json_agg(json_build_object('value', v.value, 'count', v.count)
                                        ORDER BY v.count DESC, v.value)
                          FROM (SELECT value, count FROM issue_tag_values
                                 WHERE issue_id = k.issue_id AND key = k.key
                                 ORDER BY count_bucket DESC, count DESC, value LIMIT $2) v), '[]') AS top
         FROM issue_tag_keys k
        WHERE k.issue_id = $1
        ORDER BY k.total DESC, k.key`,
      [issueId, top],
    );
    return rows;
  }

  /**
   * The tag keys of a project's `recentIssues` most recently seen issues, with their events among
   * them: what search suggestions need, read through the rollups' indexes however big the project
   * (a lateral lookup per issue, where a join would scan every issue's keys).
   */
  projectTagKeys(projectId: number, recentIssues: number): Promise<ProjectTagKey[]> {
    return this.dataSource.query<ProjectTagKey[]>(
      `WITH recent AS (
         SELECT id FROM issues WHERE project_id = $1 AND merged_into_id IS NULL
          ORDER BY last_seen DESC, id DESC LIMIT $2
       )
       SELECT k.key, sum(k.total)::int AS total
         FROM recent r
         CROSS JOIN LATERAL (SELECT key, total FROM issue_tag_keys WHERE issue_id = r.id LIMIT 10000) k
        GROUP BY k.key ORDER BY sum(k.total) DESC, k.key`,
      [projectId, recentIssues],
    );
  }

  /**
   * A tag key's most frequent values among the `sample.valuesPerIssue` most frequent values (in
   * the index's coarse order) of each of the project's `sample.issues` most recently seen issues,
   * those starting with `prefix` (any case) if given: bounded work however many values there are.
   */
  projectTagValues(
    projectId: number,
    key: string,
    prefix: string | undefined,
    sample: { issues: number; valuesPerIssue: number },
    limit: number,
  ): Promise<TagValueRow[]> {
    const pattern = prefix ? `${escapeLike(prefix)}%` : null;
    return this.dataSource.query<TagValueRow[]>(
      `WITH recent AS (
         SELECT id FROM issues WHERE project_id = $1 AND merged_into_id IS NULL
          ORDER BY last_seen DESC, id DESC LIMIT $3
       )
       SELECT v.value, sum(v.count)::int AS count
         FROM recent r
         CROSS JOIN LATERAL (SELECT value, count FROM issue_tag_values
                              WHERE issue_id = r.id AND key = $2
                              ORDER BY count_bucket DESC, value LIMIT $5) v
        WHERE $4::text IS NULL OR v.value ILIKE $4
        GROUP BY v.value ORDER BY sum(v.count) DESC, v.value LIMIT $6`,
      [projectId, key, sample.issues, pattern, sample.valuesPerIssue, limit],
    );
  }

  /** One page of a tag's values, most frequent first; `after` is the last row of the previous page. */
  tagValues(
    issueId: number,
    key: string,
    after: TagValueKey | undefined,
    limit: number,
  ): Promise<TagValueRow[]> {
    return this.dataSource.query<TagValueRow[]>(
      `SELECT value, count FROM issue_tag_values
        WHERE issue_id = $1 AND key = $2
          AND ($3::int IS NULL
               OR (count_bucket <= tag_count_bucket($3) AND count <= $3 AND (count < $3 OR value > $4)))
        ORDER BY count_bucket DESC, count DESC, value
        LIMIT $5`,
      [issueId, key, after?.count ?? null, after?.value ?? null, limit],
    );
  }

  async hasTagKey(issueId: number, key: string): Promise<boolean> {
    const rows = await this.dataSource.query(
      'SELECT 1 FROM issue_tag_keys WHERE issue_id = $1 AND key = $2',
      [issueId, key],
    );
    return rows.length > 0;
  }
}
