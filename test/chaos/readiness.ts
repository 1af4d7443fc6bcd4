/**
 * What the api's readiness endpoint (GET /health/ready) says while a fault lasts: polled every couple
 * of seconds, each answer kept with its time, and summed up as runs of like answers for the phase's
 * notes. An answer is its HTTP status (or the connection error), its `status` field and, when given,
 * its `error`, its `degraded` reasons and the state of each of its `checks`.
 */
import { sleep } from './processes';

export interface ReadinessAnswer {
  /** Seconds since the watch started. */
  at: number;
  /** HTTP status, or TIMEOUT / the connection error's code. */
  code: string;
  status?: string;
  /** The body's `error`, when it gives one (cut at 120 characters). */
  error?: string;
  degraded: string[];
  checks: Record<string, string>;
  /** What the fault was doing then (e.g. PostgreSQL down), as the fault tells the watch. */
  tag?: string;
}

interface ReadinessBody {
  status?: unknown;
  error?: unknown;
  degraded?: unknown;
  checks?: Record<string, { status?: unknown } | undefined>;
}

/** One GET of `url`, at most 5 s. */
export async function readiness(url: string, since = Date.now()): Promise<ReadinessAnswer> {
  const answer: ReadinessAnswer = { at: 0, code: '', degraded: [], checks: {} };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    answer.code = String(response.status);
    const body = (await response.json().catch(() => ({}))) as ReadinessBody;
    if (typeof body.status === 'string') answer.status = body.status;
    if (typeof body.error === 'string') answer.error = body.error.slice(0, 120);
    if (Array.isArray(body.degraded)) answer.degraded = body.degraded.map(String);
    for (const [name, check] of Object.entries(body.checks ?? {})) {
      if (typeof check?.status === 'string') answer.checks[name] = check.status;
    }
  } catch (error) {
    const failure = error as { name?: string; cause?: { code?: string } };
    answer.code = failure.name === 'TimeoutError' ? 'TIMEOUT' : (failure.cause?.code ?? 'ERROR');
  }
  answer.at = (Date.now() - since) / 1000;
  return answer;
}

export const describeAnswer = (answer: ReadinessAnswer): string => {
  const checks = Object.entries(answer.checks).map(([name, state]) => `${name} ${state}`);
  return [
    answer.code,
    answer.status ?? '',
    answer.error ? `"${answer.error}"` : '',
    answer.degraded.length > 0 ? `[${answer.degraded.join('; ')}]` : '',
    checks.length > 0 ? `(${checks.join(', ')})` : '',
    answer.tag ? `<${answer.tag}>` : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
};

/** Polls readiness every `intervalMs` until stopped; `tag` says what the fault is doing at each answer. */
export class ReadinessWatch {
  readonly answers: ReadinessAnswer[] = [];
  private running = true;
  private readonly since = Date.now();
  private readonly loop: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly tag: () => string | undefined = () => undefined,
    private readonly intervalMs = 2_000,
  ) {
    this.loop = this.run();
  }

  async stop(): Promise<ReadinessAnswer[]> {
    this.running = false;
    await this.loop;
    return this.answers;
  }

  /** Runs of like answers (numbers aside): `0-12 s: 200 ok ×7; 14-40 s: 200 degraded [...] ×14`. */
  summary(): string {
    const runs: { first: ReadinessAnswer; last: ReadinessAnswer; count: number; shape: string }[] = [];
    for (const answer of this.answers) {
      const shape = describeAnswer(answer).replace(/\d+(\.\d+)?/g, '#');
      const run = runs.at(-1);
      if (run && run.shape === shape) {
        run.last = answer;
        run.count++;
      } else {
        runs.push({ first: answer, last: answer, count: 1, shape });
      }
    }
    if (runs.length === 0) return 'no answer';
    return runs
      .map(
        (run) =>
          `${run.first.at.toFixed(0)}-${run.last.at.toFixed(0)} s: ${describeAnswer(run.first)} ×${run.count}`,
      )
      .join('; ');
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = Date.now();
      const tag = this.tag();
      const answer = await readiness(this.url, this.since);
      answer.tag = tag;
      this.answers.push(answer);
      while (this.running && Date.now() - started < this.intervalMs) await sleep(100);
    }
  }
}

/**
 * After a fault: polls readiness every second until it answers 200 "ok", at most `timeoutMs`; a note
 * of how long that took, or of what it still said.
 */
export async function readyAgain(url: string, timeoutMs: number): Promise<string> {
  const since = Date.now();
  let last: ReadinessAnswer | undefined;
  while (Date.now() - since < timeoutMs) {
    last = await readiness(url, since);
    if (last.code === '200' && last.status === 'ok') {
      return `readiness back to 200 ok ${last.at.toFixed(0)} s after the fault ended`;
    }
    await sleep(1_000);
  }
  return `readiness NOT back to 200 ok within ${timeoutMs / 1000} s after the fault ended; last: ${last ? describeAnswer(last) : 'none'}`;
}
