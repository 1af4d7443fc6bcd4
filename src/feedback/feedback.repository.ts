import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { SortKey } from '../common/pagination';
import { escapeLike } from '../common/like-pattern';
import type { HourlyRowsDeletion } from '../database/project-hours-deletion';
import type { QueuedFeedback } from './feedback-record';

export type FeedbackStatus = 'unresolved' | 'resolved';

export interface FeedbackRow {
  id: number;
  project_id: number;
  event_id: string;
  associated_event_id: string | null;
  issue_id: number | null;
  name: string | null;
  contact_email: string | null;
  message: string;
  url: string | null;
  source: string;
  environment: string | null;
  release: string | null;
  status: FeedbackStatus;
  received_at: Date;
}

export interface FeedbackFilter {
  projectId?: number;
  /** The issue and the issues merged into it. */
  issueId?: number;
  status?: FeedbackStatus;
  query?: string;
  after?: SortKey<number>;
  limit: number;
}

/** An event the digest has just stored, to which waiting feedback may belong. */
export interface StoredEventKey {
  projectId: number;
  eventId: string;
  issueId: number;
  environment: string | null;
  release: string | null;
}

const COLUMNS = `f.id, f.project_id, f.event_id, f.associated_event_id, f.issue_id, f.name, f.contact_email,
  f.message, f.url, f.source, f.environment, f.release, f.status, f.received_at`;

/**
 * Links the feedback that waits for the events a digest batch has just stored: one statement per
 * batch, which only probes the partial index of unlinked feedback (small whatever the table's
 * size). Runs while the batch holds the events' advisory locks, which a feedback's store takes too
 * (FeedbackStoreService): whichever commits second sees the other.
 */
const LINK_TO_EVENTS = `
  UPDATE feedback f
     SET issue_id = e.issue_id,
         environment = coalesce(f.environment, e.environment),
         release = coalesce(f.release, e.release)
    FROM jsonb_to_recordset($1::jsonb) AS e(project_id int, event_id uuid, issue_id int, environment text, release text)
   WHERE f.project_id = e.project_id AND f.associated_event_id = e.event_id
     AND f.issue_id IS NULL AND f.associated_event_id IS NOT NULL
  RETURNING f.project_id, f.issue_id, f.received_at`;

/** Feedback rows: the worker's writes, the digest's links, the inbox's reads and triage, retention. */
@Injectable()
export class FeedbackRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The stored event a feedback belongs to, if stored: its issue, environment and release. */
  async findEvent(
    manager: EntityManager,
    projectId: number,
    eventId: string,
  ): Promise<{ issueId: number; environment: string | null; release: string | null } | undefined> {
    const rows: { issue_id: number; environment: string | null; release: string | null }[] =
      await manager.query(
        'SELECT issue_id, environment, release FROM events WHERE id = $1 AND project_id = $2 LIMIT 1',
        [eventId, projectId],
      );
    return (
      rows[0] && { issueId: rows[0].issue_id, environment: rows[0].environment, release: rows[0].release }
    );
  }

  /**
   * Stores a feedback unless its project is gone. A copy stored before is left as it is, except a
   * user report, whose later copy replaces the text (Sentry keeps one report per event). `inserted`
   * is false for a copy that was there: nothing new to alert on.
   */
  async upsert(
    manager: EntityManager,
    feedback: QueuedFeedback,
    issueId: number | null,
  ): Promise<{ inserted: boolean } | undefined> {
    const onConflict = feedback.replaces
      ? `DO UPDATE SET name = EXCLUDED.name, contact_email = EXCLUDED.contact_email,
           message = EXCLUDED.message, source = EXCLUDED.source, received_at = EXCLUDED.received_at`
      : 'DO NOTHING';
    const rows: { inserted: boolean }[] = await manager.query(
      `INSERT INTO feedback (project_id, event_id, associated_event_id, issue_id, name, contact_email, message,
                             url, source, environment, release, received_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
        WHERE EXISTS (SELECT 1 FROM projects WHERE id = $1)
       ON CONFLICT (project_id, event_id) ${onConflict}
       RETURNING (xmax = 0) AS inserted`,
      [
        feedback.projectId,
        feedback.eventId,
        feedback.associatedEventId ?? null,
        issueId,
        feedback.name ?? null,
        feedback.contactEmail ?? null,
        feedback.message,
        feedback.url ?? null,
        feedback.source,
        feedback.environment ?? null,
        feedback.release ?? null,
        new Date(feedback.receivedAt),
      ],
    );
    if (rows.length === 0) {
      // Either the project is gone, or the copy was there and left as it is.
      const exists: unknown[] = await manager.query('SELECT 1 FROM projects WHERE id = $1', [
        feedback.projectId,
      ]);
      return exists.length === 0 ? undefined : { inserted: false };
    }
    return { inserted: rows[0].inserted };
  }

  /** See LINK_TO_EVENTS; returns the feedback it linked (for the `new_feedback` alerts). */
  async linkToEvents(
    manager: EntityManager,
    events: StoredEventKey[],
  ): Promise<{ projectId: number; issueId: number; receivedAt: Date }[]> {
    if (events.length === 0) return [];
    const [rows]: [{ project_id: number; issue_id: number; received_at: Date }[], number] =
      await manager.query(LINK_TO_EVENTS, [
        JSON.stringify(
          events.map((event) => ({
            project_id: event.projectId,
            event_id: event.eventId,
            issue_id: event.issueId,
            environment: event.environment,
            release: event.release,
          })),
        ),
      ]);
    return rows.map((row) => ({
      projectId: row.project_id,
      issueId: row.issue_id,
      receivedAt: row.received_at,
    }));
  }

  /** Newest first, keyset-paginated; `limit + 1` rows so that the caller knows whether more follow. */
  async list(filter: FeedbackFilter): Promise<FeedbackRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (filter.projectId !== undefined) where.push(`f.project_id = ${param(filter.projectId)}`);
    if (filter.issueId !== undefined) {
      const id = param(filter.issueId);
      where.push(`f.issue_id IN (SELECT i.id FROM issues i WHERE i.id = ${id} OR i.merged_into_id = ${id})`);
    }
    if (filter.status !== undefined) where.push(`f.status = ${param(filter.status)}`);
    if (filter.query) {
      const pattern = param(`%${escapeLike(filter.query)}%`);
      where.push(
        `(f.message ILIKE ${pattern} OR f.name ILIKE ${pattern} OR f.contact_email ILIKE ${pattern} OR f.url ILIKE ${pattern})`,
      );
    }
    if (filter.after) {
      where.push(`(f.received_at, f.id) < (${param(filter.after.at)}, ${param(filter.after.id)})`);
    }
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM feedback f
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY f.received_at DESC, f.id DESC
        LIMIT ${param(filter.limit + 1)}`,
      params,
    );
  }

  async findOne(projectId: number, id: number): Promise<FeedbackRow | undefined> {
    const rows: FeedbackRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM feedback f WHERE f.project_id = $1 AND f.id = $2`,
      [projectId, id],
    );
    return rows[0];
  }

  async setStatus(projectId: number, id: number, status: FeedbackStatus): Promise<FeedbackRow | undefined> {
    const [rows]: [FeedbackRow[], number] = await this.dataSource.query(
      `UPDATE feedback f SET status = $3 WHERE f.project_id = $1 AND f.id = $2 RETURNING ${COLUMNS}`,
      [projectId, id, status],
    );
    return rows[0];
  }

  /** Deletes one feedback; returns its own event id (under which its screenshots are stored), or null. */
  async delete(manager: EntityManager, projectId: number, id: number): Promise<string | null> {
    const [rows] = (await manager.query(
      'DELETE FROM feedback WHERE project_id = $1 AND id = $2 RETURNING event_id',
      [projectId, id],
    )) as [Array<{ event_id: string }>, number];
    return rows[0]?.event_id ?? null;
  }

  /**
   * Unresolved feedback per issue of a page of issues (each issue with those merged into it): one
   * index probe per issue shown, never a scan of the project's feedback.
   */
  async unresolvedCounts(projectId: number, issueIds: number[]): Promise<Map<number, number>> {
    if (issueIds.length === 0) return new Map();
    const rows: { issue_id: number; count: number }[] = await this.dataSource.query(
      `SELECT i.issue_id, (SELECT count(*)::int FROM feedback f
                             WHERE f.issue_id IN (SELECT m.id FROM issues m WHERE m.id = i.issue_id OR m.merged_into_id = i.issue_id)
                               AND f.project_id = $1 AND f.status = 'unresolved') AS count
         FROM unnest($2::int[]) AS i(issue_id)`,
      [projectId, issueIds],
    );
    return new Map(rows.map((row) => [row.issue_id, row.count]));
  }

  /** Retention: feedback received before the deletion's time, of the projects it covers, in batches. */
  async deleteReceivedBefore(deletion: HourlyRowsDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM feedback WHERE id = ANY(ARRAY(
         SELECT id FROM feedback
          WHERE received_at < $1
            AND ($2::int[] IS NULL OR project_id = ANY($2))
            AND ($3::int[] IS NULL OR project_id <> ALL($3))
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Deletes a project's feedback about these events, and that sent from `email` when given (any
   * case); returns the deleted feedback's own ids, under which their screenshots are stored.
   */
  async deleteOfPerson(
    manager: EntityManager,
    projectId: number,
    eventIds: string[],
    email: string | null,
  ): Promise<string[]> {
    const [rows] = (await manager.query(
      `DELETE FROM feedback
        WHERE project_id = $1
          AND (event_id = ANY($2::uuid[]) OR associated_event_id = ANY($2::uuid[])
               OR ($3::text IS NOT NULL AND lower(contact_email) = lower($3)))
        RETURNING event_id`,
      [projectId, eventIds, email],
    )) as [Array<{ event_id: string }>, number];
    return rows.map((row) => row.event_id);
  }
}
