/**
 * User feedback in the chaos suite: a lane of `feedback` envelopes beside the event load, through
 * every fault, each about an event the load had acknowledged just before (so that the feedback and
 * its event race through the queue and are linked whichever is stored first), or about an event
 * never sent. At the end: every acknowledged feedback is stored exactly once, none is stored that
 * was never sent, and every feedback whose event is stored is linked to that event's issue.
 */
import { randomUUID } from 'node:crypto';
import { query } from './db';
import { ACK, LoadGenerator, RequestRecord } from './load';
import { sleep } from './processes';

const REQUEST_TIMEOUT_MS = 10_000;

export interface FeedbackCheck {
  sent: number;
  acknowledged: number;
  /** Acknowledged, not stored: by the phase they were sent in. */
  lost: Map<string, number>;
  duplicates: number;
  phantoms: number;
  /** Stored feedback whose event is stored, not linked to that event's issue. */
  unlinked: number;
  passed: boolean;
}

export class FeedbackLoad {
  readonly records: RequestRecord[] = [];
  private running = false;
  private lane: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      url: string;
      headers: Record<string, string>;
      rate: number;
      events: LoadGenerator;
    },
  ) {}

  start(): void {
    this.running = true;
    this.lane = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.lane;
  }

  private async run(): Promise<void> {
    const interval = 1000 / this.options.rate;
    while (this.running) {
      const started = performance.now();
      await this.send();
      await sleep(Math.max(0, interval - (performance.now() - started)));
    }
  }

  /** The latest event the load had acknowledged, or one never sent (every fifth feedback). */
  private associatedEventId(): string {
    const events = this.options.events.records;
    if (this.records.length % 5 !== 0) {
      for (let index = events.length - 1; index >= Math.max(0, events.length - 50); index--) {
        if (events[index].outcome === ACK) return events[index].id;
      }
    }
    return randomUUID();
  }

  private async send(): Promise<void> {
    const id = randomUUID();
    const hexId = id.replace(/-/g, '');
    const record: RequestRecord = { id, phase: this.options.events.phase, outcome: 'PENDING' };
    this.records.push(record);
    const body = [
      JSON.stringify({ event_id: hexId, sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'feedback' }),
      JSON.stringify({
        event_id: hexId,
        type: 'feedback',
        level: 'info',
        timestamp: Date.now() / 1000,
        contexts: {
          feedback: {
            message: `chaos feedback ${this.records.length}`,
            contact_email: 'chaos@example.com',
            associated_event_id: this.associatedEventId().replace(/-/g, ''),
          },
        },
      }),
    ].join('\n');
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: this.options.headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      record.outcome = String(response.status);
      if (record.outcome === ACK && (JSON.parse(text) as { id?: unknown }).id !== hexId)
        record.outcome = '200-badbody';
    } catch (error) {
      if (record.outcome === 'PENDING' || record.outcome === ACK) {
        record.outcome = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      }
    }
  }
}

export async function checkFeedback(
  databaseUrl: string,
  projectId: number,
  load: FeedbackLoad,
): Promise<FeedbackCheck> {
  const rows = await query<{ id: string; n: number }>(
    databaseUrl,
    'SELECT event_id::text AS id, count(*)::int AS n FROM feedback WHERE project_id = $1 GROUP BY event_id',
    [projectId],
  );
  const stored = new Map(rows.map((row) => [row.id, row.n]));
  const [{ unlinked }] = await query<{ unlinked: number }>(
    databaseUrl,
    `SELECT count(*)::int AS unlinked FROM feedback f
       JOIN events e ON e.project_id = f.project_id AND e.id = f.associated_event_id
      WHERE f.project_id = $1 AND f.issue_id IS DISTINCT FROM e.issue_id`,
    [projectId],
  );
  const acknowledged = load.records.filter((record) => record.outcome === ACK);
  const lost = new Map<string, number>();
  for (const record of acknowledged) {
    if (!stored.has(record.id)) lost.set(record.phase, (lost.get(record.phase) ?? 0) + 1);
  }
  const sent = new Set(load.records.map((record) => record.id));
  const duplicates = [...stored.values()].filter((n) => n > 1).length;
  const phantoms = [...stored.keys()].filter((id) => !sent.has(id)).length;
  return {
    sent: load.records.length,
    acknowledged: acknowledged.length,
    lost,
    duplicates,
    phantoms,
    unlinked,
    passed:
      lost.size === 0 && duplicates === 0 && phantoms === 0 && unlinked === 0 && acknowledged.length > 0,
  };
}

export function printFeedbackCheck(check: FeedbackCheck): void {
  const lost = [...check.lost.entries()].map(([phase, n]) => `${n} in ${phase}`).join(', ');
  console.log(
    `feedback: ${check.passed ? 'PASS' : 'FAIL'} — ${check.sent} sent, ${check.acknowledged} acknowledged, ` +
      `${lost ? `LOST ${lost}` : 'none lost'}, ${check.duplicates} stored twice, ${check.phantoms} stored never sent, ` +
      `${check.unlinked} not linked to their stored event's issue`,
  );
}
