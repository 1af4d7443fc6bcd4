/**
 * The small records an envelope carries beside its event (client reports, sessions, feedback,
 * check-ins): kept whole for ingest to read, within a budget of bytes per type and envelope.
 */
import { MAX_EVENT_BYTES } from './envelope-limits';

/**
 * Item types whose payloads are small records, with the bytes an envelope may hold of each type.
 * What an envelope holds of a type beyond its budget is skipped, and each item skipped is recorded
 * as `undefined` (ingest counts it as invalid). Client reports are a few hundred bytes of counts.
 */
export const SMALL_ITEM_BUDGETS: Readonly<Record<string, number>> = {
  client_report: 64 * 1024,
  // A session update is a few hundred bytes; the Node SDK's aggregates a bucket per minute.
  session: 64 * 1024,
  sessions: 64 * 1024,
  // A feedback item is an event (up to the event limit); a user report is a few short fields.
  feedback: MAX_EVENT_BYTES,
  user_report: 64 * 1024,
  // A check-in is a few hundred bytes, its monitor_config included.
  check_in: 64 * 1024,
};
export const MAX_CLIENT_REPORT_BYTES = SMALL_ITEM_BUDGETS.client_report;

/** A small record kept whole: its item header and its payload text. */
export interface KeptItem {
  header: Record<string, unknown>;
  payload: string;
}

export function isSmallItemType(type: string): boolean {
  return Object.hasOwn(SMALL_ITEM_BUDGETS, type);
}

/** One envelope's small records by type, in order, and what is left of each type's budget. */
export class SmallItems {
  private readonly kept = new Map<string, (KeptItem | undefined)[]>();
  private readonly bytesLeft = new Map<string, number>();

  /** How many types have records (kept or skipped). */
  get size(): number {
    return this.kept.size;
  }

  has(type: string): boolean {
    return this.kept.has(type);
  }

  /** The records of one type; undefined for each one past its type's budget. */
  ofType(type: string): (KeptItem | undefined)[] {
    return this.kept.get(type) ?? [];
  }

  /** The bytes the envelope may still hold of a small record type. */
  budgetLeft(type: string): number {
    return this.bytesLeft.get(type) ?? SMALL_ITEM_BUDGETS[type];
  }

  /** Keeps a record read whole, charging its bytes to its type's budget. */
  keep(type: string, item: KeptItem): void {
    this.bytesLeft.set(type, this.budgetLeft(type) - Buffer.byteLength(item.payload));
    this.record(type, item);
  }

  /** A record past its type's budget: its place is kept as undefined. */
  skip(type: string): void {
    this.record(type, undefined);
  }

  private record(type: string, item: KeptItem | undefined): void {
    const kept = this.kept.get(type);
    if (kept) kept.push(item);
    else this.kept.set(type, [item]);
  }
}
