import type { DataSource } from 'typeorm';

/** Which hourly rows retention removes: older than `before`, of the projects `only` lists or all but `except`. */
export interface HourlyRowsDeletion {
  before: Date;
  only?: number[];
  except?: number[];
}

/**
 * Deletes up to `limit` rows of a table keyed by project and hour (the project rollups, the
 * outcomes, release health) that a retention deletion covers. In batches by ctid, so that a large backlog never
 * holds one long transaction.
 */
export async function deleteProjectHours(
  db: DataSource,
  table:
    | 'project_hourly'
    | 'project_accepted_hourly'
    | 'outcomes_hourly'
    | 'release_health_hourly'
    | 'release_health_users',
  deletion: HourlyRowsDeletion,
  limit: number,
): Promise<number> {
  const [, deleted] = (await db.query(
    `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
       SELECT ctid FROM ${table}
        WHERE hour < $1
          AND ($2::int[] IS NULL OR project_id = ANY($2))
          AND ($3::int[] IS NULL OR project_id <> ALL($3))
        LIMIT $4))`,
    [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
  )) as [unknown, number];
  return deleted;
}
