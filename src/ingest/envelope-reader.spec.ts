import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { costRatio } from '../../test/helpers/relative-cost';
import { jsonNesting, NESTING_SCAN_FROM_BYTES } from '../common/json-nesting';
import { canonicalUuid, clientKeyFromRequest, keyFromDsn } from './client-key';
import {
  EnvelopeError,
  EnvelopeReader,
  readEnvelope,
  MAX_CLIENT_REPORT_BYTES,
  MAX_EVENT_NESTING,
} from './envelope-reader';
import { StoreBodyReader } from './store-body-reader';

// Real envelopes captured from @sentry/node 10.78 (test/fixtures; the shared capture folder as fallback).
const FIXTURES = [
  join(__dirname, '../../test/fixtures'),
  join(__dirname, '../../../shared/fixtures/sentry-javascript-node-10.78.0'),
].find((dir) => existsSync(join(dir, 'exception-event.envelope')))!;
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

function failure(run: () => unknown): EnvelopeError {
  try {
    run();
  } catch (error) {
    if (error instanceof EnvelopeError) return error;
    throw error;
  }
  throw new Error('expected an EnvelopeError');
}

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
    ['a JSON header that is not an object', '[1,2]\n', 400, /not a JSON object/],
    ['a non-JSON item header', '{}\nnope\n{}\n', 400, /item header is not valid JSON/],
    ['an item header without type', '{}\n{"length":2}\n{}\n', 400, /no type/],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}\n', 400, /non-negative/],
    ['a length past the end', '{}\n{"type":"event","length":100}\n{"a":1}\n', 400, /past the end/],
    ['a length past the end of the last line', '{}\n{"type":"attachment","length":5}', 400, /past the end/],
    ['an event payload that is an array', '{}\n{"type":"event"}\n[1]\n', 400, /not a JSON object/],
    ['an event payload that is a string', '{}\n{"type":"event"}\n"x"\n', 400, /not a JSON object/],
    ['an event payload that is broken JSON', '{}\n{"type":"event"}\n{"a":\n', 400, /not a JSON object/],
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

describe('StoreBodyReader', () => {
  it('keeps an event JSON and its event_id', () => {
    const reader = new StoreBodyReader();
    reader.write(Buffer.from(EVENT));
    reader.end();
    expect(reader.event).toBe(EVENT);
    expect(reader.eventFacts?.eventId).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
  });

  it('rejects empty, non-object and oversized bodies', () => {
    expect(failure(() => new StoreBodyReader().end()).status).toBe(400);
    const array = new StoreBodyReader();
    array.write(Buffer.from('[]'));
    expect(failure(() => array.end()).status).toBe(400);
    expect(failure(() => new StoreBodyReader(10).write(Buffer.from('{"message":"long"}'))).status).toBe(413);
  });
});

describe('client keys', () => {
  const key = '6f1e0c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
  const hex = key.replace(/-/g, '');

  it('finds the key in each place an SDK puts it', () => {
    expect(
      clientKeyFromRequest(
        { 'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${hex}, sentry_client=x/1` },
        undefined,
      ),
    ).toEqual({ key: hex, from: 'x-sentry-auth' });
    expect(clientKeyFromRequest({ authorization: `Sentry sentry_key=${hex}` }, undefined)).toEqual({
      key: hex,
      from: 'authorization',
    });
    expect(clientKeyFromRequest({ authorization: 'Bearer abc' }, undefined)).toBeUndefined();
    expect(clientKeyFromRequest({ 'x-client-auth': key }, undefined)).toEqual({ key, from: 'x-client-auth' });
    expect(
      clientKeyFromRequest({ 'x-client-auth': `Sentry sentry_key=${hex}, sentry_version=7` }, undefined),
    ).toEqual({ key: hex, from: 'x-client-auth' });
    expect(clientKeyFromRequest({}, hex)).toEqual({ key: hex, from: 'query' });
    expect(clientKeyFromRequest({}, undefined)).toBeUndefined();
  });

  it('reads key and project from a DSN', () => {
    expect(keyFromDsn(`https://${hex}@errors.example.com/42`)).toEqual({ key: hex, projectId: 42 });
    expect(keyFromDsn(`http://${hex}:secret@127.0.0.1:8080/prefix/path/7`)).toEqual({
      key: hex,
      projectId: 7,
    });
    expect(keyFromDsn('not a dsn')).toBeUndefined();
    expect(keyFromDsn(42)).toBeUndefined();
  });

  it('accepts UUIDs with or without dashes, in any case', () => {
    expect(canonicalUuid(hex)).toBe(key);
    expect(canonicalUuid(key.toUpperCase())).toBe(key);
    expect(canonicalUuid('6f1e0c2a3b4d-4e5f-8a9b-0c1d2e3f4a5bxx')).toBeUndefined();
    expect(canonicalUuid('not-a-key')).toBeUndefined();
    expect(canonicalUuid(`${hex}0`)).toBeUndefined();
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

describe('event nesting', () => {
  it('measures nesting outside strings only', () => {
    expect(jsonNesting('{"a":[1,{"b":"[[[{{{"}],"c":"\\"["}', 100)).toBe(3);
  });

  it('refuses an event nested deeper than the limit without parsing it', () => {
    const n = 500_000;
    const payload = `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
    const body = Buffer.from(`{}\n{"type":"event","length":${payload.length}}\n${payload}\n`);
    const refuse = () => failure(() => readEnvelope(body));
    // Every text handed to JSON.parse while the envelope is read: its header lines, none of the payload.
    const parsed: string[] = [];
    const parse = JSON.parse;
    const spy = jest.spyOn(JSON, 'parse').mockImplementation((text, reviver) => {
      parsed.push(String(text));
      return parse(text, reviver) as unknown;
    });
    let error: EnvelopeError;
    try {
      error = refuse();
    } finally {
      spy.mockRestore();
    }
    expect(error.status).toBe(400);
    expect(error.message).toBe(`event payload is nested deeper than ${MAX_EVENT_NESTING} levels`);
    expect(parsed.join('').length).toBeLessThan(payload.length / 1000);
    // Reading it whole and refusing it costs a small part of what parsing it would (about a hundredth:
    // V8 parses a megabyte of nesting slowly), both timed here.
    expect(costRatio(refuse, () => JSON.parse(payload), 0.25)).toBeLessThan(0.25);
  });

  it('accepts large events nested as deep as the limit, and small ones nested deeper', () => {
    const pad = `"pad":"${'p'.repeat(NESTING_SCAN_FROM_BYTES)}"`;
    const payload = `{${pad},"a":${'['.repeat(MAX_EVENT_NESTING - 1)}${']'.repeat(MAX_EVENT_NESTING - 1)}}`;
    expect(readEnvelope(Buffer.from(`{}\n{"type":"event"}\n${payload}\n`)).event).toBe(payload);
    const small = `{"a":${'['.repeat(1000)}${']'.repeat(1000)}}`;
    expect(readEnvelope(Buffer.from(`{}\n{"type":"event"}\n${small}\n`)).event).toBe(small);
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
