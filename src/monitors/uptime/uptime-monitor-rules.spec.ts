import { checkSettings, DEFAULT_SETTINGS, UptimeSettings } from './uptime-monitor-rules';

const base: UptimeSettings = { ...DEFAULT_SETTINGS, name: 'Site', url: 'https://example.com/' };
const refusal = (changes: Partial<UptimeSettings>) => {
  try {
    checkSettings({ ...base, ...changes });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('checkSettings', () => {
  it('accepts the defaults and normalises the URL', () => {
    expect(checkSettings({ ...base, url: ' https://Example.com ' }).url).toBe('https://example.com/');
  });

  it.each<[Partial<UptimeSettings>, string]>([
    [{ url: 'https://user:secret@example.com/' }, 'must not contain credentials'],
    [{ url: 'ftp://example.com/' }, 'must use http or https, not ftp'],
    [{ url: 'file:///etc/passwd' }, 'must use http or https'],
    [{ url: 'not a url' }, 'url is not a valid URL'],
    [{ intervalSeconds: 0 }, 'interval_seconds must be an integer from 30'],
    [{ intervalSeconds: 10 }, 'interval_seconds must be an integer from 30'],
    [{ timeoutSeconds: 60, intervalSeconds: 60 }, 'timeout_seconds must be less than interval_seconds'],
    [{ timeoutSeconds: 0 }, 'timeout_seconds must be an integer from 1'],
    [{ failureThreshold: 0 }, 'failure_threshold must be an integer from 1 to 100'],
    [{ recoveryThreshold: 101 }, 'recovery_threshold must be an integer from 1 to 100'],
    [{ expectedStatusMin: 300, expectedStatusMax: 200 }, 'must not be greater than'],
    [{ expectedStatusMax: 600 }, 'expected_status.max must be an integer from 100 to 599'],
    [{ headers: { Host: 'evil' } }, 'Host is set by the check itself'],
    [{ headers: { 'X-A': 'a\r\nB: c' } }, 'must be one line'],
    [{ headers: { 'bad name': 'x' } }, 'is not a valid header name'],
    [{ body: 'x' }, 'body cannot be sent with GET'],
    [{ bodyContains: '' }, 'body_contains must not be empty'],
    [{ tlsExpiryDays: -1 }, 'tls_expiry_days must be an integer from 0'],
  ])('refuses %j', (changes, message) => {
    expect(refusal(changes)).toContain(message);
  });
});
