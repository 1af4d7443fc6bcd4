import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { readBody } from './body-reader';
import type { ItemStream } from './body-sink';
import { EnvelopeReader } from './envelope-reader';

/** Records what an item stream is given. */
class RecordingStream implements ItemStream {
  readonly items: { header: Record<string, unknown>; bytes: Buffer[]; ended: boolean }[] = [];
  wait?: Promise<void>;

  begin(header: Record<string, unknown>): void {
    this.items.push({ header, bytes: [], ended: false });
  }
  data(bytes: Buffer): void {
    this.items[this.items.length - 1].bytes.push(Buffer.from(bytes));
  }
  end(): void {
    this.items[this.items.length - 1].ended = true;
  }
  pressure(): Promise<void> | undefined {
    return this.wait;
  }
}

const BINARY = Buffer.from([0x00, 0x0a, 0xff, 0x0a, 0x7b, 0x0a, 0x0a, 0x42]);

function body(): Buffer {
  return Buffer.concat([
    Buffer.from('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n'),
    Buffer.from(`{"type":"attachment","filename":"a.bin","length":${BINARY.length}}\n`),
    BINARY,
    Buffer.from('\n{"type":"event"}\n{"message":"m"}\n'),
    Buffer.from('{"type":"attachment","filename":"b.txt"}\nno length, to the newline\n'),
    Buffer.from('{"type":"attachment","length":0}\n'),
  ]);
}

describe('EnvelopeReader.streamItems', () => {
  it('hands attachment payloads on in pieces, wherever the chunks split, and keeps the event', () => {
    const whole = body();
    for (let split = 1; split < whole.length; split++) {
      const stream = new RecordingStream();
      const reader = new EnvelopeReader();
      reader.streamItems('attachment', stream);
      reader.write(whole.subarray(0, split));
      reader.write(whole.subarray(split));
      reader.end();
      expect(
        stream.items.map((item) => [
          item.header.filename,
          Buffer.concat(item.bytes).toString('latin1'),
          item.ended,
        ]),
      ).toEqual([
        ['a.bin', BINARY.toString('latin1'), true],
        ['b.txt', 'no length, to the newline', true],
        [undefined, '', true],
      ]);
      expect(reader.event).toBe('{"message":"m"}');
      expect(reader.itemTypes).toEqual(['attachment', 'event', 'attachment', 'attachment']);
    }
  });

  it('refuses an attachment whose length runs past the end', () => {
    const stream = new RecordingStream();
    const reader = new EnvelopeReader();
    reader.streamItems('attachment', stream);
    reader.write(Buffer.from('{}\n{"type":"attachment","length":100}\nonly a few bytes'));
    expect(() => reader.end()).toThrow('item length goes past the end of the envelope');
    expect(stream.items[0].ended).toBe(false);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition();) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function fakeRequest(headers: Record<string, string> = {}): IncomingMessage & PassThrough {
  return Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
}

describe('readBody with backpressure', () => {
  it.each([['identity'], ['gzip']])(
    'stops feeding the sink while it waits, then goes on (%s)',
    async (encoding) => {
      const stream = new RecordingStream();
      let release!: () => void;
      stream.wait = new Promise<void>((resolve) => (release = resolve));
      const reader = new EnvelopeReader();
      reader.streamItems('attachment', stream);
      const request = fakeRequest(encoding === 'gzip' ? { 'content-encoding': 'gzip' } : {});
      const written: number[] = [];
      const write = reader.write.bind(reader);
      reader.write = (chunk: Buffer) => {
        written.push(chunk.length);
        write(chunk);
      };
      const done = readBody(request, reader);
      const whole = body();
      const data = encoding === 'gzip' ? gzipSync(whole) : whole;
      request.write(data.subarray(0, 10));
      request.end(data.subarray(10));
      await until(() => written.length > 0);
      const before = written.length;
      let finished = false;
      void done.then(() => (finished = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(finished).toBe(false); // the body waits for the sink
      expect(written.length).toBe(before); // and nothing more is fed to it meanwhile
      stream.wait = undefined;
      release();
      await done;
      expect(written.reduce((a, b) => a + b, 0)).toBe(whole.length);
      expect(reader.event).toBe('{"message":"m"}');
    },
  );

  it('keeps the body waiting when the wait begins among the chunks held for the first line', async () => {
    const stream = new RecordingStream();
    let release!: () => void;
    stream.wait = new Promise<void>((resolve) => (release = resolve));
    const reader = new EnvelopeReader();
    reader.streamItems('attachment', stream);
    const request = fakeRequest();
    let writes = 0;
    const write = reader.write.bind(reader);
    reader.write = (chunk: Buffer) => {
      writes++;
      write(chunk);
    };
    const done = readBody(request, reader, undefined, {
      check: () => undefined,
      maxFirstLineBytes: 16 * 1024,
    });
    const whole = body();
    request.write(whole.subarray(0, 60)); // the first line and more: held, checked, then written
    await until(() => writes > 0);
    request.write(whole.subarray(60, 80));
    request.end(whole.subarray(80));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes).toBe(1);
    expect(request.isPaused()).toBe(true); // the rest waits in the request, not in memory
    stream.wait = undefined;
    release();
    await done;
    expect(reader.event).toBe('{"message":"m"}');
  });

  it('refuses the body when the sink fails', async () => {
    const stream = new RecordingStream();
    stream.wait = Promise.reject(new Error('storage down'));
    const reader = new EnvelopeReader();
    reader.streamItems('attachment', stream);
    const request = fakeRequest();
    const done = readBody(request, reader);
    request.end(body());
    await expect(done).rejects.toThrow('storage down');
  });
});
