import { monitorFailureText } from './monitor-failure-text';
import { monitorGroupingKey, monitorOfGroupingKey } from '../../issues/monitor-issue-key';

describe('monitorFailureText', () => {
  it('names the monitor, the reason and the detail', () => {
    expect(
      monitorFailureText(
        { slug: 'nightly-backup' },
        { reason: 'missed', detail: 'No check-in expected at 10:05 UTC' },
      ),
    ).toBe('nightly-backup missed a check-in: No check-in expected at 10:05 UTC');
    expect(monitorFailureText({ slug: 'shop' }, { reason: 'down', detail: 'HTTP 503' })).toBe(
      'shop is down: HTTP 503',
    );
  });

  it('leaves out an empty detail and bounds a long one', () => {
    expect(monitorFailureText({ slug: 'job' }, { reason: 'timeout', detail: '  ' })).toBe('job timed out');
    expect(monitorFailureText({ slug: 'job' }, { reason: 'error', detail: 'x'.repeat(2000) })).toHaveLength(
      500,
    );
  });
});

describe('monitor grouping keys', () => {
  it('round-trips the monitor and environment, including colons in the environment', () => {
    const key = monitorGroupingKey('uptime', 12, 'eu:west');
    expect(monitorOfGroupingKey(key)).toEqual({ kind: 'uptime', monitor_id: 12, environment: 'eu:west' });
  });

  it('reads nothing from an event grouping key', () => {
    expect(monitorOfGroupingKey('2:0123456789abcdef')).toBeNull();
    expect(monitorOfGroupingKey('monitor:disk:1:production')).toBeNull();
  });
});
