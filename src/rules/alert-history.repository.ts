import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { AlertHistoryEntry } from './alert-history.entity';

/** A history row to insert: one notification of one target by one rule about one issue. */
export type NewAlertHistoryEntry = Pick<
  AlertHistoryEntry,
  | 'projectId'
  | 'ruleId'
  | 'channelId'
  | 'issueId'
  | 'alertType'
  | 'channelType'
  | 'channelName'
  | 'status'
  | 'error'
  | 'attempts'
  | 'idempotencyKey'
> &
  Partial<Pick<AlertHistoryEntry, 'release' | 'releaseBreach' | 'spike' | 'quota'>>;

/** A history row with the number and project slug of its issue (null once the issue is deleted). */
export interface AlertHistoryWithIssue {
  entry: AlertHistoryEntry;
  issueNumber: number | null;
  issueSlug: string | null;
}

/** The alert_history table: every statement on what the rules sent (or skipped) is here. */
@Injectable()
export class AlertHistoryRepository {
  constructor(@InjectRepository(AlertHistoryEntry) private readonly history: Repository<AlertHistoryEntry>) {}

  /** A project's newest rows first, each with its issue's number and slug, read in the same query. */
  async listForProject(projectId: number, limit: number): Promise<AlertHistoryWithIssue[]> {
    const { entities, raw } = await this.history
      .createQueryBuilder('h')
      .leftJoin('issues', 'i', 'i.id = h.issue_id')
      .leftJoin('projects', 'p', 'p.id = i.project_id')
      .addSelect('i.number', 'issue_number')
      .addSelect('p.slug', 'issue_slug')
      .where('h.project_id = :projectId', { projectId })
      .orderBy('h.created_at', 'DESC')
      .addOrderBy('h.id', 'DESC')
      .limit(limit)
      .getRawAndEntities<{ h_id: number; issue_number: number | null; issue_slug: string | null }>();
    const issues = new Map(
      raw
        .filter((row) => row.issue_number !== null && row.issue_slug !== null)
        .map((row) => [Number(row.h_id), { number: Number(row.issue_number), slug: row.issue_slug! }]),
    );
    return entities.map((entry) => {
      const issue = issues.get(entry.id);
      return { entry, issueNumber: issue?.number ?? null, issueSlug: issue?.slug ?? null };
    });
  }

  findById(id: number): Promise<AlertHistoryEntry | null> {
    return this.history.findOne({ where: { id } });
  }

  /** Marks a row that is still pending `skipped`, with the reason. */
  async markSkipped(id: number, reason: string): Promise<void> {
    await this.history.update({ id, status: 'pending' }, { status: 'skipped', error: reason });
  }

  /** The row's notification went out (one more attempt). */
  async markSent(manager: EntityManager, id: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(AlertHistoryEntry)
      .set({ status: 'sent', sentAt: () => 'now()', error: null, attempts: () => 'attempts + 1' })
      .where('id = :id', { id })
      .execute();
  }

  /** An attempt failed with `error`; `final`: it is given up, the row is `failed`. */
  async recordFailedAttempt(
    manager: EntityManager,
    id: number,
    error: string,
    final: boolean,
  ): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(AlertHistoryEntry)
      .set({ error, attempts: () => 'attempts + 1', ...(final ? { status: 'failed' as const } : {}) })
      .where('id = :id', { id })
      .execute();
  }

  /**
   * Runs `work` in a transaction that holds the transaction-scoped advisory lock of a rule's
   * cooldown for an issue, so that two triggers of the issue handled by parallel workers cannot
   * both pass the cooldown check.
   */
  inCooldownLock<T>(
    ruleId: number,
    issueId: number,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.history.manager.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `alert-cooldown:${ruleId}:${issueId}`,
      ]);
      return work(manager);
    });
  }

  /**
   * Like inCooldownLock, for a rule's alerts about a release: the breach's state row, the cooldown
   * check and the history rows are written together.
   */
  inReleaseCooldownLock<T>(
    ruleId: number,
    release: string,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.history.manager.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `alert-cooldown:${ruleId}:release:${release}`,
      ]);
      return work(manager);
    });
  }

  /** When the rule last notified (a `pending` or `sent` row) about the release within the last `minutes`. */
  async lastNotifiedAboutReleaseWithin(
    manager: EntityManager,
    ruleId: number,
    release: string,
    minutes: number,
  ): Promise<Date | null> {
    const [recent] = (await manager.query(
      `SELECT created_at FROM alert_history
        WHERE rule_id = $1 AND release = $2 AND status IN ('pending', 'sent')
          AND created_at > now() - make_interval(mins => $3)
        ORDER BY created_at DESC LIMIT 1`,
      [ruleId, release, minutes],
    )) as Array<{ created_at: Date }>;
    return recent ? new Date(recent.created_at) : null;
  }

  /** The rows with these idempotency keys that are still `pending`, outside any transaction. */
  pendingWithKeys(keys: string[]): Promise<AlertHistoryEntry[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.history.find({ where: { idempotencyKey: In(keys), status: 'pending' } });
  }

  /** The rows with these idempotency keys. */
  findByKeys(manager: EntityManager, keys: string[]): Promise<AlertHistoryEntry[]> {
    return manager.getRepository(AlertHistoryEntry).find({ where: { idempotencyKey: In(keys) } });
  }

  /**
   * When the rule last notified (a `pending` or `sent` row) about the issue within the last
   * `minutes`, not counting the rows with the keys `exceptKeys`; null when it did not.
   */
  async lastNotifiedWithin(
    manager: EntityManager,
    ruleId: number,
    issueId: number,
    minutes: number,
    exceptKeys: string[],
  ): Promise<Date | null> {
    const [recent] = (await manager.query(
      `SELECT created_at FROM alert_history
        WHERE rule_id = $1 AND issue_id = $2 AND status IN ('pending', 'sent')
          AND created_at > now() - make_interval(mins => $3)
          AND idempotency_key <> ALL($4)
        ORDER BY created_at DESC LIMIT 1`,
      [ruleId, issueId, minutes, exceptKeys],
    )) as Array<{ created_at: Date }>;
    return recent ? new Date(recent.created_at) : null;
  }

  insertMany(manager: EntityManager, entries: NewAlertHistoryEntry[]): Promise<AlertHistoryEntry[]> {
    const history = manager.getRepository(AlertHistoryEntry);
    return history.save(entries.map((entry) => history.create(entry)));
  }

  /**
   * Inserts the entries whose idempotency key is new, and returns those: an alert meant once per
   * key (a quota's period) is inserted once however many runs try, concurrent ones too.
   */
  async insertNew(manager: EntityManager, entries: NewAlertHistoryEntry[]): Promise<AlertHistoryEntry[]> {
    if (entries.length === 0) return [];
    const result = await manager
      .createQueryBuilder()
      .insert()
      .into(AlertHistoryEntry)
      .values(entries)
      .orIgnore()
      .returning('id')
      .execute();
    const ids = (result.raw as Array<{ id: number }>).map((row) => row.id);
    return ids.length === 0 ? [] : manager.getRepository(AlertHistoryEntry).findBy({ id: In(ids) });
  }

  /** Deletes up to `limit` rows older than `before` that are no longer pending; returns how many went. */
  async deleteOlderThan(before: Date, limit: number): Promise<number> {
    const [, deleted] = (await this.history.query(
      `DELETE FROM alert_history WHERE id = ANY(ARRAY(
         SELECT id FROM alert_history WHERE created_at < $1 AND status <> 'pending' LIMIT $2))`,
      [before, limit],
    )) as [unknown, number];
    return deleted;
  }
}
