import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { decodeHead } from './body-reader';

const BOMB = Buffer.alloc(50 * 1024 * 1024);
Buffer.from('{"dsn":"http://k@h/1"}\n{"type":"attachment"}\n').copy(BOMB);

describe('decodeHead', () => {
  it.each([
    ['gzip', gzipSync(BOMB), 'gzip'],
    ['zlib deflate', deflateSync(BOMB), 'deflate'],
    ['raw deflate', deflateRawSync(BOMB), 'deflate'],
  ] as const)('reads the first line of a %s bomb without decoding it whole', (_, data, encoding) => {
    const started = process.cpuUsage();
    const decoded = decodeHead(data, encoding, 16 * 1024 + 1);
    const spent = process.cpuUsage(started);
    expect(decoded?.truncated).toBe(true);
    expect(decoded!.head.length).toBeLessThanOrEqual(16 * 1024 + 1);
    expect(decoded!.head.toString().split('\n')[0]).toBe('{"dsn":"http://k@h/1"}');
    // Decoding 50 MiB takes hundreds of milliseconds.
    expect((spent.user + spent.system) / 1000).toBeLessThan(20);
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
    expect(decodeHead(Buffer.from('abc\ndef'), 'identity', 5)).toEqual({ head: Buffer.from('abc\nd'), truncated: true });
  });
});
