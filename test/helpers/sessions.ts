/**
 * Session envelopes as the SDKs send them (https://develop.sentry.dev/sdk/telemetry/sessions/), a
 * client for the release health API, and an independent count of what a set of sessions should
 * show, for the release health tests, the bench and the chaos load.
 */
import { randomUUID } from 'node:crypto';

export type Status = 'ok' | 'exited' | 'errored' | 'crashed' | 'abnormal' | 'unhandled';

export interface SessionAttrs {
  release?: string;
  environment?: string;
}

export interface UpdateSpec {
  sid: string;
  did?: string;
  init?: boolean;
  started: number;
  timestamp: number;
  status: Status;
  errors?: number;
  seq?: number;
  attrs: SessionAttrs;
}

export function sessionPayload(update: UpdateSpec): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    sid: update.sid,
    init: update.init ?? false,
    started: new Date(update.started).toISOString(),
    timestamp: new Date(update.timestamp).toISOString(),
    status: update.status,
    errors: update.errors ?? 0,
    duration: Math.max(0, (update.timestamp - update.started) / 1000),
    attrs: update.attrs,
  };
  if (update.did !== undefined) payload.did = update.did;
  if (update.seq !== undefined) payload.seq = update.seq;
  return payload;
}

export interface AggregateBucket {
  started: number;
  did?: string;
  exited?: number;
  errored?: number;
  abnormal?: number;
  unhandled?: number;
  crashed?: number;
}

export function aggregatePayload(attrs: SessionAttrs, buckets: AggregateBucket[]): Record<string, unknown> {
  return {
    attrs,
    aggregates: buckets.map(({ started, ...counts }) => ({
      started: new Date(started).toISOString(),
      ...counts,
    })),
  };
}

/** An envelope of session and aggregate items (payloads as objects, or raw text). */
export function sessionEnvelope(
  items: { type: 'session' | 'sessions' | 'event'; payload: unknown }[],
  header: Record<string, unknown> = { sent_at: new Date().toISOString() },
): string {
  return [
    JSON.stringify(header),
    ...items.flatMap(({ type, payload }) => [
      JSON.stringify({ type }),
      typeof payload === 'string' ? payload : JSON.stringify(payload),
    ]),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Independent expectations

const RANK: Record<Status, number> = { ok: 0, exited: 0, errored: 1, unhandled: 2, abnormal: 3, crashed: 4 };

export interface Figures {
  sessions: number;
  users: number;
  errored_sessions: number;
  crashed_sessions: number;
  abnormal_sessions: number;
  crash_free_sessions: number | null;
  crash_free_users: number | null;
}

/** One session as counted: where, and the worst it reached. */
export interface CountedSession {
  release: string;
  environment: string;
  hourStart: number;
  did?: string;
  rank: number;
  /** How many sessions this entry stands for (aggregates). */
  count: number;
}

/** The class an update's status and errors give, as Sentry ranks them. */
export function rankOf(status: Status, errors = 0): number {
  const rank = RANK[status];
  return rank === 0 && errors > 0 ? 1 : rank;
}

export function expectedFigures(sessions: CountedSession[]): Figures {
  let total = 0;
  let errored = 0;
  let crashed = 0;
  let abnormal = 0;
  const users = new Map<string, boolean>();
  for (const session of sessions) {
    total += session.count;
    if (session.rank === 1 || session.rank === 2) errored += session.count;
    if (session.rank === 3) abnormal += session.count;
    if (session.rank === 4) crashed += session.count;
    if (session.did !== undefined)
      users.set(session.did, (users.get(session.did) ?? false) || session.rank === 4);
  }
  const crashedUsers = [...users.values()].filter(Boolean).length;
  return {
    sessions: total,
    users: users.size,
    errored_sessions: errored,
    crashed_sessions: crashed,
    abnormal_sessions: abnormal,
    crash_free_sessions: total > 0 ? ((total - crashed) / total) * 100 : null,
    crash_free_users: users.size > 0 ? ((users.size - crashedUsers) / users.size) * 100 : null,
  };
}

export function newSid(): string {
  return randomUUID();
}
