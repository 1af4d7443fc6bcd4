/**
 * An issue's files, found without opening each event: the issue's summary (files, bytes, events,
 * the newest event with any) and each listed event's count, through real ingest and digest.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from './helpers/app';
import {
  attachment,
  createProject,
  envelope,
  eventItem,
  hex,
  Project,
  sendEnvelope,
} from './helpers/attachments';
import { storedEvent } from './helpers/queues';

jest.setTimeout(120_000);

describe("an issue's attachments", () => {
  let t: TestApp;
  let project: Project;

  beforeAll(async () => {
    t = await startTestApp();
    project = await createProject(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Sends an event with these files and waits for the digest to store it; returns its issue. */
  async function send(eventId: string, message: string, files: Buffer[]): Promise<number> {
    const items = [
      eventItem(eventId, message),
      ...files.map((bytes, index) => attachment(`file-${index}.bin`, bytes)),
    ];
    await sendEnvelope(t, project, envelope({ event_id: hex(eventId) }, items)).expect(200);
    return (await storedEvent(t, eventId, 60_000)).issue_id;
  }

  it('counts the files of all its events, names the newest event with any, and counts each listed event', async () => {
    const message = `checkout failed ${randomUUID()}`;
    const withFiles = randomUUID();
    const files = [randomBytes(1000), randomBytes(2000), randomBytes(3000)];
    const issueId = await send(withFiles, message, files);
    const withOne = randomUUID();
    expect(await send(withOne, message, [randomBytes(500)])).toBe(issueId);
    // The newest event, which the issue opens on, has none.
    const withNone = randomUUID();
    expect(await send(withNone, message, [])).toBe(issueId);
    // Another issue's files are not this one's.
    const otherIssue = await send(randomUUID(), `another ${randomUUID()}`, [randomBytes(700)]);
    expect(otherIssue).not.toBe(issueId);

    const summary = await t.api().get(`/api/issues/${issueId}/attachments`).expect(200);
    expect(summary.body).toEqual({ files: 4, events: 2, bytes: 6500, latest_event_id: withOne });

    const listed = await t.api().get(`/api/issues/${issueId}/events`).expect(200);
    const counts = Object.fromEntries(
      (listed.body.data as { id: string; attachment_count: number }[]).map((event) => [
        event.id,
        event.attachment_count,
      ]),
    );
    expect(counts).toEqual({ [withFiles]: 3, [withOne]: 1, [withNone]: 0 });
  });

  it('says none for an issue without files, and 404 for no issue', async () => {
    const issueId = await send(randomUUID(), `plain ${randomUUID()}`, []);
    const summary = await t.api().get(`/api/issues/${issueId}/attachments`).expect(200);
    expect(summary.body).toEqual({ files: 0, events: 0, bytes: 0, latest_event_id: null });
    const missing = await t.api().get('/api/issues/987654321/attachments').expect(404);
    expect(missing.body).toEqual({ error: expect.any(String) });
  });
});
