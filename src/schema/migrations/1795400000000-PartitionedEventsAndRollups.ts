import { MigrationInterface, QueryRunner } from 'typeorm';
import type { NormalisedEvent } from '../../events/normalised-event';
import { joinParts, partRefs } from '../../events/event-parts';
import { rollupDelta } from '../../rollups/rollup-delta';
import { ReleasesRepository } from '../../releases/releases.repository';
import { RollupsRepository } from '../../rollups/rollups.repository';

/**
 * Events partitioned by day of arrival, and the rollups that summaries are read from.
 *
 * - `events` becomes a range-partitioned table on `received_at`, one partition per UTC day, so that
 *   retention drops whole partitions. Arrival time (not the SDK's `timestamp`) is the key because it
 *   is always close to now: partitions made a few days ahead always cover new rows, whatever clock
 *   a client has.
 * - A unique index on (id, project_id) exists on each partition (PostgreSQL only allows unique
 *   indexes that contain the partition key on the parent): INSERT … ON CONFLICT DO NOTHING dedupes
 *   within a day; the digest looks back into the previous days for resends that crossed midnight.
 *   Leading with `id`, the same index serves `GET /api/events/{id}`, which does not know the date.
 * - The payload no longer repeats what has a column (id, timestamp, level, environment, release),
 *   and `user` (only ever read from the payload) is gone; TOAST compresses it with lz4 where the
 *   server has it, and keeps it in the row (storage MAIN) unless the row outgrows a page.
 * - What an issue's events repeat word for word (stack traces, the SDK) is stored once per issue and
 *   day in `event_parts`, partitioned like events and dropped with them (see event-parts.ts).
 * - Events reference their issue only: a project's events go with its issues.
 * - Existing events are kept without being copied: the old table is attached as the partition of
 *   everything before tomorrow (UTC), and retention later drops it like any other.
 */
export class PartitionedEventsAndRollups1795400000000 implements MigrationInterface {
  name = 'PartitionedEventsAndRollups1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const [{ lz4 }] = await queryRunner.query(
      `SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
    );
    const compression = lz4 ? 'COMPRESSION lz4' : '';

    await queryRunner.query(`
      ALTER TABLE projects ADD COLUMN retention_days int
        CONSTRAINT projects_retention_days_range CHECK (retention_days BETWEEN 1 AND 3650);
      ALTER TABLE issues ADD COLUMN user_count int NOT NULL DEFAULT 0;

      ALTER TABLE events RENAME TO events_legacy;
      ALTER INDEX events_pkey RENAME TO events_legacy_id_key;
      ALTER INDEX events_issue_timestamp_idx RENAME TO events_legacy_issue_timestamp_idx;
      ALTER TABLE events_legacy DROP CONSTRAINT IF EXISTS events_project_id_fkey;
      ALTER TABLE events_legacy RENAME CONSTRAINT events_issue_id_fkey TO events_legacy_issue_id_fkey;
      -- Kept: GET /api/events/{id} finds the old events by id alone through it.
      ALTER INDEX IF EXISTS events_id_idx RENAME TO events_legacy_id_idx;

      CREATE TABLE events (
        project_id int NOT NULL,
        id uuid NOT NULL,
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        timestamp timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        environment text,
        release text,
        level text NOT NULL DEFAULT 'error',
        payload jsonb ${compression} NOT NULL
      ) PARTITION BY RANGE (received_at);
      CREATE INDEX events_issue_timestamp_idx ON events (issue_id, timestamp DESC, id DESC);

      CREATE TABLE event_parts (
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        hash text NOT NULL,
        day date NOT NULL,
        content json ${compression} NOT NULL,
        PRIMARY KEY (issue_id, hash, day)
      ) PARTITION BY RANGE (day);

      -- Creates the partitions of one UTC day (events, with its dedupe index, and event parts), unless
      -- they exist or an older partition covers the day. Several workers may call it at once: the
      -- advisory lock makes them take turns.
      CREATE FUNCTION events_ensure_partition(day date) RETURNS boolean LANGUAGE plpgsql AS $fn$
      DECLARE
        partition text := 'events_p' || to_char(day, 'YYYYMMDD');
        parts text := 'event_parts_p' || to_char(day, 'YYYYMMDD');
        lower_bound timestamptz := day::timestamp AT TIME ZONE 'UTC';
      BEGIN
        IF to_regclass(partition) IS NOT NULL AND to_regclass(parts) IS NOT NULL THEN RETURN false; END IF;
        PERFORM pg_advisory_xact_lock(724012);
        BEGIN
          EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF event_parts FOR VALUES FROM (%L) TO (%L)',
                         parts, day, day + 1);
        EXCEPTION WHEN duplicate_table OR unique_violation THEN NULL;
        END;
        IF to_regclass(partition) IS NOT NULL THEN RETURN false; END IF;
        BEGIN
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L) WITH (toast_tuple_target = 128)',
            partition, lower_bound, lower_bound + interval '1 day');
        EXCEPTION
          -- An older partition (the events kept from before partitioning) covers the day.
          WHEN invalid_object_definition THEN RETURN false;
          -- Another session created it meanwhile (its commit is not in this statement's catalog view).
          WHEN duplicate_table OR unique_violation THEN RETURN false;
        END;
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I (id, project_id)', partition || '_id_key', partition);
        -- Compressed payloads stay in the row instead of moving to the TOAST table: no second
        -- lookup to read one, and no chunk overhead on disk.
        EXECUTE format('ALTER TABLE %I ALTER COLUMN payload SET STORAGE MAIN', partition);
        RETURN true;
      END
      $fn$;

      CREATE TABLE issue_hourly (
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        environment text NOT NULL DEFAULT '',
        count int NOT NULL,
        PRIMARY KEY (issue_id, hour, environment)
      );
      -- Retention trims the hourly rollups by age.
      CREATE INDEX issue_hourly_hour_idx ON issue_hourly (hour);
      CREATE TABLE project_hourly (
        project_id int NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        environment text NOT NULL DEFAULT '',
        count int NOT NULL,
        PRIMARY KEY (project_id, hour, environment)
      );
      CREATE INDEX project_hourly_hour_idx ON project_hourly (hour);
      CREATE TABLE issue_tag_values (
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        key text NOT NULL,
        value text NOT NULL,
        count int NOT NULL,
        first_seen timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        PRIMARY KEY (issue_id, key, value)
      );
      CREATE INDEX issue_tag_values_top_idx ON issue_tag_values (issue_id, key, count DESC, value);
      CREATE TABLE issue_tag_keys (
        issue_id int NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
        key text NOT NULL,
        total int NOT NULL,
        distinct_values int NOT NULL,
        PRIMARY KEY (issue_id, key)
      );

      CREATE INDEX alert_history_created_idx ON alert_history (created_at);
      CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
    `);

    const [{ has_events }] = await queryRunner.query(
      'SELECT EXISTS (SELECT 1 FROM events_legacy) AS has_events',
    );
    if (has_events) {
      await backfillRollups(queryRunner);
      // A constraint that proves the partition bound spares ATTACH a scan of the whole table.
      // Everything up to the end of today, or of the latest arrival if a clock ran ahead.
      const [{ end }] = await queryRunner.query(
        `SELECT (greatest((now() AT TIME ZONE 'UTC')::date, max(received_at AT TIME ZONE 'UTC')::date) + 1)::text AS end
           FROM events_legacy`,
      );
      const bound = `${String(end)} 00:00:00+00`;
      await queryRunner.query(`
        ALTER TABLE events_legacy DROP COLUMN "user";
        ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_before_partitions CHECK (received_at < '${bound}');
        ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO ('${bound}');
      `);
    } else {
      await queryRunner.query('DROP TABLE events_legacy');
    }
    await queryRunner.query(
      `SELECT events_ensure_partition(d::date)
         FROM generate_series((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 3,
                              interval '1 day') AS d`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events_unpartitioned (
        project_id int NOT NULL,
        id uuid NOT NULL,
        issue_id int NOT NULL,
        timestamp timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        environment text,
        release text,
        level text NOT NULL DEFAULT 'error',
        "user" jsonb,
        payload jsonb NOT NULL
      );
      INSERT INTO events_unpartitioned
      SELECT DISTINCT ON (project_id, id)
             project_id, id, issue_id, timestamp, received_at, environment, release, level, payload->'user',
             payload || jsonb_build_object(
               'event_id', id::text,
               'timestamp', to_char(timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'level', level, 'environment', environment, 'release', release)
        FROM events
       ORDER BY project_id, id, received_at;
    `);
    await inlineParts(queryRunner);
    await queryRunner.query(`
      DROP TABLE events;
      DROP TABLE event_parts;
      DROP FUNCTION events_ensure_partition(date);
      ALTER TABLE events_unpartitioned RENAME TO events;
      ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (project_id, id);
      ALTER TABLE events ADD CONSTRAINT events_project_id_fkey
        FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
      ALTER TABLE events ADD CONSTRAINT events_issue_id_fkey
        FOREIGN KEY (issue_id) REFERENCES issues(id) ON DELETE CASCADE;
      CREATE INDEX events_issue_timestamp_idx ON events (issue_id, timestamp DESC, id DESC);
      CREATE INDEX events_id_idx ON events (id);
      DROP TABLE issue_tag_keys;
      DROP TABLE issue_tag_values;
      DROP TABLE project_hourly;
      DROP TABLE issue_hourly;
      DROP INDEX alert_history_created_idx;
      DROP INDEX sessions_expires_at_idx;
      ALTER TABLE issues DROP COLUMN user_count;
      ALTER TABLE projects DROP COLUMN retention_days;
    `);
  }
}

/**
 * Counts the events kept from before partitioning into the rollups, with the digest's own tag
 * extraction, so that charts, tags and user counts are right from the first minute.
 */
async function backfillRollups(queryRunner: QueryRunner): Promise<void> {
  // Only `add` is used here; the releases table comes later (ReleasesAndTriage).
  const rollups = new RollupsRepository(
    queryRunner.connection,
    new ReleasesRepository(queryRunner.connection),
  );
  let after: { project_id: number; id: string } | undefined;
  for (;;) {
    const rows: Array<{
      project_id: number;
      id: string;
      issue_id: number;
      timestamp: Date;
      level: string;
      environment: string | null;
      release: string | null;
      payload: Record<string, unknown>;
    }> = await queryRunner.query(
      `SELECT project_id, id, issue_id, timestamp, level, environment, release, payload
         FROM events_legacy
        WHERE $1::int IS NULL OR (project_id, id) > ($1, $2::uuid)
        ORDER BY project_id, id
        LIMIT 1000`,
      [after?.project_id ?? null, after?.id ?? null],
    );
    if (rows.length === 0) return;
    await rollups.add(
      queryRunner.manager,
      rollupDelta(
        rows.map((row) => ({
          projectId: row.project_id,
          issueId: row.issue_id,
          event: {
            tags: {},
            contexts: {},
            ...row.payload,
            timestamp: row.timestamp.toISOString(),
            level: row.level,
            environment: row.environment,
            release: row.release,
          } as NormalisedEvent,
        })),
      ),
    );
    after = rows[rows.length - 1];
  }
}

/** Going back: the parts an issue's events share are put back into each event's payload. */
async function inlineParts(queryRunner: QueryRunner): Promise<void> {
  let after: { project_id: number; id: string } | undefined;
  for (;;) {
    const rows: Array<{
      project_id: number;
      id: string;
      issue_id: number;
      day: string;
      payload: Record<string, unknown>;
    }> = await queryRunner.query(
      `SELECT e.project_id, e.id, e.issue_id, (r.received_at AT TIME ZONE 'UTC')::date::text AS day, e.payload
           FROM events_unpartitioned e
           JOIN events r ON r.project_id = e.project_id AND r.id = e.id AND r.received_at = e.received_at
          WHERE $1::int IS NULL OR (e.project_id, e.id) > ($1, $2::uuid)
          ORDER BY e.project_id, e.id
          LIMIT 1000`,
      [after?.project_id ?? null, after?.id ?? null],
    );
    if (rows.length === 0) return;
    for (const row of rows) {
      const refs = partRefs(row.payload);
      if (refs.length === 0) continue;
      const parts: Array<{ hash: string; content: unknown }> = await queryRunner.query(
        // Parts are stored under the event's day or, since they are shared across a span of days,
        // a later day of its span (seven days at most, see partDay).
        `SELECT hash, content FROM event_parts
          WHERE issue_id = $1 AND hash = ANY($3::text[]) AND day >= $2::date AND day < $2::date + 7`,
        [row.issue_id, row.day, refs],
      );
      const payload = joinParts(row.payload, new Map(parts.map((part) => [part.hash, part.content])));
      await queryRunner.query(
        'UPDATE events_unpartitioned SET payload = $3 WHERE project_id = $1 AND id = $2',
        [row.project_id, row.id, JSON.stringify(payload)],
      );
    }
    after = rows[rows.length - 1];
  }
}
