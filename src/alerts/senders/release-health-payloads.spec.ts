import { buildReleaseHealthNotification } from '../alert-notification';
import type { ReleaseBreach } from '../../rules/alert-history.entity';
import { chatPayload, emailHtml, emailSubject, emailText, webhookHeaders, webhookPayload } from './payloads';
import { formatPercent } from './release-health-payloads';

const BREACH: ReleaseBreach = {
  metric: 'crash_free_sessions',
  value: 200 / 3,
  threshold: 99.5,
  window_hours: 24,
  min_sessions: 3,
  sessions: 3,
  users: 2,
  environments: ['production'],
};
const notification = buildReleaseHealthNotification(
  { id: 7, name: 'Shop <web>', slug: 'shop' },
  'shop@1.2.0+build/5',
  BREACH,
  'https://errors.example.com/',
  '2026-11-26T12:00:00.000Z',
);

describe('release health payloads', () => {
  it('links to the release page, its version encoded', () => {
    expect(notification.url).toBe('https://errors.example.com/projects/7/releases/shop%401.2.0%2Bbuild%2F5');
  });

  it('webhook: the release, the metric, its value, the threshold, the window and the environments', () => {
    expect(webhookPayload(notification)).toEqual({
      alert_type: 'release_health',
      test: false,
      project: { id: 7, name: 'Shop <web>', slug: 'shop' },
      release: { version: 'shop@1.2.0+build/5', url: notification.url, ...BREACH },
      url: notification.url,
      triggered_at: '2026-11-26T12:00:00.000Z',
    });
    expect(webhookHeaders(notification, '{}', 'key', undefined, undefined)['X-Alert-Type']).toBe(
      'release_health',
    );
  });

  it('e-mail and chat say the same in words', () => {
    expect(formatPercent(200 / 3)).toBe('66.67%');
    expect(formatPercent(80)).toBe('80%');
    expect(emailSubject(notification)).toBe(
      '[Shop <web>] shop@1.2.0+build/5: crash-free sessions 66.67% (below 99.5%) over the last 24 hours',
    );
    expect(emailText(notification)).toBe(
      [
        'Release health alert in Shop <web>.',
        '',
        'Project: Shop <web>',
        'Release: shop@1.2.0+build/5',
        'Crash-free sessions: 66.67%',
        'Threshold: 99.5%',
        'Window: the last 24 hours',
        'Environments: production',
        'Sessions: 3',
        'Users: 2',
        '',
        `View the release: ${notification.url}`,
        '',
        '-- ',
        'Sent by error-tracker',
      ].join('\n'),
    );
    const html = emailHtml(notification);
    expect(html).toContain('Shop &lt;web&gt;');
    expect(html).toContain(`<a href="${notification.url}">View the release</a>`);
    const chat = chatPayload(notification);
    expect(chat.text).toBe(
      'Release health in Shop <web>: shop@1.2.0+build/5: crash-free sessions 66.67% (below 99.5%) ' +
        `over the last 24 hours (production) ${notification.url}`,
    );
    expect(JSON.stringify(chat.blocks)).toContain('Shop &lt;web&gt;');
  });

  it('says "all environments" when the rule names none', () => {
    const everywhere = { ...notification, release: { ...notification.release, environments: null } };
    expect(emailText(everywhere)).toContain('Environments: all environments');
  });
});
