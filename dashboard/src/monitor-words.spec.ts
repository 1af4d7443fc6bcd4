import { checkInUrl, durationText, hostOf, intervalText, msText, percentText } from './monitor-words';

describe('monitor figures in words', () => {
  it('writes uptime with the digits that matter', () => {
    expect(percentText(100)).toBe('100 %');
    expect(percentText(99.95)).toBe('99.95 %');
    expect(percentText(99.5)).toBe('99.5 %');
    expect(percentText(93.1501)).toBe('93.15 %');
    expect(percentText(90)).toBe('90 %');
    expect(percentText(0)).toBe('0 %');
    expect(percentText(null)).toBe('—');
  });

  it('writes durations and intervals in the largest fitting unit', () => {
    expect(durationText(850)).toBe('850 ms');
    expect(durationText(1000)).toBe('1 s');
    expect(durationText(1500)).toBe('1.5 s');
    expect(durationText(42_500)).toBe('42.5 s');
    expect(durationText(20_000)).toBe('20 s');
    expect(durationText(185_000)).toBe('3 min 5 s');
    expect(durationText(120_000)).toBe('2 min');
    expect(durationText(null)).toBe('—');
    expect(msText(4.6)).toBe('5 ms');
    expect(intervalText(60)).toBe('1 minute');
    expect(intervalText(90)).toBe('90 seconds');
    expect(intervalText(3600)).toBe('1 hour');
    expect(intervalText(7200)).toBe('2 hours');
    expect(intervalText(86_400)).toBe('1 day');
  });

  it('finds the host of a URL, and keeps what is not one', () => {
    expect(hostOf({ url: 'https://shop.example.com:8443/health?x=1' })).toBe('shop.example.com:8443');
    expect(hostOf({ url: 'not a url' })).toBe('not a url');
  });

  it('builds the DSN check-in URL from a DSN', () => {
    expect(checkInUrl('https://0123abcd@errors.example.com/42', 'nightly backup')).toBe(
      'https://errors.example.com/api/42/cron/nightly%20backup/0123abcd/',
    );
    expect(checkInUrl('http://key@localhost:8000/7', 'job')).toBe('http://localhost:8000/api/7/cron/job/key/');
    // Served under a path: the API is too.
    expect(checkInUrl('https://key@example.com/errors/7', 'job')).toBe('https://example.com/errors/api/7/cron/job/key/');
  });
});
