/**
 * Replaces the secrets of an event by `[Filtered]` before anything of it is stored, grouped,
 * searched, counted or alerted on (the digest runs it right after normalising; see
 * docs/data-protection.md). Pure and linear in the size of the event: every string is read by the
 * scanners of text-scanners.ts, which use no regular expressions.
 */
import type { NormalisedEvent, ScrubbedValue } from '../../events/normalised-event';
import { FILTERED, ScrubRule } from './scrub-rules';
import { KeyClassifier, KeySettings } from './sensitive-keys';
import {
  Finding,
  findBearerTokens,
  findCardNumbers,
  findIbans,
  findIpAddresses,
  findPemKeys,
  findSensitivePairs,
  findUrlPasswords,
} from './text-scanners';
import { findAwsAccessKeyIds, findJwts, findStripeKeys } from './token-scanners';

export interface ScrubSettings extends KeySettings {
  /** Off: the event is stored as sent. */
  enabled: boolean;
  /** The user's IP address, and IP addresses inside any value. */
  scrubIpAddresses: boolean;
}

export const DEFAULT_SCRUB_SETTINGS: ScrubSettings = {
  enabled: true,
  scrubIpAddresses: false,
  sensitiveFields: [],
  safeFields: [],
};

/** Paths recorded per event, at most; the count of the rest is kept. */
export const MAX_RECORDED_PATHS = 200;
/** Strings that look like JSON are parsed and walked up to this size; longer ones are read as text. */
const MAX_EMBEDDED_JSON = 256 * 1024;
/** Nesting walked inside embedded JSON; deeper documents are read as text instead. */
const MAX_DEPTH = 32;

/** Top-level fields that hold no data an SDK user controls. */
const UNSCRUBBED_FIELDS = new Set([
  'event_id',
  'timestamp',
  'level',
  'platform',
  'sdk',
  'debug_meta',
  'scrubbed',
]);

class TooDeep extends Error {}

/**
 * Strings found clean before are not read again: events of one application repeat most of their
 * text (source lines, contexts, module names, breadcrumbs), so this saves most of the scanning. Only
 * short strings are remembered, and the set is emptied when full, which bounds its memory.
 */
const CLEAN_TEXT_LIMIT = 20_000;
const CLEAN_TEXT_MAX_LENGTH = 512;

export class EventScrubber {
  private readonly keys: KeyClassifier;
  private readonly cleanTexts = new Set<string>();
  /** Key names checked for secrets written in them (a card number used as a key), and the verdict. */
  private readonly secretKeyNames = new Map<string, ScrubRule | null>();

  constructor(readonly settings: ScrubSettings) {
    this.keys = new KeyClassifier(settings);
  }

  /** Scrubs the event in place; `event.scrubbed` lists what was replaced, if anything was. */
  scrub(event: NormalisedEvent): void {
    if (!this.settings.enabled) return;
    const run = new ScrubRun(this, this.keys, this.settings.scrubIpAddresses);
    const record = event as unknown as Record<string, unknown>;
    for (const field of Object.keys(record)) {
      if (UNSCRUBBED_FIELDS.has(field)) continue;
      run.enter(field);
      if (field === 'user') run.scrubUser(event);
      else if (field === 'request') run.scrubRequest(event);
      else record[field] = run.value(record[field], 0);
      run.leave();
    }
    if (run.found.length > 0) event.scrubbed = run.summary();
  }

  /**
   * Scrubs fields of a record that is not an event (a user feedback's message and page URL) in
   * place, by the same rules; returns what was replaced (empty: nothing).
   */
  scrubFields<T extends object>(record: T, fields: readonly (keyof T & string)[]): ScrubbedValue[] {
    if (!this.settings.enabled) return [];
    const run = new ScrubRun(this, this.keys, this.settings.scrubIpAddresses);
    const values = record as Record<string, unknown>;
    for (const field of fields) {
      if (values[field] === undefined) continue;
      run.enter(field);
      values[field] = run.value(values[field], 0);
      run.leave();
    }
    return run.found.length > 0 ? run.summary() : [];
  }

  isKnownClean(text: string): boolean {
    return this.cleanTexts.has(text);
  }

  rememberClean(text: string): void {
    if (text.length > CLEAN_TEXT_MAX_LENGTH) return;
    if (this.cleanTexts.size >= CLEAN_TEXT_LIMIT) this.cleanTexts.clear();
    this.cleanTexts.add(text);
  }

  /** Why a key name is itself a secret, or null; remembered, as key names repeat. */
  secretInKeyName(key: string, find: (text: string) => Finding[]): ScrubRule | null {
    const known = this.secretKeyNames.get(key);
    if (known !== undefined) return known;
    const findings = key.length < 8 ? [] : find(key);
    const rule = findings.length > 0 ? findings[0].rule : null;
    if (this.secretKeyNames.size >= CLEAN_TEXT_LIMIT) this.secretKeyNames.clear();
    this.secretKeyNames.set(key, rule);
    return rule;
  }
}

/** One event's walk: what it found, and where. */
class ScrubRun {
  readonly found: ScrubbedValue[] = [];
  /** Values recorded (each once, whatever the number of its rules), and those past the limit. */
  private recorded = 0;
  private omitted = 0;
  /** The path of the value being read, one segment per level; joined only for what is recorded. */
  private readonly segments: (string | number)[] = [];

  private readonly classifyKey = (key: string): ScrubRule | null =>
    this.keys.isSafe(key) ? null : this.keys.classify(key);
  private readonly classifyCookie = (key: string): ScrubRule | null => this.keys.classifyCookie(key);

  constructor(
    private readonly scrubber: EventScrubber,
    private readonly keys: KeyClassifier,
    private readonly scrubIps: boolean,
  ) {}

  enter(segment: string | number): void {
    this.segments.push(segment);
  }

  leave(): void {
    this.segments.pop();
  }

  summary(): ScrubbedValue[] {
    if (this.omitted > 0)
      this.found.push({ path: `(${this.omitted} more)`, rule: this.found[this.found.length - 1].rule });
    return this.found;
  }

  scrubUser(event: NormalisedEvent): void {
    const user = event.user;
    if (!user) return;
    if (this.scrubIps && typeof user.ip_address === 'string' && user.ip_address !== '') {
      delete user.ip_address;
      this.noteAt('ip_address', 'ip_address');
    }
    event.user = this.object(user, 0, false) as NormalisedEvent['user'];
  }

  scrubRequest(event: NormalisedEvent): void {
    const request = event.request;
    if (!request) return;
    for (const key of Object.keys(request)) {
      const value = request[key];
      this.enter(key);
      if ((key === 'headers' || key === 'query_string') && Array.isArray(value))
        request[key] = this.pairs(value, 1);
      else if (key === 'cookies') request[key] = this.cookies(value);
      else request[key] = this.entry(key, value, 0, false);
      this.leave();
    }
  }

  value(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value, depth, false);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DEPTH) throw new TooDeep();
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        this.enter(index);
        value[index] = this.value(value[index], depth + 1);
        this.leave();
      }
      return value;
    }
    return this.object(value as Record<string, unknown>, depth + 1, false);
  }

  private object(
    record: Record<string, unknown>,
    depth: number,
    cookieNames: boolean,
  ): Record<string, unknown> {
    for (const key of Object.keys(record)) {
      this.enter(key);
      record[key] = this.entry(key, record[key], depth, cookieNames);
      this.leave();
      const secretName = this.scrubber.secretInKeyName(key, (text) => this.findInText(text, false));
      if (secretName !== null) this.renameKey(record, key, secretName);
    }
    return record;
  }

  /** The value under a key: all of it when the key names a secret, else what is inside it. */
  private entry(key: string, value: unknown, depth: number, cookieNames: boolean): unknown {
    if (this.keys.isSafe(key)) return value;
    const rule = cookieNames ? this.keys.classifyCookie(key) : this.keys.classify(key);
    if (rule !== null) return this.filtered(value, rule);
    return this.value(value, depth);
  }

  /** A key that is itself a secret (a card number used as a map key) is renamed. */
  private renameKey(record: Record<string, unknown>, key: string, rule: ScrubRule): void {
    let renamed = FILTERED;
    for (let suffix = 2; Object.hasOwn(record, renamed); suffix++) renamed = `${FILTERED} ${suffix}`;
    record[renamed] = record[key];
    delete record[key];
    this.noteAt(renamed, rule);
  }

  private filtered(value: unknown, rule: ScrubRule): unknown {
    if (value === null || value === undefined || value === '' || value === FILTERED) return value;
    this.note(rule);
    return FILTERED;
  }

  /** `[name, value]` pairs (headers and query strings as some SDKs send them). */
  private pairs(list: unknown[], depth: number): unknown[] {
    return list.map((pair, index) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
        this.enter(index);
        const scrubbed = this.value(pair, depth);
        this.leave();
        return scrubbed;
      }
      const [name, value] = pair as [string, unknown];
      if (this.keys.isSafe(name)) return pair;
      const rule = this.keys.classify(name);
      this.enter(name);
      const scrubbed = rule !== null ? this.filtered(value, rule) : this.value(value, depth);
      this.leave();
      return [name, scrubbed];
    });
  }

  /** `request.cookies`: an object of cookies, or the raw `a=1; b=2` header text. */
  private cookies(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value, 1, true);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return this.object(value as Record<string, unknown>, 1, true);
    return this.value(value, 1);
  }

  private text(text: string, depth: number, cookieNames: boolean): string {
    if (text.length < 4 || text === FILTERED) return text;
    if (!cookieNames && this.scrubber.isKnownClean(text)) return text;
    const embedded = this.embeddedJson(text, depth);
    if (embedded !== null) return embedded;
    // Already filtered values match again (`password=[Filtered]`): scrubbing twice changes nothing.
    const findings = this.findInText(text, cookieNames).filter(
      (finding) =>
        finding.end - finding.start !== FILTERED.length || !text.startsWith(FILTERED, finding.start),
    );
    if (findings.length === 0) {
      if (!cookieNames) this.scrubber.rememberClean(text);
      return text;
    }
    return this.replace(text, findings);
  }

  /** A string holding a JSON document (a request body, a logged payload) is walked as data. */
  private embeddedJson(text: string, depth: number): string | null {
    const first = text.charCodeAt(0);
    if ((first !== 123 && first !== 91) || text.length > MAX_EMBEDDED_JSON) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    if (parsed === null || typeof parsed !== 'object') return null;
    const before = this.found.length + this.omitted;
    const level = this.segments.length;
    try {
      this.value(parsed, depth + 1);
    } catch (error) {
      if (!(error instanceof TooDeep)) throw error;
      this.segments.length = level;
      return null;
    }
    if (this.found.length + this.omitted === before) {
      this.scrubber.rememberClean(text);
      return text;
    }
    return JSON.stringify(parsed);
  }

  private findInText(text: string, cookieNames: boolean): Finding[] {
    const findings: Finding[] = [];
    const long = text.length >= 13;
    if (long) {
      let digits = 0;
      for (let index = 0; index < text.length && digits < 13; index++) {
        const code = text.charCodeAt(index);
        if (code >= 48 && code <= 57) digits++;
      }
      if (digits >= 13) findCardNumbers(text, findings);
      if (digits >= 2 && text.length >= 15) findIbans(text, findings);
    }
    if (text.includes('-----BEGIN ')) findPemKeys(text, findings);
    if (text.includes('earer') || text.includes('EARER')) findBearerTokens(text, findings);
    if (text.includes('://')) findUrlPasswords(text, findings);
    if (text.includes('eyJ')) findJwts(text, findings);
    if (text.includes('k_live_') || text.includes('k_test_')) findStripeKeys(text, findings);
    if (text.includes('AKIA') || text.includes('ASIA')) findAwsAccessKeyIds(text, findings);
    if (text.includes('=') || text.includes(':'))
      findSensitivePairs(text, cookieNames ? this.classifyCookie : this.classifyKey, findings);
    if (this.scrubIps && (text.includes('.') || text.includes(':'))) findIpAddresses(text, findings);
    return findings;
  }

  private replace(text: string, findings: Finding[]): string {
    findings.sort((left, right) => left.start - right.start || right.end - left.end);
    let result = '';
    let position = 0;
    const rules = new Set<ScrubRule>();
    for (const finding of findings) {
      if (finding.end <= position) continue;
      const start = Math.max(finding.start, position);
      result += text.slice(position, start) + FILTERED;
      position = finding.end;
      rules.add(finding.rule);
    }
    result += text.slice(position);
    this.note(...rules);
    return result;
  }

  /**
   * Records the value at the current path, once per rule that matched it. Past the limit only the
   * values are counted (`(N more)`), not their rules.
   */
  private note(...rules: ScrubRule[]): void {
    if (this.recorded >= MAX_RECORDED_PATHS) {
      this.omitted++;
      return;
    }
    this.recorded++;
    const path = this.segments.join('.');
    for (const rule of rules) this.found.push({ path, rule });
  }

  /** Records a value one level below the current path. */
  private noteAt(segment: string, rule: ScrubRule): void {
    this.enter(segment);
    this.note(rule);
    this.leave();
  }
}
