import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { DataSource, FindOptionsWhere } from 'typeorm';
import { AlertDispatchService } from '../src/alerts/alert-dispatch.service';
import { AlertTrigger } from '../src/issues/transitions/alert-trigger';
import { AlertTriggerProducer } from '../src/issues/transitions/alert-trigger.producer';
import { ChannelType, NotificationChannel } from '../src/channels/channel.entity';
import { ErrorEvent } from '../src/events/event.entity';
import { Issue } from '../src/issues/issue.entity';
import { Project } from '../src/projects/project.entity';
import { AlertHistoryEntry } from '../src/rules/alert-history.entity';
import { AlertRule, AlertType } from '../src/rules/alert-rule.entity';
import { decodeQuotedPrintable, mailHeader } from './helpers/mail';
import { startTestApp, TestApp } from './helpers/app';

interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

/** A webhook/chat receiver on 127.0.0.1: records every request, answers with the status set per path. */
class Receiver {
  readonly requests: ReceivedRequest[] = [];
  readonly statuses = new Map<string, number>();
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // kept raw
      }
      const path = req.url ?? '/';
      this.requests.push({ path, headers: req.headers, raw, body });
      const status = this.statuses.get(path) ?? 200;
      if (status >= 300 && status < 400) res.setHeader('Location', `${this.url}/redirect-target`);
      res.statusCode = status;
      res.end(status >= 400 ? 'receiver is broken today' : 'ok');
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('alert delivery', () => {
  let t: TestApp;
  let db: DataSource;
  const receiver = new Receiver();
  const mails: ReceivedMail[] = [];
  let smtp: SMTPServer;
  let smtpPort: number;

  beforeAll(async () => {
    await receiver.start();
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    t = await startTestApp({
      ALERTS_ALLOW_PRIVATE_NETWORKS: 'true',
      ALERTS_RETRY_BASE_DELAY_MS: '50',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'Error Tracker <alerts@errors.example.com>',
      PUBLIC_URL: 'https://errors.example.com',
    });
    db = t.app.get(DataSource);
  });

  afterAll(async () => {
    await t?.close();
    await receiver.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  // ---- fixtures, written straight to the database (ingestion and the rules API are not needed here)

  async function createProject(name = 'Shop'): Promise<Project> {
    const suffix = randomUUID().slice(0, 8);
    return db.getRepository(Project).save({ name, slug: `shop-${suffix}`, clientKey: randomUUID() });
  }

  let issueNumber = 0;
  async function createIssue(project: Project, overrides: Partial<Issue> = {}): Promise<Issue> {
    issueNumber++;
    return db.getRepository(Issue).save({
      projectId: project.id,
      groupingKey: randomUUID(),
      number: issueNumber,
      type: 'TypeError',
      message: `Cannot read properties of undefined (#${issueNumber})`,
      culprit: 'app/checkout.js in pay',
      level: 'error',
      state: 'open',
      eventCount: 3,
      firstSeen: new Date('2024-05-01T10:00:00.000Z'),
      lastSeen: new Date('2024-05-01T11:00:00.000Z'),
      ...overrides,
    });
  }

  async function createEvent(issue: Issue, environment: string | null): Promise<void> {
    await db.getRepository(ErrorEvent).save({
      projectId: issue.projectId,
      id: randomUUID(),
      issueId: issue.id,
      timestamp: new Date(),
      receivedAt: new Date(),
      environment,
      release: null,
      level: issue.level,
      payload: {},
    });
  }

  async function createChannel(
    channelType: ChannelType,
    config: Record<string, unknown>,
    isEnabled = true,
  ): Promise<NotificationChannel> {
    return db.getRepository(NotificationChannel).save({
      name: `${channelType} ${randomUUID().slice(0, 6)}`,
      channelType,
      config,
      isEnabled,
    });
  }

  async function createRule(
    project: Project,
    alertType: AlertType,
    channels: NotificationChannel[],
    options: { cooldownMinutes?: number; isEnabled?: boolean; conditions?: Record<string, unknown> } = {},
  ): Promise<AlertRule> {
    return db.getRepository(AlertRule).save({
      projectId: project.id,
      name: `${alertType} rule`,
      alertType,
      channels,
      isEnabled: options.isEnabled ?? true,
      cooldownMinutes: options.cooldownMinutes ?? 0,
      conditions: options.conditions ?? {},
    });
  }

  function trigger(alertType: AlertType, issue: Issue, occurredAt = new Date()): AlertTrigger {
    return { alertType, projectId: issue.projectId, issueId: issue.id, occurredAt: occurredAt.toISOString() };
  }

  async function emit(...triggers: AlertTrigger[]): Promise<void> {
    await t.app.get(AlertTriggerProducer).emit(triggers);
  }

  function historyOf(where: FindOptionsWhere<AlertHistoryEntry>) {
    return db.getRepository(AlertHistoryEntry).find({ where, order: { id: 'ASC' } });
  }

  async function channel(id: number): Promise<NotificationChannel> {
    return db.getRepository(NotificationChannel).findOneOrFail({ where: { id } });
  }

  // ---- end to end per channel type

  it('delivers a signed webhook with the issue, project, link and idempotency key', async () => {
    const project = await createProject('Web Shop');
    const issue = await createIssue(project);
    const webhook = await createChannel('webhook', {
      url: `${receiver.url}/hook-signed`,
      secret: 'whsec_0123456789abcdef',
      headers: { 'X-Team': 'ops' },
    });
    const rule = await createRule(project, 'new_issue', [webhook]);

    await emit(trigger('new_issue', issue));
    const [request] = await waitFor(
      () => receiver.to('/hook-signed').length > 0 && receiver.to('/hook-signed'),
      'webhook',
    );
    const [row] = await waitFor(async () => {
      const rows = await historyOf({ ruleId: rule.id });
      return rows[0]?.status === 'sent' && rows;
    }, 'history row marked sent');

    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe('error-tracker');
    expect(request.headers['x-alert-type']).toBe('new_issue');
    expect(request.headers['x-team']).toBe('ops');
    expect(request.headers['x-idempotency-key']).toBe(row.idempotencyKey);
    const expected = createHmac('sha256', 'whsec_0123456789abcdef').update(request.raw).digest('hex');
    expect(request.headers['x-signature-256']).toBe(`sha256=${expected}`);

    const url = `https://errors.example.com/projects/${project.id}/issues/${issue.id}`;
    expect(request.body).toEqual({
      alert_type: 'new_issue',
      test: false,
      project: { id: project.id, name: 'Web Shop', slug: project.slug },
      issue: {
        id: issue.id,
        project_id: project.id,
        short_id: `${project.slug.toUpperCase()}-${issue.number}`,
        type: 'TypeError',
        message: issue.message,
        culprit: 'app/checkout.js in pay',
        level: 'error',
        kind: 'error',
        monitor: null,
        state: 'open',
        event_count: 3,
        user_count: 0,
        first_seen: '2024-05-01T10:00:00.000Z',
        last_seen: '2024-05-01T11:00:00.000Z',
        resolved_at: null,
        last_regressed_at: null,
        regression_count: 0,
        first_release: null,
        last_release: null,
        resolved_in: null,
        mute_until: null,
        mute_until_count: null,
        mute_until_users: null,
        assignee: null,
        url,
      },
      url,
      triggered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    expect(row).toMatchObject({
      projectId: project.id,
      issueId: issue.id,
      channelId: webhook.id,
      alertType: 'new_issue',
      channelType: 'webhook',
      channelName: webhook.name,
      status: 'sent',
      attempts: 1,
      error: null,
    });
    expect(row.sentAt).toBeInstanceOf(Date);
    const after = await channel(webhook.id);
    expect(after.failureCount).toBe(0);
    expect(after.lastSuccessAt).toBeInstanceOf(Date);

    // The history endpoint shows the same entry, naming the issue by its short id.
    const listed = await t.api().get(`/api/projects/${project.id}/alert-history?limit=10`).expect(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        alert_type: 'new_issue',
        channel_type: 'webhook',
        channel_name: webhook.name,
        status: 'sent',
        issue_id: issue.id,
        issue_short_id: `${project.slug.toUpperCase()}-${issue.number}`,
      }),
    ]);
  });

  it('delivers a Slack-compatible chat message for a regression', async () => {
    const project = await createProject('Chat Shop');
    const issue = await createIssue(project, { state: 'open', regressionCount: 1 });
    const chat = await createChannel('chat', { webhook_url: `${receiver.url}/slack/abc` });
    const rule = await createRule(project, 'regression', [chat]);

    await emit(trigger('regression', issue));
    const [request] = await waitFor(
      () => receiver.to('/slack/abc').length > 0 && receiver.to('/slack/abc'),
      'chat',
    );
    const url = `https://errors.example.com/projects/${project.id}/issues/${issue.id}`;
    const shortId = `${project.slug.toUpperCase()}-${issue.number}`;
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.text).toBe(`Regression in Chat Shop: ${shortId}: TypeError: ${issue.message} ${url}`);
    const blocks = request.body.blocks as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*<${url}|${shortId}: TypeError: ${issue.message}>*\nRegression in *Chat Shop*`,
      },
    });
    expect(JSON.stringify(blocks)).toContain('*Events*\\n3');
    expect(JSON.stringify(blocks)).toContain('Last seen 2024-05-01T11:00:00.000Z');
    await waitFor(
      async () => (await historyOf({ ruleId: rule.id }))[0]?.status === 'sent',
      'chat history sent',
    );
  });

  it('e-mails an unmute made through PATCH /api/issues/:id', async () => {
    const project = await createProject('Mail Shop');
    const issue = await createIssue(project, { state: 'muted', mutedAt: new Date() });
    const email = await createChannel('email', { to: ['ops@example.com', 'dev@example.com'] });
    const rule = await createRule(project, 'unmute', [email]);

    await t.api().patch(`/api/issues/${issue.id}`).send({ state: 'open' }).expect(200);
    const [row] = await waitFor(async () => {
      const rows = await historyOf({ ruleId: rule.id });
      return rows[0]?.status === 'sent' && rows;
    }, 'email history sent');
    const mail = await waitFor(() => mails.find((m) => m.raw.includes(row.idempotencyKey)), 'e-mail');

    expect(mail.from).toBe('alerts@errors.example.com');
    expect(mail.to.sort()).toEqual(['dev@example.com', 'ops@example.com']);
    const shortId = `${project.slug.toUpperCase()}-${issue.number}`;
    expect(mailHeader(mail.raw, 'Subject')).toBe(`[Mail Shop] ${shortId}: TypeError: ${issue.message}`);
    expect(mailHeader(mail.raw, 'Message-ID')).toBe(`<${row.idempotencyKey}@errors.example.com>`);
    expect(mailHeader(mail.raw, 'X-Idempotency-Key')).toBe(row.idempotencyKey);
    expect(mailHeader(mail.raw, 'X-Alert-Type')).toBe('unmute');
    const body = decodeQuotedPrintable(mail.raw);
    const url = `https://errors.example.com/projects/${project.id}/issues/${issue.id}`;
    expect(body).toContain('Content-Type: text/plain');
    expect(body).toContain('Content-Type: text/html');
    expect(body).toContain('Issue unmuted in Mail Shop.');
    expect(body).toContain(`View the issue: ${url}`);
    expect(body).toContain(`<a href="${url}">View the issue</a>`);
    expect(body).toContain('State: open');
  });

  // ---- rule matching

  it('skips a second notification about the same issue within the cooldown', async () => {
    const project = await createProject();
    const issue = await createIssue(project);
    const webhook = await createChannel('webhook', { url: `${receiver.url}/cooldown` });
    const rule = await createRule(project, 'regression', [webhook], { cooldownMinutes: 60 });

    await emit(trigger('regression', issue, new Date(Date.now() - 1_000)));
    await waitFor(
      async () => (await historyOf({ ruleId: rule.id }))[0]?.status === 'sent',
      'first notification',
    );
    await emit(trigger('regression', issue));
    const rows = await waitFor(async () => {
      const all = await historyOf({ ruleId: rule.id });
      return all.length === 2 && all;
    }, 'second history row');
    expect(rows.map((r) => r.status)).toEqual(['sent', 'skipped']);
    expect(rows[1].error).toMatch(/cooldown/);
    // A third trigger is still inside the window opened by the first (skipped rows do not extend it).
    await emit(trigger('regression', issue, new Date(Date.now() + 1_000)));
    await waitFor(async () => (await historyOf({ ruleId: rule.id })).length === 3, 'third history row');
    await sleep(300);
    expect(receiver.to('/cooldown')).toHaveLength(1);
    expect((await historyOf({ ruleId: rule.id })).map((r) => r.status)).toEqual([
      'sent',
      'skipped',
      'skipped',
    ]);
    const listed = await t.api().get(`/api/projects/${project.id}/alert-history?limit=2`).expect(200);
    expect((listed.body as Array<{ status: string; error: string }>).map((entry) => entry.status)).toEqual([
      'skipped',
      'skipped',
    ]);
  });

  it('lets a disabled rule or a disabled channel notify nobody', async () => {
    const project = await createProject();
    const issue = await createIssue(project);
    const enabled = await createChannel('webhook', { url: `${receiver.url}/enabled` });
    const disabledChannel = await createChannel(
      'webhook',
      { url: `${receiver.url}/disabled-channel` },
      false,
    );
    const viaDisabledRule = await createChannel('webhook', { url: `${receiver.url}/disabled-rule` });
    const disabledRule = await createRule(project, 'new_issue', [viaDisabledRule], { isEnabled: false });
    const mixedRule = await createRule(project, 'new_issue', [enabled, disabledChannel]);

    await emit(trigger('new_issue', issue));
    await waitFor(() => receiver.to('/enabled').length > 0, 'enabled channel');
    await sleep(300);
    expect(receiver.to('/disabled-channel')).toHaveLength(0);
    expect(receiver.to('/disabled-rule')).toHaveLength(0);
    expect(await historyOf({ ruleId: disabledRule.id })).toHaveLength(0);
    const rows = await historyOf({ ruleId: mixedRule.id });
    expect(rows.map((r) => r.channelId)).toEqual([enabled.id]);
  });

  it('applies environment and level conditions', async () => {
    const project = await createProject();
    const warning = await createIssue(project, { level: 'warning' });
    await createEvent(warning, 'production');
    const fatalStaging = await createIssue(project, { level: 'fatal' });
    await createEvent(fatalStaging, 'staging');
    const fatalProduction = await createIssue(project, { level: 'fatal' });
    await createEvent(fatalProduction, 'production');
    const webhook = await createChannel('webhook', { url: `${receiver.url}/conditions` });
    const rule = await createRule(project, 'new_issue', [webhook], {
      conditions: { environments: ['production'], min_level: 'error' },
    });

    await emit(
      trigger('new_issue', warning),
      trigger('new_issue', fatalStaging),
      trigger('new_issue', fatalProduction),
    );
    await waitFor(() => receiver.to('/conditions').length > 0, 'matching issue');
    await sleep(300);
    expect(receiver.to('/conditions').map((r) => (r.body.issue as { id: number }).id)).toEqual([
      fatalProduction.id,
    ]);
    expect((await historyOf({ ruleId: rule.id })).map((r) => r.issueId)).toEqual([fatalProduction.id]);
  });

  it('notifies once when the same trigger job runs twice, even concurrently', async () => {
    const project = await createProject();
    const issue = await createIssue(project);
    const webhook = await createChannel('webhook', { url: `${receiver.url}/twice` });
    const second = await createChannel('webhook', { url: `${receiver.url}/twice-2` });
    const rule = await createRule(project, 'new_issue', [webhook, second], { cooldownMinutes: 10 });
    const dispatcher = t.app.get(AlertDispatchService, { strict: false });
    const once = trigger('new_issue', issue);

    // The same job, re-run by two workers at once, then again through the queue.
    const results = await Promise.all([dispatcher.dispatch(once), dispatcher.dispatch(once)]);
    expect(results.map((r) => r.skipped)).toEqual([0, 0]);
    await emit(once);
    await waitFor(
      () => receiver.to('/twice').length > 0 && receiver.to('/twice-2').length > 0,
      'both channels',
    );
    await waitFor(
      async () => (await historyOf({ ruleId: rule.id })).every((r) => r.status === 'sent'),
      'sent',
    );
    const again = await dispatcher.dispatch(once);
    expect(again).toEqual({ pending: 0, skipped: 0 });
    await sleep(300);
    expect(receiver.to('/twice')).toHaveLength(1);
    expect(receiver.to('/twice-2')).toHaveLength(1);
    // Both channels of one trigger are notified: the cooldown only looks at earlier triggers.
    expect((await historyOf({ ruleId: rule.id })).map((r) => r.status)).toEqual(['sent', 'sent']);
    expect(receiver.to('/twice')[0].headers['x-idempotency-key']).not.toBe(
      receiver.to('/twice-2')[0].headers['x-idempotency-key'],
    );
  });

  // ---- failures

  it('retries a failing receiver, then marks the notification failed and counts it on the channel', async () => {
    const project = await createProject();
    const issue = await createIssue(project);
    receiver.statuses.set('/flaky', 500);
    const webhook = await createChannel('webhook', { url: `${receiver.url}/flaky` });
    const rule = await createRule(project, 'regression', [webhook]);

    await emit(trigger('regression', issue, new Date(Date.now() - 5_000)));
    const [failed] = await waitFor(async () => {
      const rows = await historyOf({ ruleId: rule.id });
      return rows[0]?.status === 'failed' && rows;
    }, 'failed history row');
    expect(failed.attempts).toBe(5);
    // The receiver's body is never kept: it may echo the request, secret headers included.
    expect(failed.error).toBe('webhook answered 500 Internal Server Error');
    expect(failed.sentAt).toBeNull();
    const requests = receiver.to('/flaky');
    expect(requests).toHaveLength(5);
    expect(new Set(requests.map((r) => r.headers['x-idempotency-key']))).toEqual(
      new Set([failed.idempotencyKey]),
    );
    let after = await channel(webhook.id);
    expect(after.failureCount).toBe(1);
    expect(after.lastFailureAt).toBeInstanceOf(Date);
    expect(after.lastError).toBe(failed.error);
    expect(after.lastSuccessAt).toBeNull();

    // The receiver recovers: the next notification is sent and the run of failures ends.
    receiver.statuses.set('/flaky', 204);
    await emit(trigger('regression', issue));
    await waitFor(async () => (await historyOf({ ruleId: rule.id }))[1]?.status === 'sent', 'recovered');
    after = await channel(webhook.id);
    expect(after.failureCount).toBe(0);
    expect(after.lastSuccessAt).toBeInstanceOf(Date);
  });

  it('does not follow redirects', async () => {
    receiver.statuses.set('/moved', 302);
    const webhook = await createChannel('webhook', { url: `${receiver.url}/moved` });
    const response = await t.api().post(`/api/alert-channels/${webhook.id}/test`).expect(200);
    expect(response.body).toEqual({
      success: false,
      message: 'webhook answered 302 Found: redirects are not followed, configure the final URL',
    });
    expect(receiver.to('/redirect-target')).toHaveLength(0);
  });

  // ---- the test endpoint

  it('sends a labelled test notification and reports the receiver answer', async () => {
    const secretHook = await createChannel('webhook', { url: `${receiver.url}/test-ok`, secret: 'abc' });
    const ok = await t.api().post(`/api/alert-channels/${secretHook.id}/test`).expect(200);
    expect(ok.body).toEqual({ success: true, message: 'webhook answered 200 OK' });
    const [request] = receiver.to('/test-ok');
    expect(request.body).toMatchObject({ alert_type: 'test', test: true, issue: { short_id: 'TEST-0' } });
    expect(request.headers['x-alert-type']).toBe('test');
    expect(request.headers['x-signature-256']).toBe(
      `sha256=${createHmac('sha256', 'abc').update(request.raw).digest('hex')}`,
    );

    const chat = await createChannel('chat', { webhook_url: `${receiver.url}/test-chat` }, false);
    await t
      .api()
      .post(`/api/alert-channels/${chat.id}/test`)
      .expect(200, { success: true, message: 'chat webhook answered 200 OK' });
    expect(receiver.to('/test-chat')[0].body.text).toMatch(/^Test notification/);

    const email = await createChannel('email', { to: ['test@example.com'] });
    const mailed = await t.api().post(`/api/alert-channels/${email.id}/test`).expect(200);
    expect(mailed.body).toEqual({
      success: true,
      message: 'email accepted by the SMTP server for test@example.com',
    });
    const mail = mails.find((m) => m.to.includes('test@example.com'));
    expect(mailHeader(mail!.raw, 'Subject')).toMatch(/^\[Test\] \[Test project\] TEST-0: TestNotification/);

    receiver.statuses.set('/test-500', 500);
    const broken = await createChannel('webhook', { url: `${receiver.url}/test-500` });
    await t.api().post(`/api/alert-channels/${broken.id}/test`).expect(200, {
      success: false,
      message: 'webhook answered 500 Internal Server Error',
    });

    const down = new Receiver();
    await down.start();
    const downUrl = down.url;
    await down.close();
    const unreachable = await createChannel('webhook', { url: `${downUrl}/gone` });
    const refused = await t.api().post(`/api/alert-channels/${unreachable.id}/test`).expect(200);
    expect(refused.body).toEqual({
      success: false,
      message: `webhook connection to ${new URL(downUrl).host} refused`,
    });

    // Tests do not touch the channel's delivery counters.
    expect(await channel(broken.id)).toMatchObject({
      failureCount: 0,
      lastFailureAt: null,
      lastSuccessAt: null,
    });
    expect(await channel(secretHook.id)).toMatchObject({ failureCount: 0, lastSuccessAt: null });
  });

  it('answers 404 for an unknown channel and 400 for a malformed id', async () => {
    await t.api().post('/api/alert-channels/999999/test').expect(404, { error: 'channel not found' });
    await t
      .api()
      .post('/api/alert-channels/abc/test')
      .expect(400, { error: 'id must be a positive integer' });
    await t.http().post('/api/alert-channels/1/test').expect(401);
  });
});

describe('alert delivery without ALERTS_ALLOW_PRIVATE_NETWORKS', () => {
  let t: TestApp;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    t = await startTestApp({ SMTP_URL: undefined, ALERTS_RETRY_BASE_DELAY_MS: '50' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
  });

  async function channelTo(channelType: ChannelType, config: Record<string, unknown>) {
    return t.app
      .get(DataSource)
      .getRepository(NotificationChannel)
      .save({ name: 'private', channelType, config });
  }

  it('refuses loopback and private addresses, however they are spelled', async () => {
    const port = new URL(receiver.url).port;
    const cases: Array<[string, RegExp]> = [
      [
        `http://127.0.0.1:${port}/private`,
        /^refused to connect to 127\.0\.0\.1: loopback addresses are not allowed/,
      ],
      [`http://2130706433:${port}/private`, /^refused to connect to 127\.0\.0\.1: loopback/],
      [`http://0x7f.1:${port}/private`, /^refused to connect to 127\.0\.0\.1: loopback/],
      [`http://[::ffff:127.0.0.1]:${port}/private`, /^refused to connect to \[::ffff:7f00:1\]: loopback/],
      [`http://0.0.0.0:${port}/private`, /^refused to connect to 0\.0\.0\.0: unspecified/],
      [`http://169.254.169.254/latest/meta-data`, /^refused to connect to 169\.254\.169\.254: link-local/],
      // A name is checked on the address it resolves to, at connect time.
      [
        `http://localhost:${port}/private`,
        /^refused to connect to localhost: it resolves to a loopback address, which is not allowed \(set ALERTS_ALLOW_PRIVATE_NETWORKS/,
      ],
    ];
    for (const [url, message] of cases) {
      const webhook = await channelTo('webhook', { url });
      const response = await t.api().post(`/api/alert-channels/${webhook.id}/test`).expect(200);
      expect({ url, ...response.body }).toEqual({
        url,
        success: false,
        message: expect.stringMatching(message),
      });
      expect(response.body.message).toContain('ALERTS_ALLOW_PRIVATE_NETWORKS');
    }
    const chat = await channelTo('chat', { webhook_url: `http://127.0.0.1:${port}/private-chat` });
    const response = await t.api().post(`/api/alert-channels/${chat.id}/test`).expect(200);
    expect(response.body).toEqual({
      success: false,
      message: expect.stringMatching(/^refused to connect to 127\.0\.0\.1/),
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('says when SMTP is not configured', async () => {
    const email = await channelTo('email', { to: ['ops@example.com'] });
    await t
      .api()
      .post(`/api/alert-channels/${email.id}/test`)
      .expect(200, { success: false, message: 'SMTP_URL is not configured' });
  });

  it('fails a delivery to a refused address at once, without retries', async () => {
    const db = t.app.get(DataSource);
    const project = await db
      .getRepository(Project)
      .save({ name: 'Private', slug: `private-${randomUUID().slice(0, 8)}`, clientKey: randomUUID() });
    const issue = await db.getRepository(Issue).save({
      projectId: project.id,
      groupingKey: randomUUID(),
      number: 1,
      type: 'Error',
      message: 'boom',
      firstSeen: new Date(),
      lastSeen: new Date(),
    });
    const webhook = await channelTo('webhook', { url: `${receiver.url}/private-delivery` });
    const rule = await db
      .getRepository(AlertRule)
      .save({ projectId: project.id, name: 'r', alertType: 'new_issue', channels: [webhook] });
    await t.app.get(AlertTriggerProducer).emit([
      {
        alertType: 'new_issue',
        projectId: project.id,
        issueId: issue.id,
        occurredAt: new Date().toISOString(),
      },
    ]);
    const row = await waitFor(async () => {
      const found = await db.getRepository(AlertHistoryEntry).findOne({ where: { ruleId: rule.id } });
      return found?.status === 'failed' && found;
    }, 'failed delivery');
    expect(row.attempts).toBe(1);
    expect(row.error).toMatch(/^refused to connect to 127\.0\.0\.1: loopback/);
    const after = await db.getRepository(NotificationChannel).findOneOrFail({ where: { id: webhook.id } });
    expect(after.failureCount).toBe(1);
    expect(receiver.requests).toHaveLength(0);
  });
});
