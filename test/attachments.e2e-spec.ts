/**
 * Attachments end to end, stored in PostgreSQL (the default): envelopes through the real ingest,
 * files of every attachment type listed and downloaded byte for byte, the limits and their 413s, a
 * lying length, a dropped connection, a large file streamed with bounded memory, permissions,
 * retention and the project's deletion, and the real @sentry/node SDK's scope.addAttachment.
 */
import { defaultStackParser, makeNodeTransport, NodeClient, Scope } from '@sentry/node';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { DataSource } from 'typeorm';
import { BlobSweeper } from '../src/storage/blob-sweeper';
import { ATTACHMENT_HIGH_WATER_BYTES, attachmentBytesHeld } from '../src/ingest/attachment-intake';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { RetentionService } from '../src/retention/retention.service';
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
  storedFor,
} from './helpers/attachments';
import { as, expectStatus, invitedAccount } from './helpers/members';
import { eventually, storedEvent } from './helpers/queues';

jest.setTimeout(120_000);

describe('attachments (PostgreSQL storage)', () => {
  let t: TestApp;
  let db: DataSource;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    project = await createProject(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('stores files of every attachment type with their event, lists them and serves them byte for byte', async () => {
    const eventId = randomUUID();
    const minidump = Buffer.concat([Buffer.from('MDMP'), randomBytes(300_000)]); // newlines inside, binary
    const files = [
      attachment('log.txt', 'line one\nline two\n', { content_type: 'text/plain' }),
      attachment('crash.dmp', minidump, { attachment_type: 'event.minidump' }),
      attachment('report.crash', 'Incident Identifier: X', {
        attachment_type: 'event.applecrashreport',
        content_type: 'text/plain',
      }),
      attachment('view-hierarchy.json', '{"rendering_system":"compose","windows":[]}', {
        attachment_type: 'event.view_hierarchy',
        content_type: 'application/json',
      }),
      attachment('CrashContext.runtime-xml', '<FGenericCrashContext/>', {
        attachment_type: 'unreal.context',
        content_type: 'application/xml',
      }),
      attachment('screenshot.png', randomBytes(70_000), { content_type: 'image/png' }),
      attachment('empty.bin', Buffer.alloc(0)),
    ];
    const body = envelope({ event_id: hex(eventId) }, [eventItem(eventId), ...files]);
    const answer = await sendEnvelope(t, project, body).expect(200);
    expect(answer.body).toEqual({ id: hex(eventId) });

    // Stored before the answer: listed at once, before the digest has even stored the event.
    const listed = await listAttachments(t, project, eventId);
    expect(listed.map((file) => [file.name, file.attachment_type, file.content_type, file.size])).toEqual([
      ['log.txt', 'event.attachment', 'text/plain', 18],
      ['crash.dmp', 'event.minidump', 'application/octet-stream', minidump.length],
      ['report.crash', 'event.applecrashreport', 'text/plain', 22],
      ['view-hierarchy.json', 'event.view_hierarchy', 'application/json', 43],
      ['CrashContext.runtime-xml', 'unreal.context', 'application/xml', 23],
      ['screenshot.png', 'event.attachment', 'image/png', 70_000],
      ['empty.bin', 'event.attachment', 'application/octet-stream', 0],
    ]);
    for (const [index, file] of listed.entries()) {
      const sent = Buffer.isBuffer(files[index].payload)
        ? files[index].payload
        : Buffer.from(files[index].payload);
      expect(file.sha256).toBe(sha256(sent));
      const got = await download(t, file.download_url);
      expect(got.status).toBe(200);
      expect(got.body.equals(sent)).toBe(true);
      expect(got.headers['content-type']).toBe(file.content_type);
      expect(got.headers['content-disposition']).toBe(
        `attachment; filename="${file.name}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      );
      expect(got.headers['x-content-type-options']).toBe('nosniff');
      expect(got.headers['content-security-policy']).toContain("default-src 'none'");
      expect(got.headers['content-security-policy']).toContain('sandbox');
    }
    await storedEvent(t, eventId, 30_000);
  });

  it('lists an event\'s files in the order they were sent, also when their ids gain a digit', async () => {
    // Ids 10^k - 1 and 10^k next: ordered as text, the second would come first.
    const [{ last }] = (await db.query(`SELECT last_value::text AS last FROM attachments_id_seq`)) as {
      last: string;
    }[];
    const boundary = 10n ** BigInt(last.length + 1);
    await db.query(`SELECT setval('attachments_id_seq', $1::bigint)`, [String(boundary - 2n)]);
    const eventId = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [attachment('first.txt', 'one'), attachment('second.txt', 'two')]),
    ).expect(200);
    const listed = await listAttachments(t, project, eventId);
    expect(listed.map((file) => file.name)).toEqual(['first.txt', 'second.txt']);
  });

  it('sanitises what a hostile header says before it is stored or sent back', async () => {
    const eventId = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [
        attachment('../../x"; y\r\n.html', '<script>alert(1)</script>', {
          content_type: 'text/html\r\nSet-Cookie: a=b',
          attachment_type: 'nope nope',
        }),
        attachment('page.html', '<script>alert(2)</script>', { content_type: 'text/html' }),
      ]),
    ).expect(200);
    const [hostile, html] = await listAttachments(t, project, eventId);
    expect(hostile).toMatchObject({
      name: 'x"; y.html',
      content_type: 'application/octet-stream',
      attachment_type: 'event.attachment',
    });
    const got = await download(t, hostile.download_url);
    expect(got.headers['content-disposition']).toBe(
      `attachment; filename="x__ y.html"; filename*=UTF-8''x%22%3B%20y.html`,
    );
    expect(got.headers['set-cookie']).toBeUndefined();
    // An HTML file keeps its type but is a download in a sandbox, never a page of this origin.
    const page = await download(t, html.download_url);
    expect(page.headers['content-type']).toBe('text/html');
    expect(page.headers['content-disposition']).toMatch(/^attachment;/);
    expect(page.headers['content-security-policy']).toContain('sandbox');
  });

  it('keeps attachments sent without the event, under the envelope header event id, and a resend once', async () => {
    const eventId = randomUUID();
    const body = envelope({ event_id: hex(eventId) }, [attachment('later.txt', 'sent apart from its event')]);
    await sendEnvelope(t, project, body).expect(200);
    await sendEnvelope(t, project, body).expect(200); // the SDK retries: same file, stored once
    expect((await listAttachments(t, project, eventId)).map((file) => file.name)).toEqual(['later.txt']);
    // The resend's blob is deleted (at once, or by the sweep).
    await t.app.get(BlobSweeper).sweep();
    const rows: { count: number }[] = await db.query(
      `SELECT count(DISTINCT key)::int AS count FROM blob_chunks WHERE key IN (
         SELECT blob_key FROM attachments WHERE event_id = $1) OR key IN (SELECT key FROM pending_blobs)`,
      [eventId],
    );
    expect(rows[0].count).toBe(1);
  });

  it('drops attachments that name no event, and counts them', async () => {
    const other = await createProject(t);
    await sendEnvelope(t, other, envelope({}, [attachment('orphan.txt', 'no event')])).expect(200);
    expect(await storedFor(db, other.id)).toEqual({ rows: 0, chunks: 0, pending: 0 });
    await t.app.get(OutcomeFolder).fold();
    const outcomes = await t.api().get(`/api/projects/${other.id}/outcomes`).expect(200);
    expect(outcomes.body.totals).toContainEqual({
      outcome: 'invalid',
      category: 'attachment',
      reason: 'missing_event_id',
      quantity: 1,
    });
  });

  it('refuses a lying length with 400 and stores nothing', async () => {
    const liar = await createProject(t);
    const eventId = randomUUID();
    // Longer than what follows: the envelope ends inside the attachment.
    const tooLong = Buffer.concat([
      Buffer.from(`${JSON.stringify({ event_id: hex(eventId) })}\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'a.bin', length: 5_000_000 })}\n`),
      randomBytes(600_000),
    ]);
    const first = await sendEnvelope(t, liar, tooLong).expect(400);
    expect(first.body.error).toBe('item length goes past the end of the envelope');
    // Shorter: the rest of the file is read as the next item header.
    const tooShort = Buffer.concat([
      Buffer.from(`${JSON.stringify({ event_id: hex(eventId) })}\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'b.bin', length: 10 })}\n`),
      Buffer.from('0123456789 and then more bytes than it said\n'),
    ]);
    const second = await sendEnvelope(t, liar, tooShort).expect(400);
    expect(second.body.error).toBe('item header is not valid JSON');
    expect(await storedFor(db, liar.id)).toEqual({ rows: 0, chunks: 0, pending: 0 });
  });

  it('stores nothing of an upload whose connection drops in the middle of an attachment', async () => {
    const dropped = await createProject(t);
    const eventId = randomUUID();
    const head = Buffer.concat([
      Buffer.from(`${JSON.stringify({ event_id: hex(eventId) })}\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'first.txt', length: 5 })}\nhello\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', filename: 'cut.bin', length: 4_000_000 })}\n`),
      randomBytes(2_000_000),
    ]);
    const socket = connect(t.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /api/${dropped.id}/envelope/?sentry_key=${hex(dropped.client_key)} HTTP/1.1\r\n` +
        `Host: 127.0.0.1\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: 4000300\r\n\r\n`,
    );
    socket.write(head);
    // The first file is written, and the second is on its way, when the connection drops.
    await eventually(async () => {
      const stored = await storedFor(db, dropped.id);
      return stored.pending === 2 && stored.chunks >= 3;
    }, 10_000);
    socket.destroy();
    await eventually(async () => {
      const stored = await storedFor(db, dropped.id);
      return (
        stored.rows === 0 && stored.chunks === 0 && stored.pending === 0 && attachmentBytesHeld.now === 0
      );
    }, 10_000);
  });

  it('streams a large attachment with bounded memory, and serves it back intact', async () => {
    const eventId = randomUUID();
    const size = 80 * 1024 * 1024;
    const block = randomBytes(16 * 1024); // repeats: gzip sends ~80 MiB in a megabyte or so
    const expected = createHash('sha256');
    attachmentBytesHeld.peak = attachmentBytesHeld.now;

    function* parts(): Generator<Buffer> {
      yield Buffer.from(`${JSON.stringify({ event_id: hex(eventId) })}\n`);
      yield Buffer.from(
        `${JSON.stringify({ type: 'attachment', filename: 'big.dmp', attachment_type: 'event.minidump', length: size })}\n`,
      );
      for (let sent = 0; sent < size; sent += block.length) {
        expected.update(block);
        yield block;
      }
      yield Buffer.from('\n');
    }
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `${t.url}/api/${project.id}/envelope/?sentry_key=${hex(project.client_key)}`,
        {
          method: 'POST',
          headers: { 'Content-Encoding': 'gzip', 'Content-Type': 'application/x-sentry-envelope' },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      pipeline(Readable.from(parts()), createGzip({ level: 1 }), request).catch(reject);
    });
    expect(status).toBe(200);
    // What ingest held on its way to the store never passed about a megabyte (the high-water mark
    // and one decoded chunk), not the 80 MiB of the file. (The process's RSS is no measure here:
    // it grows with garbage not yet collected, which the next collection frees.)
    expect(attachmentBytesHeld.peak).toBeGreaterThan(ATTACHMENT_HIGH_WATER_BYTES / 2);
    expect(attachmentBytesHeld.peak).toBeLessThanOrEqual(ATTACHMENT_HIGH_WATER_BYTES + 64 * 1024);

    const [file] = await listAttachments(t, project, eventId);
    expect(file).toMatchObject({ name: 'big.dmp', size, sha256: expected.digest('hex') });
    const served = await hashDownload(t, file.download_url);
    expect(served).toEqual({ status: 200, sha256: file.sha256, size });
  });

  it('lets whoever sees the project download, and nobody else', async () => {
    const eventId = randomUUID();
    await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(eventId) }, [attachment('secret.txt', 'for the team')]),
    ).expect(200);
    const [file] = await listAttachments(t, project, eventId);
    const owner = as(t, { token: t.token });
    const team = await expectStatus(
      owner.post('/api/teams').send({ name: `team-${randomUUID().slice(0, 6)}` }),
      201,
    );
    await expectStatus(owner.put(`/api/teams/${team.body.id}/projects/${project.id}`), 204);
    const insider = await invitedAccount(t, owner, 'viewer', { teamIds: [team.body.id] });
    const outsider = await invitedAccount(t, owner, 'viewer');
    const listPath = `/api/projects/${project.id}/events/${hex(eventId)}/attachments`;

    await expectStatus(as(t, { token: insider.token }).get(listPath), 200);
    const downloaded = await expectStatus(as(t, { token: insider.token }).get(file.download_url), 200);
    expect(downloaded.text ?? downloaded.body.toString()).toBe('for the team');
    await expectStatus(as(t, { token: outsider.token }).get(listPath), 404);
    await expectStatus(as(t, { token: outsider.token }).get(file.download_url), 404);
    await t.http().get(file.download_url).expect(401);
    // Another project's id, or another event's, does not reach the file.
    const elsewhere = await createProject(t);
    await t
      .api()
      .get(file.download_url.replace(`/projects/${project.id}/`, `/projects/${elsewhere.id}/`))
      .expect(404);
    await t
      .api()
      .get(file.download_url.replace(hex(eventId), hex(randomUUID())))
      .expect(404);
    const bad = await t.api().get(`/api/projects/${project.id}/events/not-a-uuid/attachments`).expect(400);
    expect(bad.body).toEqual({ error: 'id must be a UUID' });
  });

  it('deletes attachments with their event at retention, and with their project', async () => {
    const kept = await createProject(t);
    const old = randomUUID();
    const recent = randomUUID();
    await sendEnvelope(
      t,
      kept,
      envelope({ event_id: hex(old) }, [attachment('old.txt', randomBytes(600_000))]),
    ).expect(200);
    await sendEnvelope(
      t,
      kept,
      envelope({ event_id: hex(recent) }, [attachment('new.txt', 'recent')]),
    ).expect(200);
    // The old one arrived 91 days ago (retention is 90 days by default).
    await db.query(`UPDATE attachments SET received_at = now() - interval '91 days' WHERE event_id = $1`, [
      old,
    ]);
    const report = await t.app.get(RetentionService).run();
    expect(report.attachmentsDeleted).toBeGreaterThanOrEqual(1);
    expect(report.blobsDeleted).toBeGreaterThanOrEqual(1);
    expect((await listAttachments(t, kept, old)).length).toBe(0);
    expect((await listAttachments(t, kept, recent)).map((file) => file.name)).toEqual(['new.txt']);
    expect(await storedFor(db, kept.id)).toEqual({ rows: 1, chunks: 1, pending: 0 });

    await t.api().delete(`/api/projects/${kept.id}`).expect(204);
    expect((await storedFor(db, kept.id)).rows).toBe(0);
    await t.app.get(BlobSweeper).sweep();
    expect(await storedFor(db, kept.id)).toEqual({ rows: 0, chunks: 0, pending: 0 });
  });

  it('deletes the attachments of the events an issue deletion takes', async () => {
    const owner = await createProject(t);
    const gone = randomUUID();
    const stays = randomUUID();
    for (const [eventId, message] of [
      [gone, 'deleted issue'],
      [stays, 'another issue'],
    ]) {
      await sendEnvelope(
        t,
        owner,
        envelope({ event_id: hex(eventId) }, [eventItem(eventId, message), attachment('f.txt', message)]),
      ).expect(200);
    }
    const { issue_id: issueId } = await storedEvent(t, gone, 30_000);
    await storedEvent(t, stays, 30_000);
    await t.api().delete(`/api/issues/${issueId}`).expect(204);
    expect(await listAttachments(t, owner, gone)).toEqual([]);
    expect((await listAttachments(t, owner, stays)).map((file) => file.name)).toEqual(['f.txt']);
    await t.app.get(BlobSweeper).sweep();
    expect(await storedFor(db, owner.id)).toEqual({ rows: 1, chunks: 1, pending: 0 });
  });

  it('sweeps blobs that an interrupted upload staged and never committed', async () => {
    const crashed = await createProject(t);
    const key = `attachments/${crashed.id}/${randomUUID()}`;
    // What a process that died between writing a blob and recording it leaves behind.
    await db.query(`INSERT INTO pending_blobs (key, delete_after) VALUES ($1, now() + interval '1 hour')`, [
      key,
    ]);
    await db.query(`INSERT INTO blob_chunks (key, seq, data) VALUES ($1, 0, '\\x00')`, [key]);
    await t.app.get(BlobSweeper).sweep();
    expect((await storedFor(db, crashed.id)).chunks).toBe(1); // still within the hour an upload may take
    await db.query(`UPDATE pending_blobs SET delete_after = now() - interval '1 second' WHERE key = $1`, [
      key,
    ]);
    await t.app.get(BlobSweeper).sweep();
    expect(await storedFor(db, crashed.id)).toEqual({ rows: 0, chunks: 0, pending: 0 });
  });

  it('receives scope.addAttachment from @sentry/node, text and binary, intact', async () => {
    const sdkProject = await createProject(t);
    const dsn = `http://${hex(sdkProject.client_key)}@127.0.0.1:${t.port}/${sdkProject.id}`;
    const client = new NodeClient({
      dsn,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
    });
    const scope = new Scope();
    scope.setClient(client);
    const binary = randomBytes(200_000);
    scope.addAttachment({ filename: 'notes.txt', data: 'héllo from the SDK\n', contentType: 'text/plain' });
    scope.addAttachment({ filename: 'state.bin', data: binary });
    const eventId = scope.captureException(new Error('with attachments'));
    expect(await client.flush(10_000)).toBe(true);

    const listed = await listAttachments(t, sdkProject, eventId);
    expect(listed.map((file) => [file.name, file.content_type, file.attachment_type])).toEqual([
      ['notes.txt', 'text/plain', 'event.attachment'],
      ['state.bin', 'application/octet-stream', 'event.attachment'],
    ]);
    expect((await download(t, listed[0].download_url)).body.toString('utf8')).toBe('héllo from the SDK\n');
    expect((await download(t, listed[1].download_url)).body.equals(binary)).toBe(true);
    await storedEvent(t, hex(eventId), 30_000);
  });
});

describe('attachment limits', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({
      ATTACHMENT_MAX_BYTES: '100000',
      ATTACHMENTS_MAX_BYTES_PER_ENVELOPE: '150000',
      ATTACHMENT_QUOTA_BYTES_PER_PROJECT: '250000',
    });
    db = t.app.get(DataSource);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers 413 naming the limit, stores nothing of the envelope, and counts it', async () => {
    const project = await createProject(t);
    const eventId = randomUUID();
    const header = { event_id: hex(eventId) };

    const declared = await sendEnvelope(
      t,
      project,
      envelope(header, [eventItem(eventId), attachment('a.bin', randomBytes(100_001))]),
    ).expect(413);
    expect(declared.body.error).toBe('attachment is larger than 100000 bytes (ATTACHMENT_MAX_BYTES)');
    // Without a length, the limit is found while streaming, after a first file was written.
    const streamed = await sendEnvelope(
      t,
      project,
      envelope(header, [
        attachment('fine.txt', 'x'.repeat(50_000)),
        { header: { type: 'attachment', filename: 'b.txt' }, payload: 'y'.repeat(100_001), noLength: true },
      ]),
    ).expect(413);
    expect(streamed.body.error).toBe('attachment is larger than 100000 bytes (ATTACHMENT_MAX_BYTES)');
    const total = await sendEnvelope(
      t,
      project,
      envelope(header, [
        attachment('one.bin', randomBytes(90_000)),
        attachment('two.bin', randomBytes(90_000)),
      ]),
    ).expect(413);
    expect(total.body.error).toBe(
      'attachments of the envelope are larger than 150000 bytes (ATTACHMENTS_MAX_BYTES_PER_ENVELOPE)',
    );
    expect(await storedFor(db, project.id)).toEqual({ rows: 0, chunks: 0, pending: 0 });

    // The quota counts what the project has stored: two envelopes of 90 KB fit, a third does not.
    for (let i = 0; i < 2; i++) {
      const id = randomUUID();
      await sendEnvelope(
        t,
        project,
        envelope({ event_id: hex(id) }, [attachment(`q${i}.bin`, randomBytes(90_000))]),
      ).expect(200);
    }
    const third = randomUUID();
    const quota = await sendEnvelope(
      t,
      project,
      envelope({ event_id: hex(third) }, [eventItem(third), attachment('q2.bin', randomBytes(90_000))]),
    ).expect(413);
    expect(quota.body.error).toBe(
      "attachments would pass the project's quota of 250000 bytes (ATTACHMENT_QUOTA_BYTES_PER_PROJECT)",
    );
    expect(await storedFor(db, project.id)).toEqual({ rows: 2, chunks: 2, pending: 0 });

    await t.app.get(OutcomeFolder).fold();
    const outcomes = await t.api().get(`/api/projects/${project.id}/outcomes`).expect(200);
    expect(outcomes.body.totals).toContainEqual({
      outcome: 'invalid',
      category: 'attachment',
      reason: 'too_large',
      quantity: 4,
    });
  });
});
