import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { thrownBy } from '../../test/helpers/thrown';
import { EnvelopeError } from './envelope-error';

const failure = (run: () => unknown) => thrownBy(EnvelopeError, run);
import { EnvelopeReader, readEnvelope } from './envelope-reader';
import { MAX_CLIENT_REPORT_BYTES } from './small-items';

// Real envelopes captured from @sentry/node 10.78 (test/fixtures; the shared capture folder as fallback).
const FIXTURES = [
  join(__dirname, '../../test/fixtures'),
  join(__dirname, '../../../shared/fixtures/sentry-javascript-node-10.78.0'),
].find((dir) => existsSync(join(dir, 'exception-event.envelope')))!;
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

/** Feeds the body in pieces of `size` bytes, as a slow socket would. */
function readInChunks(body: Buffer, size: number): EnvelopeReader {
  const reader = new EnvelopeReader();
  for (let i = 0; i < body.length; i += size) reader.write(body.subarray(i, i + size));
  reader.end();
  return reader;
}

const EVENT = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","message":"hi"}';

describe('EnvelopeReader', () => {
  describe('fixtures from @sentry/node 10', () => {
    it.each([1, 7, 64, 100_000])('reads the exception event (chunks of %i bytes)', (size) => {
      const body = fixture('exception-event.envelope');
      const reader = readInChunks(body, size);
      expect(reader.header?.event_id).toBe('b216050c5fa44553abf1b94b8ddb884c');
      expect(reader.itemTypes).toEqual(['event']);
      const event = JSON.parse(reader.event!);
      expect(event.exception.values[0].type).toBe('TypeError');
      // The payload is passed on as the text the SDK sent.
      expect(body.toString()).toContain(reader.event!.trim());
    });

    it('reads the message event', () => {
      const reader = readEnvelope(fixture('message-event.envelope'));
      expect(reader.header?.event_id).toBe('c51a5dce077c48ddb0cb337ad844b874');
      expect(reader.eventFacts?.eventId).toBe('c51a5dce077c48ddb0cb337ad844b874');
      expect(JSON.parse(reader.event!).message).toBe('hello world 123');
    });

    it('reads a session-only envelope without an event', () => {
      const reader = readEnvelope(fixture('session.envelope'));
      expect(reader.itemTypes).toEqual(['session']);
      expect(reader.event).toBeUndefined();
      expect(reader.header?.event_id).toBeUndefined();
    });
  });

  it('reads payloads with a length, which may contain newlines, with or without a trailing newline', () => {
    const attachment = 'line one\nline two\n';
    const body = `{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"attachment","length":${Buffer.byteLength(attachment)}}\n${attachment}\n{"type":"event","length":${EVENT.length}}\n${EVENT}`;
    for (const text of [body, `${body}\n`]) {
      for (const size of [1, 5, 1000]) {
        const reader = readInChunks(Buffer.from(text), size);
        expect(reader.itemTypes).toEqual(['attachment', 'event']);
        expect(reader.event).toBe(EVENT);
      }
    }
  });

  it('counts length in bytes, not characters', () => {
    const payload = '{"message":"héllo wörld ✓"}';
    const body = `{}\n{"type":"event","length":${Buffer.byteLength(payload)}}\n${payload}\n{"type":"session"}\n{}\n`;
    expect(readEnvelope(Buffer.from(body)).event).toBe(payload);
  });

  it('reads payloads up to the next newline, tolerates empty lines and CRLF', () => {
    const body = `{}\n\n{"type":"session"}\n{"sid":"x"}\n\n\n{"type":"event"}\r\n${EVENT}\r\n\n`;
    const reader = readEnvelope(Buffer.from(body));
    expect(reader.itemTypes).toEqual(['session', 'event']);
    expect(JSON.parse(reader.event!).message).toBe('hi');
  });

  it('accepts a header-only envelope and an item header on the last line', () => {
    expect(readEnvelope(Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}')).itemTypes).toEqual(
      [],
    );
    expect(readEnvelope(Buffer.from('{}\n{"type":"client_report","length":0}')).itemTypes).toEqual([
      'client_report',
    ]);
  });

  it('accepts and drops every non-event item type', () => {
    const types = [
      'attachment',
      'session',
      'sessions',
      'client_report',
      'transaction',
      'span',
      'profile',
      'replay_event',
      'replay_recording',
      'check_in',
      'log',
      'user_report',
      'something_new',
    ];
    const body = `{}\n${types.map((type) => `{"type":"${type}"}\n{"x":1}\n`).join('')}`;
    const reader = readEnvelope(Buffer.from(body));
    expect(reader.itemTypes).toEqual(types);
    expect(reader.event).toBeUndefined();
  });

  it('keeps only the first event item', () => {
    const body = `{}\n{"type":"event"}\n${EVENT}\n{"type":"event"}\n{"message":"second"}\n`;
    expect(JSON.parse(readEnvelope(Buffer.from(body)).event!).message).toBe('hi');
  });

  it.each([
    ['an empty body', '', 400, /empty/],
    ['a non-JSON header', 'not json\n{"type":"event"}\n{}\n', 400, /envelope header is not valid JSON/],
    ['a non-JSON item header', '{}\nnope\n{}\n', 400, /item header is not valid JSON/],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}\n', 400, /non-negative/],
    ['a length past the end', '{}\n{"type":"event","length":100}\n{"a":1}\n', 400, /past the end/],
    ['a length past the end of the last line', '{}\n{"type":"attachment","length":5}', 400, /past the end/],
    ['an event payload that is an array', '{}\n{"type":"event"}\n[1]\n', 400, /not a JSON object/],
    ['an empty event payload', '{}\n{"type":"event","length":0}\n', 400, /not a JSON object/],
    ['a header line that never ends', `{"x":"${'a'.repeat(70_000)}"}`, 400, /too long/],
  ])('rejects %s', (_name, body, status, message) => {
    const error = failure(() => readEnvelope(Buffer.from(body)));
    expect(error.status).toBe(status);
    expect(error.message).toMatch(message);
  });

  it('rejects an event item over 1 MiB as soon as it is known (413)', () => {
    const big = `{"message":"${'x'.repeat(1024 * 1024)}"}`;
    const declared = failure(() =>
      new EnvelopeReader().write(Buffer.from(`{}\n{"type":"event","length":${big.length}}\n`)),
    );
    expect(declared.status).toBe(413);
    const streamed = failure(() => readInChunks(Buffer.from(`{}\n{"type":"event"}\n${big}\n`), 64 * 1024));
    expect(streamed.status).toBe(413);
    // A large attachment is fine: only event items are limited (and only kept).
    const attachment = 'x'.repeat(3 * 1024 * 1024);
    const reader = readInChunks(
      Buffer.from(
        `{}\n{"type":"attachment","length":${attachment.length}}\n${attachment}\n{"type":"event"}\n${EVENT}\n`,
      ),
      65536,
    );
    expect(reader.event).toBe(EVENT);
  });
});

describe('EnvelopeReader limits', () => {
  it('refuses more items than the cap', () => {
    const items = Array.from({ length: 4 }, () => '{"type":"session"}\n{}').join('\n');
    const error = failure(() =>
      readEnvelope(Buffer.from(`{}\n${items}\n`), {
        maxEventBytes: 1024,
        maxHeaderLineBytes: 1024,
        maxItems: 3,
      }),
    );
    expect(error.status).toBe(413);
    expect(error.message).toBe('envelope has more than 3 items');
  });
});

describe('EnvelopeReader: client reports', () => {
  const REPORT =
    '{"timestamp":1767000000,"discarded_events":[{"reason":"before_send","category":"error","quantity":1}]}';

  it('keeps each client report payload beside the event, with or without a length, in any chunking', () => {
    const body = Buffer.from(
      [
        '{}',
        JSON.stringify({ type: 'client_report', length: Buffer.byteLength(REPORT) }),
        REPORT,
        '{"type":"event"}',
        EVENT,
        '{"type":"client_report"}',
        REPORT,
      ].join('\n'),
    );
    for (const size of [1, 7, body.length]) {
      const reader = readInChunks(body, size);
      expect(reader.clientReports).toEqual([REPORT, REPORT]);
      expect(reader.event).toBe(EVENT);
    }
  });

  it('skips what goes past the envelope’s budget for reports, keeping its place as undefined', () => {
    const large = `{"pad":"${'x'.repeat(MAX_CLIENT_REPORT_BYTES)}"}`;
    const body = Buffer.from(
      [
        '{}',
        '{"type":"client_report"}',
        large,
        JSON.stringify({ type: 'client_report', length: Buffer.byteLength(large) }),
        large,
        '{"type":"client_report"}',
        REPORT,
        '{"type":"event"}',
        EVENT,
      ].join('\n'),
    );
    for (const size of [1_000, body.length]) {
      const reader = readInChunks(body, size);
      expect(reader.clientReports).toEqual([undefined, undefined, REPORT]);
      expect(reader.event).toBe(EVENT);
    }
  });
});
