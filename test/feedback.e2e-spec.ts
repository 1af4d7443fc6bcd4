/**
 * User feedback end to end, through the real ingest, digest queue and worker, PostgreSQL and Redis:
 * the `feedback` item (raw and from @sentry/node's captureFeedback), the legacy `user_report` item,
 * the crash-report dialog's script and form, linking to the event's issue whichever comes first,
 * the API (inbox, search, status, pages, issue feedback, counts, delete), the `new_feedback` alert,
 * and the bad inputs: no message, a message over Sentry's limit, a dialog post with a wrong key or
 * a body far over its size.
 */
import { captureFeedback, defaultStackParser, makeNodeTransport, NodeClient, Scope } from '@sentry/node';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FeedbackIntake } from '../src/ingest/feedback-intake';
import { OutcomeFolder } from '../src/outcomes/outcome-folder';
import { RetentionService } from '../src/retention/retention.service';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/queues';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

interface Project {
  id: number;
  client_key: string;
}

interface Feedback {
  id: number;
  event_id: string;
  associated_event_id: string | null;
  issue_id: number | null;
  name: string | null;
  contact_email: string | null;
  message: string;
  url: string | null;
  source: string;
  environment: string | null;
  release: string | null;
  status: string;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');

function envelope(items: [object, string][], header: object = {}): string {
  return [
    JSON.stringify(header),
    ...items.flatMap(([item, payload]) => [JSON.stringify(item), payload]),
  ].join('\n');
}

function eventItem(eventId: string, message = `feedback e2e ${eventId}`): [object, string] {
  return [
    { type: 'event' },
    JSON.stringify({
      event_id: hex(eventId),
      message,
      level: 'error',
      environment: 'production',
      release: 'app@1.2.3',
    }),
  ];
}

function feedbackItem(
  feedbackId: string,
  context: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): [object, string] {
  return [
    { type: 'feedback' },
    JSON.stringify({
      event_id: hex(feedbackId),
      type: 'feedback',
      level: 'info',
      contexts: { feedback: context },
      ...extra,
    }),
  ];
}

describe('user feedback', () => {
  let t: TestApp;
  let project: Project;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({ ALERTS_ALLOW_PRIVATE_NETWORKS: 'true', ALERTS_RETRY_BASE_DELAY_MS: '50' });
    project = await createProject();
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  async function createProject(): Promise<Project> {
    return (
      await t
        .api()
        .post('/api/projects')
        .send({ name: `feedback-${randomUUID().slice(0, 6)}` })
        .expect(201)
    ).body as Project;
  }

  function send(target: Project, body: string) {
    return t
      .http()
      .post(`/api/${target.id}/envelope/?sentry_key=${hex(target.client_key)}`)
      .type('text/plain')
      .send(body);
  }

  async function storedFeedback(target: Project, eventId: string, linked = false): Promise<Feedback> {
    return eventually(async () => {
      const page = await t.api().get(`/api/projects/${target.id}/feedback?limit=1000`).expect(200);
      const found = (page.body.data as Feedback[]).find((row) => row.event_id === hex(eventId));
      return found && (!linked || found.issue_id !== null) ? found : undefined;
    });
  }

  async function issueOf(target: Project, eventId: string): Promise<number> {
    return eventually(async () => {
      const response = await t.api().get(`/api/events/${hex(eventId)}`);
      return response.status === 200 ? (response.body.issue_id as number) : undefined;
    });
  }

  it('stores a feedback item and links it at once to an event stored before', async () => {
    const eventId = randomUUID();
    await send(project, envelope([eventItem(eventId)])).expect(200);
    const issueId = await issueOf(project, eventId);
    const feedbackId = randomUUID();
    const response = await send(
      project,
      envelope(
        [
          feedbackItem(
            feedbackId,
            {
              message: '  The checkout button does nothing  ',
              contact_email: 'jane@example.com',
              name: 'Jane',
              url: 'https://shop.example.com/checkout',
              source: 'widget',
              associated_event_id: hex(eventId),
            },
            { environment: 'staging' },
          ),
        ],
        { event_id: hex(feedbackId) },
      ),
    ).expect(200);
    expect(response.body).toEqual({ id: hex(feedbackId) });
    const stored = await storedFeedback(project, feedbackId, true);
    expect(stored).toMatchObject({
      associated_event_id: hex(eventId),
      issue_id: issueId,
      name: 'Jane',
      contact_email: 'jane@example.com',
      message: 'The checkout button does nothing',
      url: 'https://shop.example.com/checkout',
      source: 'widget',
      environment: 'staging',
      release: 'app@1.2.3',
      status: 'unresolved',
    });
    const ofIssue = await t.api().get(`/api/issues/${issueId}/feedback`).expect(200);
    expect((ofIssue.body.data as Feedback[]).map((row) => row.event_id)).toEqual([hex(feedbackId)]);
  });

  it('links feedback that came before its event when the digest stores the event', async () => {
    const eventId = randomUUID();
    const feedbackId = randomUUID();
    await send(
      project,
      envelope([feedbackItem(feedbackId, { message: 'It crashed first', associated_event_id: eventId })]),
    ).expect(200);
    const waiting = await storedFeedback(project, feedbackId);
    expect(waiting.issue_id).toBeNull();
    await send(project, envelope([eventItem(eventId)])).expect(200);
    const linked = await storedFeedback(project, feedbackId, true);
    expect(linked.issue_id).toBe(await issueOf(project, eventId));
    expect(linked.environment).toBe('production');
  });

  it('links every feedback when feedback and events race through the queue at once', async () => {
    const target = await createProject();
    const pairs = Array.from({ length: 30 }, () => ({ eventId: randomUUID(), feedbackId: randomUUID() }));
    await Promise.all(
      pairs.flatMap(({ eventId, feedbackId }) => [
        send(target, envelope([eventItem(eventId, `race ${eventId.slice(0, 4)}`)])).expect(200),
        send(
          target,
          envelope([feedbackItem(feedbackId, { message: 'race', associated_event_id: eventId })]),
        ).expect(200),
      ]),
    );
    const linked = await eventually(async () => {
      const page = await t.api().get(`/api/projects/${target.id}/feedback?limit=100`).expect(200);
      const rows = page.body.data as Feedback[];
      return rows.length === pairs.length && rows.every((row) => row.issue_id !== null) ? rows : undefined;
    }, 30_000);
    for (const row of linked) {
      expect(row.issue_id).toBe(await issueOf(target, row.associated_event_id as string));
    }
  });

  it('stores a legacy user_report item, and a later report for the same event replaces it', async () => {
    const eventId = randomUUID();
    await send(project, envelope([eventItem(eventId)])).expect(200);
    const issueId = await issueOf(project, eventId);
    const report = (comments: string) =>
      envelope([
        [
          { type: 'user_report' },
          JSON.stringify({ event_id: hex(eventId), name: 'Ann', email: 'ann@example.com', comments }),
        ],
      ]);
    await send(project, report('first words')).expect(200);
    const first = await eventually(async () => {
      const page = await t.api().get(`/api/issues/${issueId}/feedback`).expect(200);
      return (page.body.data as Feedback[]).find((row) => row.source === 'user_report');
    });
    expect(first).toMatchObject({ name: 'Ann', contact_email: 'ann@example.com', message: 'first words' });
    await send(project, report('second thoughts')).expect(200);
    const replaced = await eventually(async () => {
      const page = await t.api().get(`/api/issues/${issueId}/feedback`).expect(200);
      const rows = (page.body.data as Feedback[]).filter((row) => row.source === 'user_report');
      return rows.length === 1 && rows[0].message === 'second thoughts' ? rows[0] : undefined;
    });
    expect(replaced.id).toBe(first.id);
  });

  it('skips feedback without a message or over 4096 characters, counts them, and keeps the rest', async () => {
    const target = await createProject();
    const eventId = randomUUID();
    const kept = randomUUID();
    await send(
      target,
      envelope([
        feedbackItem(randomUUID(), { message: '   ', contact_email: 'x@example.com' }),
        feedbackItem(randomUUID(), { message: 'x'.repeat(4097) }),
        [
          { type: 'user_report' },
          JSON.stringify({ event_id: hex(eventId), name: 'No', email: 'no@example.com' }),
        ],
        feedbackItem(kept, { message: 'y'.repeat(4096) }),
        eventItem(eventId),
      ]),
    ).expect(200);
    await issueOf(target, eventId);
    expect((await storedFeedback(target, kept)).message).toHaveLength(4096);
    await t.app.get(OutcomeFolder).fold();
    const outcomes = await t.api().get(`/api/projects/${target.id}/outcomes`).expect(200);
    const feedbackOutcomes = (
      outcomes.body.totals as { outcome: string; category: string; reason: string; quantity: number }[]
    )
      .filter((total) => total.category === 'feedback')
      .sort((a, b) => a.reason.localeCompare(b.reason));
    expect(feedbackOutcomes).toEqual([
      { outcome: 'invalid', category: 'feedback', reason: 'feedback_empty_message', quantity: 2 },
      { outcome: 'invalid', category: 'feedback', reason: 'feedback_message_too_large', quantity: 1 },
    ]);
    const page = await t.api().get(`/api/projects/${target.id}/feedback`).expect(200);
    expect(page.body.data).toHaveLength(1);
  });

  it('stores captureFeedback of @sentry/node with its associated event', async () => {
    const target = await createProject();
    const client = new NodeClient({
      dsn: `http://${hex(target.client_key)}@127.0.0.1:${t.port}/${target.id}`,
      transport: makeNodeTransport,
      stackParser: defaultStackParser,
      integrations: [],
      release: 'node@2.0.0',
      environment: 'test',
    });
    client.init();
    const scope = new Scope();
    scope.setClient(client);
    const eventId = client.captureException(new Error('node feedback target'), undefined, scope);
    const feedbackId = captureFeedback(
      {
        message: 'Saw an error after saving',
        name: 'Node User',
        email: 'node@example.com',
        associatedEventId: eventId,
      },
      {},
      scope,
    );
    expect(await client.flush(5_000)).toBe(true);
    await client.close(1_000);
    const stored = await storedFeedback(target, feedbackId, true);
    expect(stored).toMatchObject({
      message: 'Saw an error after saving',
      name: 'Node User',
      contact_email: 'node@example.com',
      associated_event_id: hex(eventId),
      release: 'node@2.0.0',
      environment: 'test',
      issue_id: await issueOf(target, eventId),
    });
  });

  it('lists, searches, filters, pages, resolves, counts and deletes feedback', async () => {
    const target = await createProject();
    const eventId = randomUUID();
    await send(target, envelope([eventItem(eventId)])).expect(200);
    const issueId = await issueOf(target, eventId);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [index, id] of ids.entries()) {
      await send(
        target,
        envelope([
          feedbackItem(id, {
            message: `note ${index} ${index === 1 ? 'about 100% of_it' : ''}`,
            associated_event_id: eventId,
          }),
        ]),
      ).expect(200);
    }
    await storedFeedback(target, ids[2], true);
    await eventually(async () => {
      const page = await t.api().get(`/api/issues/${issueId}/feedback`).expect(200);
      return page.body.data.length === 3;
    });
    const first = await t.api().get(`/api/projects/${target.id}/feedback?limit=2`).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await t
      .api()
      .get(`/api/projects/${target.id}/feedback?limit=2&cursor=${first.body.next_cursor as string}`)
      .expect(200);
    expect(second.body).toMatchObject({ next_cursor: null });
    expect([...first.body.data, ...second.body.data].map((row: Feedback) => row.event_id).sort()).toEqual(
      ids.map(hex).sort(),
    );
    // LIKE's wildcards match themselves.
    const searched = await t
      .api()
      .get(`/api/projects/${target.id}/feedback?query=${encodeURIComponent('100% of_')}`)
      .expect(200);
    expect(searched.body.data.map((row: Feedback) => row.event_id)).toEqual([hex(ids[1])]);

    const stored = searched.body.data[0] as Feedback;
    const resolved = await t
      .api()
      .patch(`/api/projects/${target.id}/feedback/${stored.id}`)
      .send({ status: 'resolved' })
      .expect(200);
    expect(resolved.body.status).toBe('resolved');
    const unresolved = await t.api().get(`/api/projects/${target.id}/feedback?status=unresolved`).expect(200);
    expect(unresolved.body.data).toHaveLength(2);
    const counts = await t
      .api()
      .get(`/api/projects/${target.id}/feedback-counts?issue_ids=${issueId},${issueId + 100000}`)
      .expect(200);
    expect(counts.body.data).toEqual([
      { issue_id: issueId, unresolved: 2 },
      { issue_id: issueId + 100000, unresolved: 0 },
    ]);
    await t
      .api()
      .patch(`/api/projects/${target.id}/feedback/${stored.id}`)
      .send({ status: 'done' })
      .expect(400);
    await t.api().get(`/api/projects/${target.id}/feedback?status=open`).expect(400);
    await t.api().get(`/api/projects/${target.id}/feedback?cursor=nonsense!`).expect(400);
    await t.api().get(`/api/projects/${target.id}/feedback-counts?issue_ids=a,b`).expect(400);
    await t.api().delete(`/api/projects/${target.id}/feedback/${stored.id}`).expect(204);
    await t.api().get(`/api/projects/${target.id}/feedback/${stored.id}`).expect(404);
    await t.api().delete(`/api/projects/${target.id}/feedback/${stored.id}`).expect(404);
    // Another project's feedback is not found through this one.
    await t
      .api()
      .get(`/api/projects/${project.id}/feedback/${(unresolved.body.data[0] as Feedback).id}`)
      .expect(404);
    await t.http().get(`/api/projects/${target.id}/feedback`).expect(401);
  });

  it('alerts on new feedback on an issue through the rule channels', async () => {
    const target = await createProject();
    const channel = await t
      .api()
      .post('/api/alert-channels')
      .send({
        name: `feedback hook ${randomUUID().slice(0, 6)}`,
        channel_type: 'webhook',
        config: { url: `${receiver.url}/feedback` },
      })
      .expect(201);
    await t
      .api()
      .post(`/api/projects/${target.id}/alert-rules`)
      .send({ name: 'new feedback', alert_type: 'new_feedback', channel_ids: [channel.body.id] })
      .expect(201);
    const eventId = randomUUID();
    await send(target, envelope([eventItem(eventId, 'feedback alert target')])).expect(200);
    const issueId = await issueOf(target, eventId);
    await send(
      target,
      envelope([feedbackItem(randomUUID(), { message: 'please look', associated_event_id: eventId })]),
    ).expect(200);
    const delivered = await eventually(async () =>
      receiver.received.find(
        (request) => (request.body as { alert_type?: string }).alert_type === 'new_feedback',
      ),
    );
    expect(delivered.body).toMatchObject({ alert_type: 'new_feedback', issue: { id: issueId } });
    const history = await eventually(async () => {
      const listed = await t.api().get(`/api/projects/${target.id}/alert-history`).expect(200);
      return listed.body[0]?.status === 'sent' ? listed.body[0] : undefined;
    });
    expect(history).toMatchObject({ alert_type: 'new_feedback', status: 'sent' });
  });

  it('deletes a feedback with its screenshots', async () => {
    const target = await createProject();
    const feedbackId = randomUUID();
    const pixels = 'screenshot pixels';
    await send(
      target,
      envelope(
        [
          feedbackItem(feedbackId, { message: 'the button is gone' }),
          [{ type: 'attachment', filename: 'screenshot.png', length: pixels.length }, pixels],
        ],
        { event_id: hex(feedbackId) },
      ),
    ).expect(200);
    const stored = await storedFeedback(target, feedbackId);
    const db = t.app.get(DataSource);
    const files = () =>
      db.query<{ blob_key: string }[]>(
        'SELECT blob_key FROM attachments WHERE project_id = $1 AND event_id = $2',
        [target.id, feedbackId],
      );
    const [file] = await files();
    expect(file).toBeDefined();

    await t.api().delete(`/api/projects/${target.id}/feedback/${stored.id}`).expect(204);
    expect(await files()).toEqual([]);
    // The file's blob waits on the pending list for the sweep, as every deleted file's does.
    expect(await db.query('SELECT 1 FROM pending_blobs WHERE key = $1', [file.blob_key])).toHaveLength(1);
  });

  it('deletes feedback with its project retention, and keeps what is younger', async () => {
    const target = await createProject();
    const old = randomUUID();
    const young = randomUUID();
    const day = 86_400_000;
    await t.app.get(FeedbackIntake).enqueue([
      {
        projectId: target.id,
        eventId: old,
        receivedAt: Date.now() - (t.config.EVENT_RETENTION_DAYS + 2) * day,
        message: 'old',
        source: 'api',
      },
      { projectId: target.id, eventId: young, receivedAt: Date.now() - day, message: 'young', source: 'api' },
    ]);
    await storedFeedback(target, old);
    await storedFeedback(target, young);
    const report = await t.app.get(RetentionService).run();
    expect(report.feedbackDeleted).toBeGreaterThanOrEqual(1);
    const page = await t.api().get(`/api/projects/${target.id}/feedback`).expect(200);
    expect(page.body.data.map((row: Feedback) => row.event_id)).toEqual([hex(young)]);
  });

  describe('crash-report dialog', () => {
    const dsnOf = (target: Project, key = target.client_key) =>
      `http://${hex(key)}@127.0.0.1:${t.port}/${target.id}`;
    const dialogUrl = (target: Project, eventId: string, extra = '', key?: string) =>
      `/api/embed/error-page/?dsn=${encodeURIComponent(dsnOf(target, key))}&eventId=${hex(eventId)}${extra}`;

    it('serves its script to another origin, with the texts escaped', async () => {
      const hostile = '</script><img src=x onerror=alert(1)>\u2028"';
      const response = await t
        .http()
        .get(
          dialogUrl(
            project,
            randomUUID(),
            `&title=${encodeURIComponent(hostile)}&name=${encodeURIComponent('Zoë')}&lang=en`,
          ),
        )
        .set('Origin', 'https://app.example.org')
        .expect(200);
      expect(response.headers['content-type']).toMatch(/^text\/javascript/);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.text).not.toContain('</script>');
      expect(response.text).not.toContain('<img');
      expect(response.text).not.toContain('\u2028');
      expect(response.text).toContain('\\u003c/script\\u003e');
      expect(response.text).toContain('Zoë');
    });

    it('refuses a wrong key, a malformed DSN or a missing event id', async () => {
      const other = await createProject();
      const wrongKey = await t
        .http()
        .get(dialogUrl(project, randomUUID(), '', other.client_key))
        .expect(403);
      expect(wrongKey.body).toEqual({ error: expect.stringContaining('unknown client key') });
      await t
        .http()
        .post(dialogUrl(project, randomUUID(), '', other.client_key))
        .type('form')
        .send({ name: 'A', email: 'a@example.com', comments: 'hi' })
        .expect(403);
      expect(
        (
          await t
            .http()
            .get('/api/embed/error-page/?dsn=nonsense&eventId=' + hex(randomUUID()))
            .expect(400)
        ).body,
      ).toEqual({
        error: expect.any(String),
      });
      await t
        .http()
        .get(`/api/embed/error-page/?dsn=${encodeURIComponent(dsnOf(project))}`)
        .expect(400);
    });

    it('stores the posted form, and refuses missing comments or a body far over its size', async () => {
      const eventId = randomUUID();
      await send(project, envelope([eventItem(eventId)])).expect(200);
      const issueId = await issueOf(project, eventId);
      const posted = await t
        .http()
        .post(dialogUrl(project, eventId))
        .set('Origin', 'https://app.example.org')
        .type('form')
        .send({ name: 'Dialog User', email: 'dialog@example.com', comments: 'I clicked save' })
        .expect(200);
      expect(posted.body).toEqual({});
      expect(posted.headers['access-control-allow-origin']).toBe('*');
      const stored = await eventually(async () => {
        const page = await t.api().get(`/api/issues/${issueId}/feedback`).expect(200);
        return (page.body.data as Feedback[]).find((row) => row.source === 'crash_report_dialog');
      });
      expect(stored).toMatchObject({
        name: 'Dialog User',
        contact_email: 'dialog@example.com',
        message: 'I clicked save',
      });

      const missing = await t
        .http()
        .post(dialogUrl(project, eventId))
        .type('form')
        .send({ name: 'Dialog User', email: 'dialog@example.com' })
        .expect(400);
      expect(missing.body).toEqual({ error: 'comments is required' });
      const tooLong = await t
        .http()
        .post(dialogUrl(project, eventId))
        .type('form')
        .send({ name: 'Dialog User', email: 'dialog@example.com', comments: 'z'.repeat(4097) })
        .expect(400);
      expect(tooLong.body.error).toMatch(/longer than 4096/);
      const huge = await t
        .http()
        .post(dialogUrl(project, eventId))
        .type('form')
        .send(`name=a&email=a%40example.com&comments=${'z'.repeat(2 * 1024 * 1024)}`)
        .expect(413);
      expect(huge.body).toEqual({ error: expect.stringContaining('larger than') });
    });
  });
});
