import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { TestApp } from './app';
import { hex, Project } from './projects';

export { createProject, hex } from './projects';
export type { Project } from './projects';

/** One item of an envelope: its header (with `length` unless `noLength`) and its bytes. */
export interface Item {
  header: Record<string, unknown>;
  payload: Buffer | string;
  noLength?: boolean;
}

export function attachment(
  filename: string,
  payload: Buffer | string,
  extra: Record<string, unknown> = {},
): Item {
  return { header: { type: 'attachment', filename, ...extra }, payload };
}

export function eventItem(eventId: string, message = 'attachment test'): Item {
  return {
    header: { type: 'event' },
    payload: JSON.stringify({ event_id: hex(eventId), message, level: 'error' }),
  };
}

export function envelope(header: Record<string, unknown>, items: Item[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const item of items) {
    const payload = Buffer.isBuffer(item.payload) ? item.payload : Buffer.from(item.payload);
    const header = item.noLength ? item.header : { length: payload.length, ...item.header };
    parts.push(Buffer.from(`${JSON.stringify(header)}\n`), payload, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

export function sendEnvelope(t: TestApp, project: Project, body: Buffer | string) {
  return t
    .http()
    .post(`/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`)
    .type('application/x-sentry-envelope')
    .send(body);
}

export interface ListedAttachment {
  id: string;
  event_id: string;
  name: string;
  content_type: string;
  attachment_type: string;
  size: number;
  sha256: string;
  download_url: string;
}

export async function listAttachments(
  t: TestApp,
  project: Project,
  eventId: string,
): Promise<ListedAttachment[]> {
  const response = await t
    .api()
    .get(`/api/projects/${project.id}/events/${hex(eventId)}/attachments`)
    .expect(200);
  return response.body.data as ListedAttachment[];
}

/** Downloads through the API as raw bytes. */
export async function download(
  t: TestApp,
  path: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const response = await t
    .api()
    .get(path)
    .buffer(true)
    .parse((res, callback) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => callback(null, Buffer.concat(chunks)));
    });
  return {
    status: response.status,
    headers: response.headers as Record<string, string>,
    body: response.body as Buffer,
  };
}

/** The SHA-256 and size of a download, streamed (for files too large to hold in a test). */
export function hashDownload(
  t: TestApp,
  path: string,
): Promise<{ status: number; sha256: string; size: number }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${t.url}${path}`,
      { headers: { Authorization: `Bearer ${t.token}` } },
      (res) => {
        const hash = createHash('sha256');
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          size += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, sha256: hash.digest('hex'), size }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** What is stored for a project: attachment rows, blob chunk rows, and blobs pending deletion. */
export async function storedFor(db: DataSource, projectId: number) {
  const prefix = `attachments/${projectId}/%`;
  const [[{ rows }], [{ chunks }], [{ pending }]] = await Promise.all([
    db.query('SELECT count(*)::int AS rows FROM attachments WHERE project_id = $1', [projectId]),
    db.query('SELECT count(*)::int AS chunks FROM blob_chunks WHERE key LIKE $1', [prefix]),
    db.query('SELECT count(*)::int AS pending FROM pending_blobs WHERE key LIKE $1', [prefix]),
  ]);
  return { rows: rows as number, chunks: chunks as number, pending: pending as number };
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A real PNG of one colour (what a screenshot attachment is), for the browser to draw. */
export function solidPng(
  width: number,
  height: number,
  [red, green, blue]: [number, number, number],
): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(Array.from({ length: width }, () => [red, green, blue]).flat()),
  ]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
