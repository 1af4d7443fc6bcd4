/**
 * Cron check-ins in the chaos suite: a lane of `check_in` envelopes beside the event load, through
 * every fault, each a run of its own (its own check_in_id, status ok, with the monitor_config that
 * keeps the monitor). At the end: every acknowledged check-in is stored exactly once, none is stored
 * that was never sent. Beside it, a monitor due every minute that never checks in again after its
 * first run: the clock's ticks, stopped by the faults (the PostgreSQL outage lasts several expected
 * runs), must still record its missed runs once each, in order, one a minute without gaps, and
 * open one incident, not one per run.
 */
import { randomUUID } from 'node:crypto';
import { query } from './db';
import { ACK, LoadGenerator, RequestRecord } from './load';
import { sleep } from './processes';

const REQUEST_TIMEOUT_MS = 10_000;
const LANE_SLUG = 'chaos-runs';
const SILENT_SLUG = 'chaos-silent';
const MINUTE_MS = 60_000;

export interface CheckInCheck {
  sent: number;
  acknowledged: number;
  /** Acknowledged, not stored: by the phase they were sent in. */
  lost: Map<string, number>;
  phantoms: number;
  /** The silent monitor's missed runs, and what is wrong with them (empty: in order, once each). */
  missed: number;
  missedProblems: string[];
  passed: boolean;
}

export class CheckInLoad {
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

  /** The silent monitor's one check-in, then the lane. */
  async start(): Promise<void> {
    const response = await this.post(
      this.envelope(randomUUID(), SILENT_SLUG, {
        schedule: { type: 'crontab', value: '* * * * *' },
        checkin_margin: 1,
      }),
    );
    if (response !== ACK)
      throw new Error(`check-in lane: the api answered ${response} to the silent monitor's check-in`);
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

  private envelope(id: string, slug: string, config: object): string {
    return [
      JSON.stringify({ sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'check_in' }),
      JSON.stringify({
        check_in_id: id.replace(/-/g, ''),
        monitor_slug: slug,
        status: 'ok',
        duration: 0.5,
        environment: 'production',
        monitor_config: config,
      }),
    ].join('\n');
  }

  private async post(body: string): Promise<string> {
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: this.options.headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      await response.text();
      return String(response.status);
    } catch (error) {
      return (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    }
  }

  private async send(): Promise<void> {
    const id = randomUUID();
    const record: RequestRecord = { id, phase: this.options.events.phase, outcome: 'PENDING' };
    this.records.push(record);
    record.outcome = await this.post(
      this.envelope(id, LANE_SLUG, { schedule: { type: 'crontab', value: '0 * * * *' }, checkin_margin: 60 }),
    );
  }
}

export async function checkCheckIns(
  databaseUrl: string,
  projectId: number,
  load: CheckInLoad,
): Promise<CheckInCheck> {
  const rows = await query<{ id: string }>(
    databaseUrl,
    `SELECT c.id::text AS id FROM cron_check_ins c JOIN cron_monitors m ON m.id = c.monitor_id
      WHERE m.project_id = $1 AND m.slug = $2`,
    [projectId, LANE_SLUG],
  );
  const stored = new Set(rows.map((row) => row.id));
  const acknowledged = load.records.filter((record) => record.outcome === ACK);
  const lost = new Map<string, number>();
  for (const record of acknowledged) {
    if (!stored.has(record.id)) lost.set(record.phase, (lost.get(record.phase) ?? 0) + 1);
  }
  const sent = new Set(load.records.map((record) => record.id));
  const phantoms = [...stored].filter((id) => !sent.has(id)).length;

  // The silent monitor: one missed run a minute, each once, in order, and one incident.
  const missed = await query<{ expected_at: Date }>(
    databaseUrl,
    `SELECT c.expected_at FROM cron_check_ins c JOIN cron_monitors m ON m.id = c.monitor_id
      WHERE m.project_id = $1 AND m.slug = $2 AND c.status = 'missed' ORDER BY c.expected_at`,
    [projectId, SILENT_SLUG],
  );
  const missedProblems: string[] = [];
  for (let i = 1; i < missed.length; i++) {
    const gap = missed[i].expected_at.getTime() - missed[i - 1].expected_at.getTime();
    if (gap !== MINUTE_MS) {
      missedProblems.push(
        `${missed[i - 1].expected_at.toISOString()} then ${missed[i].expected_at.toISOString()}`,
      );
    }
  }
  if (missed.length === 0) missedProblems.push('no missed run recorded');
  const [state] = await query<{ consecutive_failures: number; incident_open: boolean }>(
    databaseUrl,
    `SELECT e.consecutive_failures, e.incident_open FROM cron_monitor_environments e
       JOIN cron_monitors m ON m.id = e.monitor_id WHERE m.project_id = $1 AND m.slug = $2`,
    [projectId, SILENT_SLUG],
  );
  if (!state?.incident_open) missedProblems.push('no incident open');
  if (state && state.consecutive_failures !== missed.length) {
    missedProblems.push(`${state.consecutive_failures} failures counted for ${missed.length} missed runs`);
  }
  const issues = await query<{ n: number }>(
    databaseUrl,
    `SELECT count(*)::int AS n FROM issues WHERE project_id = $1 AND to_jsonb(issues) ->> 'kind' = 'cron'`,
    [projectId],
  );
  if (issues[0].n > 1) missedProblems.push(`${issues[0].n} issues opened, one expected`);
  return {
    sent: load.records.length,
    acknowledged: acknowledged.length,
    lost,
    phantoms,
    missed: missed.length,
    missedProblems,
    passed: lost.size === 0 && phantoms === 0 && acknowledged.length > 0 && missedProblems.length === 0,
  };
}

export function printCheckInCheck(check: CheckInCheck): void {
  const lost = [...check.lost.entries()].map(([phase, n]) => `${n} in ${phase}`).join(', ');
  console.log(
    `check-ins: ${check.passed ? 'PASS' : 'FAIL'} — ${check.sent} sent, ${check.acknowledged} acknowledged, ` +
      `${lost ? `LOST ${lost}` : 'none lost'}, ${check.phantoms} stored never sent; silent monitor: ` +
      `${check.missed} missed runs${check.missedProblems.length ? `, ${check.missedProblems.join('; ')}` : ', once each, in order, one incident'}`,
  );
}
