import { createHmac } from 'node:crypto';
import type { Issue } from '../../issues/issue.entity';
import { issueUrl } from '../../issues/issue-view';
import { buildNotification, buildTestNotification } from '../alert-notification';
import {
  chatPayload,
  emailHtml,
  emailSubject,
  emailText,
  webhookHeaders,
  webhookPayload,
  webhookSignature,
} from './payloads';

const issue = {
  id: 42,
  projectId: 7,
  number: 3,
  type: 'TypeError',
  message: "Cannot read properties of undefined (reading 'x') <script>",
  culprit: 'app/checkout.js in pay',
  level: 'error',
  state: 'open',
  eventCount: 5,
  firstSeen: new Date('2024-05-01T10:00:00.000Z'),
  lastSeen: new Date('2024-05-01T11:00:00.000Z'),
  resolvedAt: null,
  lastRegressedAt: null,
  regressionCount: 0,
  userCount: 0,
  firstRelease: null,
  lastRelease: null,
  resolvedIn: null,
  muteUntil: null,
  muteUntilCount: null,
  muteUntilUsers: null,
} as Issue;
const project = { id: 7, name: 'Web & Shop', slug: 'web-shop' };
const notification = buildNotification(
  'new_issue',
  project,
  issue,
  'https://errors.example.com/',
  '2024-05-01T11:00:01.000Z',
);

describe('alert payloads', () => {
  it('links to the dashboard page of the issue', () => {
    expect(issueUrl('https://e.example.com/', 7, 42)).toBe('https://e.example.com/projects/7/issues/42');
    expect(notification.url).toBe('https://errors.example.com/projects/7/issues/42');
  });

  it('builds the webhook JSON', () => {
    expect(webhookPayload(notification)).toEqual({
      alert_type: 'new_issue',
      test: false,
      project: { id: 7, name: 'Web & Shop', slug: 'web-shop' },
      issue: {
        id: 42,
        project_id: 7,
        short_id: 'WEB-SHOP-3',
        type: 'TypeError',
        message: "Cannot read properties of undefined (reading 'x') <script>",
        culprit: 'app/checkout.js in pay',
        level: 'error',
        kind: 'error',
        monitor: null,
        state: 'open',
        event_count: 5,
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
        url: 'https://errors.example.com/projects/7/issues/42',
      },
      url: 'https://errors.example.com/projects/7/issues/42',
      triggered_at: '2024-05-01T11:00:01.000Z',
    });
  });

  it('signs the raw body with HMAC-SHA256 and keeps protocol headers out of the channel config', () => {
    const body = JSON.stringify(webhookPayload(notification));
    const headers = webhookHeaders(notification, body, 'key-1', 's3cret', {
      'X-Custom': 'yes',
      'x-signature-256': 'forged',
      'User-Agent': 'other',
    });
    const expected = createHmac('sha256', 's3cret').update(body).digest('hex');
    expect(headers).toEqual({
      'X-Custom': 'yes',
      'Content-Type': 'application/json',
      'User-Agent': 'error-tracker',
      'X-Idempotency-Key': 'key-1',
      'X-Alert-Type': 'new_issue',
      'X-Signature-256': `sha256=${expected}`,
    });
    expect(webhookSignature('s3cret', body)).toBe(`sha256=${expected}`);
    expect(webhookHeaders(notification, body, 'k', undefined, undefined)['X-Signature-256']).toBeUndefined();
  });

  it('writes the e-mail subject, text and HTML', () => {
    expect(emailSubject(notification)).toBe(
      "[Web & Shop] WEB-SHOP-3: TypeError: Cannot read properties of undefined (reading 'x') <script>",
    );
    const long = buildNotification(
      'regression',
      project,
      { ...issue, message: 'x'.repeat(500) } as Issue,
      'http://h',
      't',
    );
    expect(emailSubject(long)).toHaveLength(200);
    expect(emailSubject(long).endsWith('…')).toBe(true);
    const multiline = buildNotification(
      'regression',
      project,
      { ...issue, message: 'a\nb\r\nc' } as Issue,
      'http://h',
      't',
    );
    expect(emailSubject(multiline)).toBe('[Web & Shop] WEB-SHOP-3: TypeError: a b c');

    const text = emailText(notification);
    expect(text).toContain('New issue in Web & Shop.');
    expect(text).toContain('Issue: WEB-SHOP-3');
    expect(text).toContain('Events: 5');
    expect(text).toContain('View the issue: https://errors.example.com/projects/7/issues/42');

    const html = emailHtml(notification);
    expect(html).toContain('<a href="https://errors.example.com/projects/7/issues/42">');
    expect(html).toContain('Web &amp; Shop');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('<script>');
  });

  it('builds a Slack-compatible chat message with a plain-text fallback', () => {
    const chat = chatPayload(notification);
    expect(chat.text).toBe(
      "New issue in Web & Shop: WEB-SHOP-3: TypeError: Cannot read properties of undefined (reading 'x') <script> " +
        'https://errors.example.com/projects/7/issues/42',
    );
    const section = chat.blocks[0] as { type: string; text: { type: string; text: string } };
    expect(section.type).toBe('section');
    expect(section.text.type).toBe('mrkdwn');
    expect(section.text.text).toContain(
      '<https://errors.example.com/projects/7/issues/42|WEB-SHOP-3: TypeError:',
    );
    expect(section.text.text).toContain('&lt;script&gt;');
    expect(section.text.text).toContain('*Web &amp; Shop*');
    const fields = (chat.blocks[1] as { fields: Array<{ text: string }> }).fields.map((field) => field.text);
    expect(fields).toEqual(['*Project*\nWeb &amp; Shop', '*State*\nopen', '*Events*\n5', '*Level*\nerror']);
    expect(JSON.stringify(chat.blocks[2])).toContain('First seen 2024-05-01T10:00:00.000Z');
  });

  it('labels the test notification as a test everywhere', () => {
    const test = buildTestNotification('https://errors.example.com', new Date('2024-01-01T00:00:00Z'));
    expect(webhookPayload(test)).toMatchObject({
      alert_type: 'test',
      test: true,
      issue: { short_id: 'TEST-0' },
    });
    expect(emailSubject(test)).toMatch(/^\[Test\] \[Test project\] TEST-0: TestNotification: /);
    expect(emailText(test)).toContain('This is a test notification');
    expect(chatPayload(test).text).toMatch(/^Test notification in Test project: /);
  });
});

describe('monitor alert payloads', () => {
  const monitorIssue = {
    ...issue,
    kind: 'cron',
    groupingKey: 'monitor:cron:5:production',
    type: 'Cron failure',
    message: 'Nightly backup (production)',
    culprit: 'nightly-backup missed a check-in: No check-in expected at 10:05 UTC',
  } as Issue;
  const failed = buildNotification(
    'monitor_failed',
    project,
    monitorIssue,
    'https://errors.example.com',
    'now',
  );

  it('names the monitor, its environment, the reason and the link in every format', () => {
    const headline =
      'WEB-SHOP-3: Cron failure: Nightly backup (production) — nightly-backup missed a check-in: No check-in expected at 10:05 UTC';
    expect(emailSubject(failed)).toBe(`[Web & Shop] ${headline}`);
    expect(chatPayload(failed).text).toBe(
      `Monitor failed in Web & Shop: ${headline} https://errors.example.com/projects/7/issues/42`,
    );
    expect(webhookPayload(failed)).toMatchObject({
      alert_type: 'monitor_failed',
      issue: {
        kind: 'cron',
        monitor: { kind: 'cron', monitor_id: 5, environment: 'production' },
        culprit: monitorIssue.culprit,
      },
    });
    expect(emailText(failed)).toContain('No check-in expected at 10:05 UTC');
  });
});
