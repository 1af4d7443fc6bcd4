import { buildSpikeNotification } from '../alert-notification';
import { chatPayload, emailContent, emailHtml, emailSubject, emailText, webhookPayload } from './payloads';

describe('spike protection payloads', () => {
  const notification = buildSpikeNotification(
    { id: 7, name: 'Shop <web>', slug: 'shop' },
    { spike_id: 3, started_at: '2031-06-15T10:20:00.000Z', limit_per_hour: 1200, dropped: 45 },
    'https://errors.example.com/',
    '2031-06-15T10:21:00.000Z',
  );

  it('sends the spike, the project and a link to its quotas to webhooks', () => {
    expect(webhookPayload(notification)).toEqual({
      alert_type: 'spike_protection',
      test: false,
      project: { id: 7, name: 'Shop <web>', slug: 'shop' },
      spike: { spike_id: 3, started_at: '2031-06-15T10:20:00.000Z', limit_per_hour: 1200, dropped: 45 },
      url: 'https://errors.example.com/projects/7/settings/quotas',
      triggered_at: '2031-06-15T10:21:00.000Z',
    });
  });

  it('says what happened in e-mails and chat, escaping the project name in HTML', () => {
    expect(emailSubject(notification)).toContain(
      '[Shop <web>] spike protection engaged: more than 1200 events',
    );
    expect(emailText(notification)).toContain('Dropped so far: 45');
    expect(emailHtml(notification)).toContain('Shop &lt;web&gt;');
    expect(emailHtml(notification)).not.toContain('Shop <web>');
    expect(chatPayload(notification).text).toContain('Spike protection in Shop <web>');
    expect(emailContent(notification)).toEqual({
      subject: emailSubject(notification),
      text: emailText(notification),
      html: emailHtml(notification),
    });
  });
});
