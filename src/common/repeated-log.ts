import type { Logger } from '@nestjs/common';

interface Window {
  until: number;
  suppressed: number;
}

/**
 * Logs an event of interest once per interval and key, with the count of the repeats it held back:
 * an outage that fails every request would otherwise write a line (and a stack) per request.
 * The first occurrence is logged at once; later ones within the interval are only counted, and the
 * next line logged for that key says how many there were.
 */
export class RepeatedLog {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly intervalMs: number,
    private readonly maxKeys = 1_000,
  ) {}

  warn(key: string, message: string, fields?: Record<string, unknown>): boolean {
    return this.write('warn', key, message, fields);
  }

  error(key: string, message: string, fields?: Record<string, unknown>): boolean {
    return this.write('error', key, message, fields);
  }

  /** Returns whether the line was written. */
  private write(
    level: 'warn' | 'error',
    key: string,
    message: string,
    fields: Record<string, unknown> = {},
    now = Date.now(),
  ): boolean {
    const window = this.windows.get(key);
    if (window && now < window.until) {
      window.suppressed++;
      return false;
    }
    if (!window && this.windows.size >= this.maxKeys) this.windows.clear();
    const repeated = window?.suppressed ?? 0;
    this.windows.set(key, { until: now + this.intervalMs, suppressed: 0 });
    const suffix =
      repeated > 0 ? ` (${repeated} more in the last ${Math.round(this.intervalMs / 1000)} s)` : '';
    if (Object.keys(fields).length > 0 || repeated > 0) {
      this.logger[level]({ ...fields, ...(repeated > 0 ? { repeated } : {}) }, `${message}${suffix}`);
    } else {
      this.logger[level](message);
    }
    return true;
  }
}
