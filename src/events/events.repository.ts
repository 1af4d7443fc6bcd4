import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ErrorEvent, EventUser } from './event.entity';
import { applyEventSearch } from './event-search';

/** First key of the digest's per-event advisory locks (two-key form; the second is the event's hash). */
const EVENT_LOCK_SPACE = 0x4556;

/** An event the digest stores, its payload already split from its parts. */
export interface NewEvent {
  projectId: number;
  id: string;
  issueId: number;
  timestamp: string;
  receivedAt: Date;
  environment: string | null;
  release: string | null;
  level: string;
  payload: Record<string, unknown>;
}

/** A part shared by an issue's events of a span of days (see event-parts.ts). */
export interface StoredPart {
  issueId: number;
  hash: string;
  day: string;
  content: string;
}

/**
 * The events table and the parts its payloads share (event_parts): every statement that reads,
 * inserts or moves events is here. The partitions' DDL has its own place (EventPartitionsRepository).
 * The order in which these tables are locked is written once, in issues.repository.ts.
 */
@Injectable()
export class EventsRepository {
  constructor(@InjectRepository(ErrorEvent) private readonly events: Repository<ErrorEvent>) {}

  /**
   * An issue's events, newest first by (timestamp, id), after `after` when given, filtered by the
   * event search `query`; each with the user of its payload (the only part of it that is read).
   */
  async pageForIssue(
    issueId: number,
    options: { limit: number; after?: { at: Date; id: string }; query?: string },
  ): Promise<Array<{ event: ErrorEvent; user: EventUser | null }>> {
    const query = this.events
      .createQueryBuilder('event')
      .select([
        'event.projectId',
        'event.id',
        'event.issueId',
        'event.timestamp',
        'event.receivedAt',
        'event.level',
        'event.environment',
        'event.release',
      ])
      // Only the user is read out of the payload, which PostgreSQL decompresses server-side.
      .addSelect(`event.payload -> 'user'`, 'user')
      .where('event.issue_id = :issueId', { issueId });
    if (options.query) applyEventSearch(query, options.query);
    if (options.after) {
      query.andWhere('(event.timestamp, event.id) < (CAST(:at AS timestamptz), CAST(:id AS uuid))', {
        at: options.after.at.toISOString(),
        id: options.after.id,
      });
    }
    const { entities, raw } = await query
      .orderBy('event.timestamp', 'DESC')
      .addOrderBy('event.id', 'DESC')
      .limit(options.limit)
      .getRawAndEntities<{ user: EventUser | null }>();
    return entities.map((event, index) => ({ event, user: raw[index].user }));
  }

  /**
   * The events with this id (of any project: two may hold the same id), of this issue when given.
   * No ORDER BY: sorting by arrival would let the planner walk the partitions in order (scanning
   * them) instead of probing each one's id index.
   */
  findById(id: string, issueId?: number): Promise<ErrorEvent[]> {
    return this.events.find({ where: issueId === undefined ? { id } : { id, issueId } });
  }

  /** The id of the issue's newest or oldest event; null when it has none. */
  async edgeId(issueId: number, which: 'latest' | 'oldest'): Promise<string | null> {
    const direction = which === 'latest' ? 'DESC' : 'ASC';
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [issueId],
    );
    return rows[0]?.id ?? null;
  }

  /** The id of the event just older or newer than `event` in its issue, by (timestamp, id). */
  async neighbourId(event: ErrorEvent, side: 'older' | 'newer'): Promise<string | null> {
    const [comparison, direction] = side === 'older' ? ['<', 'DESC'] : ['>', 'ASC'];
    const rows: { id: string }[] = await this.events.query(
      `SELECT id FROM events WHERE issue_id = $1 AND (timestamp, id) ${comparison} ($2::timestamptz, $3::uuid)
        ORDER BY timestamp ${direction}, id ${direction} LIMIT 1`,
      [event.issueId, event.timestamp, event.id],
    );
    return rows[0]?.id ?? null;
  }

  /** The contents of an issue's parts with these hashes, stored under either of two days (UTC dates). */
  async findParts(
    issueId: number,
    hashes: string[],
    days: [string, string],
  ): Promise<Array<{ hash: string; content: unknown }>> {
    return this.events.query<Array<{ hash: string; content: unknown }>>(
      `SELECT DISTINCT ON (hash) hash, content FROM event_parts
        WHERE issue_id = $1 AND hash = ANY($3::text[]) AND day = ANY(ARRAY[$2::date, $4::date])`,
      [issueId, days[0], hashes, days[1]],
    );
  }

  /** The issue's most recent event (its environment and key), or null when it has none. */
  latest(issueId: number): Promise<Pick<ErrorEvent, 'environment' | 'id' | 'projectId'> | null> {
    return this.events.findOne({
      where: { issueId },
      order: { timestamp: 'DESC', receivedAt: 'DESC' },
      select: { environment: true, id: true, projectId: true },
    });
  }

  /**
   * Takes the digest's advisory lock of each event (keys `project:event`), sorted, in the caller's
   * transaction. A statement of its own, so that the insert's snapshot, taken after the locks are
   * granted, sees a copy committed meanwhile.
   */
  async lockEventKeys(manager: EntityManager, keys: string[]): Promise<void> {
    await manager.query(
      `SELECT pg_advisory_xact_lock($1::int, hashtext(e.id))
         FROM unnest($2::text[]) AS e(id) ORDER BY hashtext(e.id)`,
      [EVENT_LOCK_SPACE, keys],
    );
  }

  /**
   * Inserts the events (sorted by key) that are not stored yet, looking for an earlier copy in the
   * partitions since `lookback`; returns the keys of those it inserted.
   */
  async insertNew(
    manager: EntityManager,
    events: NewEvent[],
    lookback: Date,
  ): Promise<{ project_id: number; id: string }[]> {
    // The rows travel as one JSON document: JSON.stringify is native and escapes each payload once,
    // where arrays of text would go through node-pg's array-literal escaping of every payload.
    return manager.query(
      `INSERT INTO events (project_id, id, issue_id, timestamp, received_at, environment, release, level, payload)
       SELECT e.project_id, e.id, e.issue_id, e.timestamp, e.received_at, e.environment, e.release, e.level,
              e.payload
         FROM jsonb_to_recordset($1::jsonb)
           AS e(project_id int, id uuid, issue_id int, timestamp timestamptz, received_at timestamptz,
                environment text, release text, level text, payload jsonb)
        WHERE NOT EXISTS (SELECT 1 FROM events stored
                           WHERE stored.id = e.id AND stored.project_id = e.project_id
                             AND stored.received_at >= $2)
       ON CONFLICT DO NOTHING
       RETURNING project_id, id`,
      [
        JSON.stringify(
          events.map((event) => ({
            project_id: event.projectId,
            id: event.id,
            issue_id: event.issueId,
            timestamp: event.timestamp,
            received_at: event.receivedAt,
            environment: event.environment,
            release: event.release,
            level: event.level,
            payload: event.payload,
          })),
        ),
        lookback,
      ],
    );
  }

  /**
   * Writes the `unwritten` parts (sorted) unless there already, and checks that the `known` ones
   * (sorted) are still there; returns those of `known` that are not (their issue or day went).
   */
  async insertParts(
    manager: EntityManager,
    unwritten: StoredPart[],
    known: StoredPart[],
  ): Promise<{ issue_id: number; hash: string; day: string }[]> {
    return manager.query(
      `WITH written AS (
         INSERT INTO event_parts (issue_id, hash, day, content)
         SELECT p.issue_id, p.hash, p.day, p.content
           FROM json_to_recordset($1::json) AS p(issue_id int, hash text, day date, content json)
         ON CONFLICT DO NOTHING
       )
       SELECT k.issue_id, k.hash, k.day::text AS day
         FROM unnest($2::int[], $3::text[], $4::date[]) AS k(issue_id, hash, day)
        WHERE NOT EXISTS (SELECT 1 FROM event_parts p
                           WHERE p.issue_id = k.issue_id AND p.hash = k.hash AND p.day = k.day)`,
      [
        // Content is JSON text already, hash hex and day a date: the document is put together as text.
        `[${unwritten
          .map(
            (row) =>
              `{"issue_id":${row.issueId},"hash":"${row.hash}","day":"${row.day}","content":${row.content}}`,
          )
          .join(',')}]`,
        known.map((row) => row.issueId),
        known.map((row) => row.hash),
        known.map((row) => row.day),
      ],
    );
  }

  /**
   * Moves every event of the `from` issues to issue `to`, with the parts they share, in the
   * caller's transaction; returns how many events moved. Events first, then their parts (the lock
   * order is in issues.repository.ts).
   */
  async moveToIssue(manager: EntityManager, from: number[], to: number): Promise<number> {
    const [, moved] = (await manager.query(
      'UPDATE events SET issue_id = $2 WHERE issue_id = ANY($1::int[])',
      [from, to],
    )) as [unknown, number];
    await manager.query(
      `INSERT INTO event_parts (issue_id, hash, day, content)
       SELECT $2, hash, day, content FROM event_parts WHERE issue_id = ANY($1::int[])
       ORDER BY hash, day
       ON CONFLICT DO NOTHING`,
      [from, to],
    );
    await manager.query('DELETE FROM event_parts WHERE issue_id = ANY($1::int[])', [from]);
    return moved;
  }
  /**
   * One page of an issue's events, newest first by (timestamp, id), after `after` when given: each
   * event's key and whether its payload's user is the person `match` names. At most `limit` rows
   * are read, through the issue's index in every partition.
   */
  async pageOfPersonMatches(
    issueId: number,
    match: PersonMatch,
    after: { at: Date; id: string } | null,
    limit: number,
  ): Promise<Array<{ id: string; timestamp: Date; received_at: Date; matched: boolean }>> {
    return this.events.query(
      `SELECT id, timestamp, received_at,
              coalesce(CASE
                WHEN $5::text IS NULL THEN payload -> 'user' ->> 'id' = $6
                  OR lower(payload -> 'user' ->> 'email') = lower($6)
                  OR payload -> 'user' ->> 'username' = $6 OR payload -> 'user' ->> 'ip_address' = $6
                WHEN $5 = 'email' THEN lower(payload -> 'user' ->> 'email') = lower($6)
                ELSE payload -> 'user' ->> $5 = $6 END, false) AS matched
         FROM events
        WHERE issue_id = $1 AND ($2::timestamptz IS NULL OR (timestamp, id) < ($2::timestamptz, $3::uuid))
        ORDER BY timestamp DESC, id DESC LIMIT $4`,
      [issueId, after?.at ?? null, after?.id ?? null, limit, match.field, match.value],
    );
  }

  /**
   * Deletes these events of a project (by key: id and arrival, so each is found in its own
   * partition) in the caller's transaction, returning what the rollups counted of each. Their
   * attachments go with them, by trigger (see the Attachments migration).
   */
  deleteByKeys(
    manager: EntityManager,
    projectId: number,
    keys: Array<{ id: string; receivedAt: Date }>,
  ): Promise<DeletedEvent[]> {
    return updateReturning(
      manager,
      `DELETE FROM events e USING unnest($2::uuid[], $3::timestamptz[]) AS k(id, received_at)
        WHERE e.project_id = $1 AND e.id = k.id AND e.received_at = k.received_at
       RETURNING e.id, e.issue_id AS "issueId", e.timestamp, e.environment, e.release, e.level, e.payload`,
      [projectId, keys.map((key) => key.id), keys.map((key) => key.receivedAt)],
    );
  }
}

/** An event deleted for erasure, with what its counts in the rollups derive from. */
export interface DeletedEvent {
  id: string;
  issueId: number;
  timestamp: Date;
  environment: string | null;
  release: string | null;
  level: string;
  payload: Record<string, unknown>;
}

/** The person whose events are erased: one field of the event's user, or any (`field` null). */
export interface PersonMatch {
  field: 'id' | 'email' | 'username' | 'ip_address' | null;
  value: string;
}

/** TypeORM answers a DELETE … RETURNING with `[rows, affectedCount]`. */
async function updateReturning<T>(manager: EntityManager, sql: string, parameters: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, parameters)) as [T[], number];
  return rows;
}
