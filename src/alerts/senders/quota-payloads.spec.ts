import { buildQuotaNotification } from '../alert-notification';
import { chatPayload, emailHtml, emailSubject, emailText, webhookPayload } from './payloads';

describe('quota used up payloads', () => {
  const quota = {
    reason: 'daily_quota' as const,
    limit: 50000,
    since: '2031-06-15T10:21:00.000Z',
    until: '2031-06-16T00:00:00.000Z',
  };
  const notification = buildQuotaNotification(
    { id: 7, name: 'Shop <web>', slug: 'shop' },
    quota,
    'https://errors.example.com/',
    '2031-06-15T10:22:00.000Z',
  );

  it('sends the quota, the project and a link to its quotas to webhooks', () => {
    expect(webhookPayload(notification)).toEqual({
      alert_type: 'quota_exhausted',
      test: false,
      project: { id: 7, name: 'Shop <web>', slug: 'shop' },
      quota,
      url: 'https://errors.example.com/projects/7/settings/quotas',
      triggered_at: '2031-06-15T10:22:00.000Z',
    });
  });

  it('says which quota, since and until when, in e-mails and chat', () => {
    expect(emailSubject(notification)).toBe(
      '[Shop <web>] daily quota of 50000 events used up: events are refused until 2031-06-16T00:00:00.000Z',
    );
    const text = emailText(notification);
    expect(text).toContain('50000 events per UTC day');
    expect(text).toContain('Refused since: 2031-06-15T10:21:00.000Z');
    expect(emailHtml(notification)).toContain('Shop &lt;web&gt;');
    expect(emailHtml(notification)).not.toContain('Shop <web>');
    expect(chatPayload(notification).text).toContain('Quota used up in Shop <web>');
  });
});
