/** Accepts ISO strings, epoch seconds (Sentry's float timestamps) or epoch milliseconds. */
export function toDate(value: unknown): Date | null {
  if (value === null || value === undefined || value === '') return null;
  let date: Date;
  if (typeof value === 'number') date = new Date(value < 1e11 ? value * 1000 : value);
  else if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) return toDate(Number(value));
  else date = new Date(String(value));
  return Number.isNaN(date.getTime()) ? null : date;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(value: unknown, now = Date.now()): string {
  const date = toDate(value);
  if (!date) return '—';
  const seconds = Math.round((date.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return seconds > 5 ? 'in a few seconds' : 'just now';
  for (const [unit, size] of UNITS) {
    if (abs >= size) {
      const count = Math.round(abs / size);
      const label = `${count} ${unit}${count === 1 ? '' : 's'}`;
      return seconds < 0 ? `${label} ago` : `in ${label}`;
    }
  }
  return 'just now';
}

export function exactTime(value: unknown): string {
  const date = toDate(value);
  if (!date) return '';
  return `${date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  })} (${date.toISOString()})`;
}

export function clockTime(value: unknown): string {
  const date = toDate(value);
  if (!date) return '';
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** navigator.clipboard needs a secure context; plain-http deployments fall back to execCommand. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy path
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Short text for any JSON-ish value (objects as compact JSON). */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Text as a sentence starts: its first letter capitalised (server errors often start in lower case). */
export function capitalise(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * A server message as a sentence: a field name it starts with in words (`retention_days must…` is
 * "Retention days must…"), and its first letter capitalised.
 */
export function sentence(text: string): string {
  return capitalise(text.replace(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?=[\s:])/, (field) => field.replace(/_/g, ' ')));
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
