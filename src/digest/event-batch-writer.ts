import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { EntityManager } from 'typeorm';
import { partDay } from '../events/event-partitions';
import { splitParts } from '../events/event-parts';
import { storedPayload } from '../events/event-payload';
import { EventsRepository, StoredPart } from '../events/events.repository';
import { DigestItem, GroupInBatch, groupId } from './digest-batch';

/**
 * How far back a resent event id is looked for in earlier partitions (the partition an event is
 * written to dedupes by itself). Two copies of an event in flight at once (a resend while the first
 * is still queued, in another job) are stored once: each batch takes a transaction-scoped advisory
 * lock per event before it looks for the event, so the second waits for the first to commit and
 * then finds it.
 */
export const DEDUPE_LOOKBACK_MS = 48 * 3_600_000;

/**
 * Event parts (issue, hash, day) this process has seen committed, so that their content is not sent
 * again with every event that repeats them. About 100 bytes an entry.
 */
const COMMITTED_PARTS_REMEMBERED = 100_000;

function partKey(issueId: number, hash: string, day: string): string {
  return `${issueId}:${hash}:${day}`;
}

/**
 * Writes a digest batch's events and the parts they share with their issue's other events, inside
 * the batch's transaction (IssueStoreService opens it and holds the issues' side).
 */
@Injectable()
export class EventBatchWriter {
  private readonly committedParts = new LRUCache<string, true>({ max: COMMITTED_PARTS_REMEMBERED });

  constructor(private readonly events: EventsRepository) {}

  /** The parts a committed transaction wrote: later batches do not send their content again. */
  remember(writtenParts: Set<string>): void {
    for (const key of writtenParts) this.committedParts.set(key, true);
  }

  /**
   * Inserts the batch's events and their parts; returns the keys (`project:event`) of the events
   * that were not stored before. The parts written are added to `writtenParts`, to be remembered
   * once the transaction has committed (`remember`).
   */
  async insertEvents(
    manager: EntityManager,
    items: DigestItem[],
    groups: Map<string, GroupInBatch>,
    writtenParts: Set<string>,
  ): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const sorted = [...items].sort(
      (a, b) => a.projectId - b.projectId || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0),
    );
    const lookback = new Date(
      Math.min(...sorted.map((item) => item.receivedAt.getTime())) - DEDUPE_LOOKBACK_MS,
    );
    // Sorted, so that two batches wait for each other, never deadlock.
    await this.events.lockEventKeys(
      manager,
      sorted.map((item) => `${item.projectId}:${item.eventId}`),
    );
    const payloads = sorted.map((item) => splitParts(storedPayload(item.event, item.group)));
    const rows = await this.events.insertNew(
      manager,
      sorted.map((item, index) => ({
        projectId: item.projectId,
        id: item.eventId,
        issueId: groups.get(groupId(item))?.issueId as number,
        timestamp: item.event.timestamp,
        receivedAt: item.receivedAt,
        environment: item.event.environment,
        release: item.event.release,
        level: item.event.level,
        payload: payloads[index].payload,
      })),
      lookback,
    );
    // After the events (the lock order is in issues.repository.ts).
    await this.insertParts(
      manager,
      sorted.map((item, index) => ({
        issueId: groups.get(groupId(item))?.issueId as number,
        day: partDay(item.receivedAt),
        parts: payloads[index].parts,
      })),
      writtenParts,
    );
    return new Set(rows.map((row) => `${row.project_id}:${row.id}`));
  }

  /**
   * The parts the batch's events share with their issue's other events of the same span of days
   * (see event-parts.ts), each written once. Most are there already: those this process has seen
   * committed are not sent again, only checked for (a deleted issue or dropped day takes its parts
   * along, and then they are written anew). Sorted, so concurrent batches take the rows' locks in
   * the same order.
   */
  private async insertParts(
    manager: EntityManager,
    events: { issueId: number; day: string; parts: Map<string, string> }[],
    writtenParts: Set<string>,
  ): Promise<void> {
    const unique = new Map<string, StoredPart>();
    for (const { issueId, day, parts } of events) {
      for (const [hash, content] of parts)
        unique.set(partKey(issueId, hash, day), { issueId, hash, day, content });
    }
    if (unique.size === 0) return;
    const rows = [...unique.values()].sort(
      (a, b) =>
        a.issueId - b.issueId || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.day < b.day ? -1 : 1),
    );
    const known: StoredPart[] = [];
    const unknown: StoredPart[] = [];
    for (const row of rows)
      (this.committedParts.has(partKey(row.issueId, row.hash, row.day)) ? known : unknown).push(row);
    const missing = await this.events.insertParts(manager, unknown, known);
    if (missing.length > 0) {
      // Gone since this process saw them (their issue or day went): forget them and write them anew.
      for (const row of missing) this.committedParts.delete(partKey(row.issue_id, row.hash, row.day));
      return this.insertParts(manager, events, writtenParts);
    }
    for (const row of rows) writtenParts.add(partKey(row.issueId, row.hash, row.day));
  }
}
