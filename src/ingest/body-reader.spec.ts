import { UnauthorizedException } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { deflateRawSync, deflateSync, Gunzip, gzipSync } from 'node:zlib';
import { decodeHead, readBody } from './body-reader';
import type { BodySink } from './body-sink';

const BOMB = Buffer.alloc(50 * 1024 * 1024);
Buffer.from('{"dsn":"http://k@h/1"}\n{"type":"attachment"}\n').copy(BOMB);

describe('decodeHead', () => {
  it.each([
    ['gzip', gzipSync(BOMB), 'gzip'],
    ['zlib deflate', deflateSync(BOMB), 'deflate'],
    ['raw deflate', deflateRawSync(BOMB), 'deflate'],
  ] as const)('reads the first line of a %s bomb without decoding it whole', (_, data, encoding) => {
    // What zlib is given and gives back, over every attempt decodeHead makes.
    let output = 0;
    // The module object itself (an ES namespace import is read-only), as body-reader calls it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zlib = require('node:zlib') as Record<string, (buffer: Buffer, options?: object) => Buffer>;
    const spies = ['gunzipSync', 'inflateSync', 'inflateRawSync'].map((name) => {
      const original = zlib[name];
      return jest.spyOn(zlib, name).mockImplementation((buffer, options) => {
        const result = original(buffer, options);
        output += result.length;
        return result;
      });
    });
    let decoded;
    try {
      decoded = decodeHead(data, encoding, 16 * 1024 + 1);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(decoded?.truncated).toBe(true);
    expect(decoded!.head.length).toBeLessThanOrEqual(16 * 1024 + 1);
    expect(decoded!.head.toString().split('\n')[0]).toBe('{"dsn":"http://k@h/1"}');
    // A few attempts of at most the limit each, not the bomb's 50 MiB.
    expect(output).toBeGreaterThan(0);
    expect(output).toBeLessThan(1024 * 1024);
  });

  it('decodes an incomplete stream as far as it goes', () => {
    const data = gzipSync(Buffer.from('{"dsn":"x"}\n{"type":"event"}\n{}\n'));
    const decoded = decodeHead(data.subarray(0, data.length - 12), 'gzip', 1024);
    expect(decoded?.head.toString()).toContain('{"dsn":"x"}\n');
  });

  it('says when the first line is longer than the limit', () => {
    const decoded = decodeHead(gzipSync(Buffer.alloc(100_000, 'a')), 'gzip', 1000);
    expect(decoded).toEqual({ head: expect.any(Buffer), truncated: true });
    expect(decoded!.head.includes(0x0a)).toBe(false);
  });

  it('gives up on data that is not of the encoding', () => {
    expect(decodeHead(Buffer.from('definitely not gzip'), 'gzip', 1000)).toBeUndefined();
  });

  it('passes plain bodies through, cut at the limit', () => {
    expect(decodeHead(Buffer.from('abc\ndef'), 'identity', 5)).toEqual({
      head: Buffer.from('abc\nd'),
      truncated: true,
    });
  });
});

/** A request stand-in: a readable stream with the headers readBody reads. */
function fakeRequest(headers: Record<string, string>, chunks: Buffer[]): IncomingMessage {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

class Collect implements BodySink {
  chunks: Buffer[] = [];
  write(chunk: Buffer): void {
    this.chunks.push(chunk);
  }
  end(): void {}
}

describe('readBody with a first-line check', () => {
  it('finishes a body that had already ended while its first line was being checked', async () => {
    const request = fakeRequest({ 'content-encoding': 'gzip' }, [
      gzipSync(Buffer.from('{"dsn":"x"}\n{"type":"event"}\n{}\n')),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20)); // everything is buffered before reading
    const sink = new Collect();
    const lines: (string | undefined)[] = [];
    await readBody(request, sink, undefined, {
      maxFirstLineBytes: 1024,
      check: async (line) => {
        lines.push(line);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    expect(lines).toEqual(['{"dsn":"x"}']);
    expect(Buffer.concat(sink.chunks).toString()).toBe('{"dsn":"x"}\n{"type":"event"}\n{}\n');
  });

  it('gives up on a body without a first line after a bounded amount of work, however it is cut', async () => {
    // A gzip header whose file-name field runs for 4 MiB decodes to nothing at all.
    const name = Buffer.alloc(4 * 1024 * 1024, 'a');
    const gzip = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 3]), name, Buffer.from([0])]);
    const chunks: Buffer[] = [];
    for (let i = 0; i < gzip.length; i += 1024) chunks.push(gzip.subarray(i, i + 1024));
    const request = fakeRequest({ 'content-encoding': 'gzip' }, chunks);
    // The work is decoding: count the compressed bytes zlib is given, over every attempt, by the
    // synchronous decoders (looking for the first line) and the stream decoder (the rest).
    let decoded = 0;
    // The module object itself (an ES namespace import is read-only), as body-reader calls it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const zlib = require('node:zlib') as Record<string, (...args: unknown[]) => unknown>;
    const gunzipSync = zlib.gunzipSync;
    const streamWrite = Gunzip.prototype.write;
    const spies = [
      jest.spyOn(zlib, 'gunzipSync').mockImplementation((buffer, options) => {
        decoded += (buffer as Buffer).length;
        return gunzipSync(buffer, options);
      }),
      jest.spyOn(Gunzip.prototype, 'write').mockImplementation(function (this: Gunzip, chunk, ...rest) {
        decoded += (chunk as Buffer).length;
        return streamWrite.call(this, chunk, ...rest);
      }),
    ];
    const lines: (string | undefined)[] = [];
    try {
      await expect(
        readBody(request, new Collect(), undefined, {
          maxFirstLineBytes: 16 * 1024,
          check: (line) => {
            lines.push(line);
            throw new UnauthorizedException('missing client key');
          },
        }),
      ).rejects.toBeInstanceOf(UnauthorizedException);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines).toEqual([undefined]);
    // A few attempts on what is held back (at most 64 KiB), not the 4 MiB: decoding ever more of a
    // body as it arrives would be quadratic in it.
    expect(decoded).toBeGreaterThan(0);
    expect(decoded).toBeLessThan(gzip.length / 4);
  });
});
