import { redactUrl } from './logger';

describe('redactUrl', () => {
  it('hides the values of parameters named like secrets, whatever their spelling', () => {
    expect(redactUrl('/api/1/envelope/?sentry_key=abc123&sentry_version=7')).toBe(
      '/api/1/envelope/?sentry_key=[redacted]&sentry_version=7',
    );
    expect(redactUrl('/auth/login?password=hunter2&next=/')).toBe('/auth/login?password=[redacted]&next=/');
    expect(redactUrl('/x?access_token=t&API_KEY=k&Session=s&client%5Fsecret=c')).toBe(
      '/x?access_token=[redacted]&API_KEY=[redacted]&Session=[redacted]&client%5Fsecret=[redacted]',
    );
  });

  it('keeps everything else as sent', () => {
    expect(redactUrl('/api/projects/1/issues?state=open&limit=10')).toBe('/api/projects/1/issues?state=open&limit=10');
    expect(redactUrl('/api/projects')).toBe('/api/projects');
    expect(redactUrl('/x?%E0%A4%A=1&flag')).toBe('/x?%E0%A4%A=1&flag');
  });
});
