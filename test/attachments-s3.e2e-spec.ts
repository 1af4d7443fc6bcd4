/**
 * Attachments in S3-compatible object storage (BLOB_STORAGE=s3), against moto's server mode started
 * on a free loopback port: files stored and served intact (a large one as a multipart upload), a
 * dropped upload leaving no object behind, retention deleting the objects, source map bundles
 * uploaded by sentry-cli stored there and used to resolve frames, and a storage outage answered 503
 * while events without attachments are still accepted.
 */
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { DataSource } from 'typeorm';
import { BlobSweeper } from '../src/storage/blob-sweeper';
import { RetentionService } from '../src/retention/retention.service';
import { BlobStore } from '../src/storage/blob-store';
import { startTestApp, TestApp } from './helpers/app';
import {
  attachment,
  createProject,
  download,
  envelope,
  eventItem,
  hashDownload,
  hex,
  listAttachments,
  Project,
  sendEnvelope,
  sha256,
} from './helpers/attachments';
import { eventually, storedEvent } from './helpers/queues';
import { buildApp, injectedDebugId, runSentryCli } from './helpers/sourcemap-app';
import { S3Server, s3ServerMissing } from './helpers/s3-server';

jest.setTimeout(120_000);

const missing = s3ServerMissing();
if (missing) console.warn(missing);
const describeWithS3 = missing ? describe.skip : describe;

describeWithS3('attachments (S3-compatible storage)', () => {
  const server = new S3Server();
  const bucket = `attachments-${randomUUID().slice(0, 8)}`;
  const prefix = 'tracker/';
  let t: TestApp;
  let s3: S3Client;
  let db: DataSource;
  let project: Project;

  async function objectKeys(projectId: number): Promise<string[]> {
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}attachments/${projectId}/` }),
    );
    return (listed.Contents ?? []).map((object) => object.Key!);
  }

  beforeAll(async () => {
    await server.start();
    await server.createBucket(bucket);
    s3 = server.client();
    t = await startTestApp(server.settings(bucket, prefix));
    db = t.app.get(DataSource);
    project = await createProject(t, 's3');
  });

  afterAll(async () => {
    s3?.destroy();
    await t?.close();
    await server.stop();
  });

  it('stores files as objects and serves them intact, a large one in parts', async () => {
    expect(t.app.get(BlobStore).backend).toBe('s3');
    const eventId = randomUUID();
    const small = Buffer.from('a small text file\n');
    const large = randomBytes(12 * 1024 * 1024 + 123); // three parts of a multipart upload
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [
        eventItem(eventId),
        attachment('small.txt', small, { content_type: 'text/plain' }),
        attachment('large.dmp', large, { attachment_type: 'event.minidump' }),
      ]),
    ).expect(200);
    const [first, second] = await listAttachments(t, project, eventId);
    expect((await download(t, first.download_url)).body.equals(small)).toBe(true);
    expect(await hashDownload(t, second.download_url)).toEqual({
      status: 200,
      sha256: sha256(large),
      size: large.length,
    });
    expect((await objectKeys(project.id)).length).toBe(2);
    // Nothing of the PostgreSQL store is used.
    const [{ chunks }] = await db.query(`SELECT count(*)::int AS chunks FROM blob_chunks WHERE key LIKE $1`, [
      `attachments/${project.id}/%`,
    ]);
    expect(chunks).toBe(0);
  });

  it('leaves no object and no unfinished upload behind a dropped connection', async () => {
    const dropped = await createProject(t, 's3-drop');
    const head = Buffer.concat([
      Buffer.from(`${JSON.stringify({ event_id: hex(randomUUID()) })}\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'first.txt', length: 5 })}\nhello\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'cut.bin', length: 15_000_000 })}\n`),
      randomBytes(7 * 1024 * 1024), // past one part: a multipart upload is under way
    ]);
    const socket = connect(t.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /api/${dropped.id}/envelope/?sentry_key=${hex(dropped.client_key)} HTTP/1.1\r\n` +
        `Host: 127.0.0.1\r\nContent-Length: 15100000\r\n\r\n`,
    );
    socket.write(head);
    // The first file is an object, and a part of the second is uploaded, when the connection drops.
    await eventually(async () => {
      const uploads = await s3.send(
        new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: `${prefix}attachments/${dropped.id}/` }),
      );
      return (await objectKeys(dropped.id)).length === 1 && (uploads.Uploads ?? []).length === 1;
    }, 15_000);
    socket.destroy();
    await eventually(async () => {
      const uploads = await s3.send(
        new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: `${prefix}attachments/${dropped.id}/` }),
      );
      const [{ pending }] = await db.query(
        `SELECT count(*)::int AS pending FROM pending_blobs WHERE key LIKE $1`,
        [`attachments/${dropped.id}/%`],
      );
      return (
        (await objectKeys(dropped.id)).length === 0 && (uploads.Uploads ?? []).length === 0 && pending === 0
      );
    }, 15_000);
  });

  it('deletes the objects with their event at retention', async () => {
    const expiring = await createProject(t, 's3-retention');
    const eventId = randomUUID();
    await sendEnvelope(
      t,
      expiring,
      envelope({ event_id: hex(eventId) }, [attachment('old.txt', 'old')]),
    ).expect(200);
    expect((await objectKeys(expiring.id)).length).toBe(1);
    await db.query(`UPDATE attachments SET received_at = now() - interval '91 days' WHERE project_id = $1`, [
      expiring.id,
    ]);
    await t.app.get(RetentionService).run();
    expect(await objectKeys(expiring.id)).toEqual([]);
    expect(await listAttachments(t, expiring, eventId)).toEqual([]);
  });

  it('keeps the files of source map bundles there too, resolves frames with them, deletes them with the bundle', async () => {
    const shop = await createProject(t, 's3-maps');
    const { slug } = (await t.api().get(`/api/projects/${shop.id}`).expect(200)).body as { slug: string };
    const dir = await mkdtemp(join(tmpdir(), 's3-maps-'));
    try {
      const app = await buildApp(dir);
      const cli = { url: t.url, token: t.token, project: slug, home: dir };
      expect((await runSentryCli('3.x', ['sourcemaps', 'inject', app.dist], cli)).code).toBe(0);
      expect((await runSentryCli('3.x', ['sourcemaps', 'upload', app.dist], cli)).code).toBe(0);
      const debugId = await injectedDebugId(app.map);
      const rows: { blob_key: string | null; has_data: boolean }[] = await db.query(
        'SELECT blob_key, data IS NOT NULL AS has_data FROM artifact_files WHERE project_id = $1',
        [shop.id],
      );
      expect(rows).toHaveLength(2);
      expect(rows.every((row) => row.blob_key !== null && !row.has_data)).toBe(true);
      const objects = async () =>
        (
          (
            await s3.send(
              new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}artifacts/${shop.id}/` }),
            )
          ).Contents ?? []
        ).length;
      expect(await objects()).toBe(2);

      // An event thrown in the bundle resolves through the map read from the object storage.
      const lines = (await readFile(app.js, 'utf8')).split('\n');
      const line = lines.findIndex((text) => text.includes('Cart is empty'));
      const column = lines[line].lastIndexOf('throw', lines[line].indexOf('Cart is empty')) + 1;
      const eventId = hex(randomUUID());
      const url = 'https://shop.example.com/assets/main.js';
      await t
        .http()
        .post(`/api/${shop.id}/store/?sentry_key=${hex(shop.client_key)}`)
        .send({
          event_id: eventId,
          platform: 'javascript',
          exception: {
            values: [
              {
                type: 'Error',
                value: 'Cart is empty',
                stacktrace: {
                  frames: [{ abs_path: url, filename: url, lineno: line + 1, colno: column, in_app: true }],
                },
              },
            ],
          },
          debug_meta: { images: [{ type: 'sourcemap', code_file: url, debug_id: debugId }] },
        })
        .expect(200);
      const event = await storedEvent(t, eventId, 30_000);
      const frames = (event.exception as { values: { stacktrace: { frames: { filename: string }[] } }[] })
        .values[0].stacktrace.frames;
      expect(frames[frames.length - 1].filename).toMatch(/cart\.ts$/);

      const [bundle] = (await t.api().get(`/api/projects/${shop.id}/artifact-bundles`).expect(200)).body
        .data as {
        id: string;
      }[];
      await t.api().delete(`/api/projects/${shop.id}/artifact-bundles/${bundle.id}`).expect(204);
      await t.app.get(BlobSweeper).sweep();
      expect(await objects()).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers 503 while the storage is down, stores nothing, and still takes events without attachments', async () => {
    await server.stop();
    const eventId = randomUUID();
    const refused = await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [eventItem(eventId), attachment('during-outage.txt', 'x')]),
    ).expect(503);
    expect(refused.body).toEqual({ error: 'attachment storage unavailable, try again later' });
    expect(await listAttachments(t, project, eventId)).toEqual([]);
    const plain = randomUUID();
    await sendEnvelope(t, project, envelope({ event_id: hex(plain) }, [eventItem(plain)])).expect(200);
    // What the refused envelope staged is deleted by the sweep once the storage is back.
    await server.start(Number(new URL(server.endpoint).port));
    await server.createBucket(bucket);
    await t.app.get(BlobSweeper).sweep();
    const [{ pending }] = await db.query(
      `SELECT count(*)::int AS pending FROM pending_blobs WHERE key LIKE $1`,
      [`attachments/${project.id}/%`],
    );
    expect(pending).toBe(0);
  });
});
