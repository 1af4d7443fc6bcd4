import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A file to record, once its blob is written. */
export interface NewAttachment {
  name: string;
  contentType: string;
  attachmentType: string;
  size: number;
  sha256: string;
  blobKey: string;
}

export interface AttachmentRow {
  id: string;
  projectId: number;
  eventId: string;
  name: string;
  contentType: string;
  attachmentType: string;
  size: number;
  sha256: string;
  blobKey: string;
  receivedAt: Date;
}

export interface IssueAttachmentSummary {
  files: number;
  events: number;
  bytes: number;
  latestEventId: string | null;
}

/**
 * An issue's first seen is its first event's SDK time, which the digest keeps at most a minute past
 * the event's receipt: five minutes cover that and files recorded a moment before their event.
 */
const SUMMARY_CLOCK_SLACK_MS = 5 * 60_000;

export interface AttachmentDeletion {
  before: Date;
  only?: number[];
  except?: number[];
}

/**
 * Records the files and, in the same statement, takes their blobs off the pending list. A file
 * recorded before (an SDK sending the envelope again) conflicts: its new blob stays pending, due
 * now, and its key is returned for deletion.
 */
const COMMIT = `
  WITH inserted AS (
    INSERT INTO attachments
      (project_id, event_id, name, content_type, attachment_type, size, sha256, blob_key, received_at)
    SELECT $1, $2, f.name, f.content_type, f.attachment_type, f.size, f.sha256, f.blob_key, $9
      FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[])
           AS f(name, content_type, attachment_type, size, sha256, blob_key)
    ON CONFLICT (project_id, event_id, name, sha256) DO NOTHING
    RETURNING blob_key
  ), kept AS (
    DELETE FROM pending_blobs WHERE key IN (SELECT blob_key FROM inserted) RETURNING key
  )
  UPDATE pending_blobs SET delete_after = now()
   WHERE key = ANY($8::text[]) AND key NOT IN (SELECT blob_key FROM inserted)
  RETURNING key`;

/** First key of the per-project advisory lock of the attachment quota (two-key form; the second is the project id). */
const QUOTA_LOCK_SPACE = 0x4154;

const COLUMNS = `id::text AS "id", project_id AS "projectId", event_id AS "eventId", name,
  content_type AS "contentType", attachment_type AS "attachmentType", size::float8 AS "size",
  sha256, blob_key AS "blobKey", received_at AS "receivedAt"`;

/** The `attachments` rows (their blobs' pending list is PendingBlobsRepository's, in src/storage). */
@Injectable()
export class AttachmentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Records the event's files; returns the blob keys of those it already had (to delete). With a
   * quota (bytes, 0: none), the project's stored bytes are summed and the files recorded under a
   * transaction-scoped advisory lock of the project (a lock that stands alone, taken before the
   * rows): envelopes committed at once take turns, so that together they cannot pass it. Over it,
   * nothing is recorded and `overQuota` is set.
   */
  async commit(
    projectId: number,
    eventId: string,
    files: NewAttachment[],
    receivedAt: Date,
    quotaBytes = 0,
  ): Promise<{ duplicates: string[]; overQuota: boolean }> {
    return this.dataSource.transaction(async (manager) => {
      if (quotaBytes > 0) {
        await manager.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [QUOTA_LOCK_SPACE, projectId]);
        const stored = await this.storedBytes(projectId, manager);
        const adding = files.reduce((sum, file) => sum + file.size, 0);
        if (stored + adding > quotaBytes) return { duplicates: [], overQuota: true };
      }
      const [rows] = (await manager.query(COMMIT, [
        projectId,
        eventId,
        files.map((file) => file.name),
        files.map((file) => file.contentType),
        files.map((file) => file.attachmentType),
        files.map((file) => file.size),
        files.map((file) => file.sha256),
        files.map((file) => file.blobKey),
        receivedAt,
      ])) as [{ key: string }[], number];
      return { duplicates: rows.map((row) => row.key), overQuota: false };
    });
  }

  /**
   * Deletes files one envelope recorded, by their blobs (its event could not be queued, and the SDK
   * sends them again with its retry); the table's trigger puts the blobs on the pending list, due now.
   */
  async withdraw(projectId: number, eventId: string, blobKeys: string[]): Promise<void> {
    if (blobKeys.length === 0) return;
    await this.dataSource.query(
      'DELETE FROM attachments WHERE project_id = $1 AND event_id = $2 AND blob_key = ANY($3::text[])',
      [projectId, eventId, blobKeys],
    );
  }

  async storedBytes(projectId: number, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const [row]: { bytes: number }[] = await manager.query(
      'SELECT coalesce(sum(size), 0)::float8 AS bytes FROM attachments WHERE project_id = $1',
      [projectId],
    );
    return row.bytes;
  }

  listForEvent(projectId: number, eventId: string): Promise<AttachmentRow[]> {
    return this.dataSource.query(
      // By the table's id: the listed `id` is its text, which sorts 10 before 9.
      `SELECT ${COLUMNS} FROM attachments WHERE project_id = $1 AND event_id = $2 ORDER BY attachments.id`,
      [projectId, eventId],
    );
  }

  /** How many files each of these events has (events without any are absent). */
  async countsForEvents(projectId: number, eventIds: string[]): Promise<Map<string, number>> {
    if (eventIds.length === 0) return new Map();
    const rows: { event_id: string; files: number }[] = await this.dataSource.query(
      `SELECT event_id, count(*)::int AS files FROM attachments
        WHERE project_id = $1 AND event_id = ANY($2::uuid[]) GROUP BY event_id`,
      [projectId, eventIds],
    );
    return new Map(rows.map((row) => [row.event_id, row.files]));
  }

  /**
   * An issue's files: how many, in how many of its events, and its newest event that has any.
   * Read from the project's files since the issue was first seen (a short range of the
   * (project_id, received_at) index), each checked against its event's issue; files arrive with
   * their event, so none of the issue's can be older.
   */
  async summaryForIssue(projectId: number, issueId: number, since: Date): Promise<IssueAttachmentSummary> {
    const [row]: IssueAttachmentSummary[] = await this.dataSource.query(
      `SELECT count(*)::int AS files, count(DISTINCT a.event_id)::int AS events,
              coalesce(sum(a.size), 0)::float8 AS bytes,
              (array_agg(a.event_id::text ORDER BY a.received_at DESC, a.id DESC))[1] AS "latestEventId"
         FROM attachments a
        WHERE a.project_id = $1 AND a.received_at >= $3
          AND EXISTS (SELECT 1 FROM events e
                       WHERE e.id = a.event_id AND e.project_id = a.project_id AND e.issue_id = $2)`,
      [projectId, issueId, new Date(since.getTime() - SUMMARY_CLOCK_SLACK_MS)],
    );
    return row;
  }

  async find(projectId: number, eventId: string, id: number): Promise<AttachmentRow | undefined> {
    const rows: AttachmentRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM attachments WHERE id = $3 AND project_id = $1 AND event_id = $2`,
      [projectId, eventId, id],
    );
    return rows[0];
  }

  /**
   * Deletes up to `limit` files received before `before` (their blobs go to the pending list, by
   * the table's trigger). Retention passes the start of the day its events' partition ends, so a
   * file goes with its event's day.
   */
  async deleteExpired(deletion: AttachmentDeletion, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM attachments WHERE id = ANY(ARRAY(
         SELECT id FROM attachments
          WHERE received_at < $1
            AND ($2::int[] IS NULL OR project_id = ANY($2))
            AND ($3::int[] IS NULL OR project_id <> ALL($3))
          LIMIT $4))`,
      [deletion.before, deletion.only ?? null, deletion.except ?? null, limit],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Deletes up to `limit` files received in [from, before) whose event the project does not have
   * (an event the digest refused or filtered, or files sent alone naming an event that never came);
   * their blobs go to the pending list, by the table's trigger. A feedback's screenshots are stored
   * under the feedback's own id, which no event has: they stay while their feedback does.
   */
  async deleteOrphans(from: Date, before: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.dataSource.query(
      `DELETE FROM attachments WHERE id = ANY(ARRAY(
         SELECT a.id FROM attachments a
          WHERE a.received_at >= $1 AND a.received_at < $2
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = a.event_id AND e.project_id = a.project_id)
            AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.event_id = a.event_id AND f.project_id = a.project_id)
          LIMIT $3))`,
      [from, before, limit],
    )) as [unknown, number];
    return deleted;
  }

  /**
   * Deletes the files stored under these ids (a feedback's screenshots, which no event row takes
   * with it) and returns their blobs, which the table's trigger has put on the pending list.
   */
  async deleteOfEvents(manager: EntityManager, projectId: number, eventIds: string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const [rows] = (await manager.query(
      'DELETE FROM attachments WHERE project_id = $1 AND event_id = ANY($2::uuid[]) RETURNING blob_key',
      [projectId, eventIds],
    )) as [Array<{ blob_key: string }>, number];
    return rows.map((row) => row.blob_key);
  }

  /** The blobs of these events' files (read before the events' deletion takes the rows, by trigger). */
  async blobsOfEvents(manager: EntityManager, projectId: number, eventIds: string[]): Promise<string[]> {
    const rows: { blob_key: string }[] = await manager.query(
      'SELECT blob_key FROM attachments WHERE project_id = $1 AND event_id = ANY($2::uuid[])',
      [projectId, eventIds],
    );
    return rows.map((row) => row.blob_key);
  }
}
