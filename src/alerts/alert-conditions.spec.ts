import { conditionsMatch, levelRank, needsEnvironment, parseConditions } from './alert-conditions';
import { idempotencyKey, deliveryJobId } from './alert-dispatch.service';

describe('rule conditions', () => {
  it('matches everything when empty or not understood', () => {
    for (const raw of [{}, null, [], { environments: 'prod' }, { min_level: 'loud' }, { environments: [] }]) {
      const parsed = parseConditions(raw);
      expect(parsed).toEqual({});
      expect(conditionsMatch(parsed, { issueLevel: 'debug', environment: null })).toBe(true);
    }
  });

  it('filters on the environment of the latest event', () => {
    const parsed = parseConditions({ environments: ['production', 'staging'] });
    expect(needsEnvironment(parsed)).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: 'production' })).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: 'development' })).toBe(false);
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: null })).toBe(false);
  });

  it('filters on a minimum level, debug < info < warning < error < fatal', () => {
    const parsed = parseConditions({ min_level: 'warning' });
    expect(needsEnvironment(parsed)).toBe(false);
    expect(conditionsMatch(parsed, { issueLevel: 'info', environment: null })).toBe(false);
    expect(conditionsMatch(parsed, { issueLevel: 'debug', environment: null })).toBe(false);
    expect(conditionsMatch(parsed, { issueLevel: 'warning', environment: null })).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'warn', environment: null })).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'fatal', environment: null })).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'something-else', environment: null })).toBe(true);
    expect(levelRank('critical')).toBe(4);
    expect(levelRank('nope')).toBeNull();
  });

  it('combines both', () => {
    const parsed = parseConditions({ environments: ['prod'], min_level: 'error' });
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: 'prod' })).toBe(true);
    expect(conditionsMatch(parsed, { issueLevel: 'info', environment: 'prod' })).toBe(false);
    expect(conditionsMatch(parsed, { issueLevel: 'fatal', environment: 'dev' })).toBe(false);
  });
});

describe('idempotency keys', () => {
  it('are deterministic per trigger job, rule and channel', () => {
    const key = idempotencyKey('trigger-new_issue-1-1700000000000', 2, 3);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKey('trigger-new_issue-1-1700000000000', 2, 3)).toBe(key);
    expect(idempotencyKey('trigger-new_issue-1-1700000000000', 2, 4)).not.toBe(key);
    expect(idempotencyKey('trigger-new_issue-1-1700000000000', 5, 3)).not.toBe(key);
    expect(idempotencyKey('trigger-new_issue-1-1700000000001', 2, 3)).not.toBe(key);
    expect(deliveryJobId(key)).toBe(`deliver-${key}`);
  });
});

describe('monitor kinds', () => {
  it('let only the listed kinds of monitor issue through', () => {
    const parsed = parseConditions({ monitor_kinds: ['uptime', 'disk'] });
    expect(parsed).toEqual({ monitorKinds: ['uptime'] });
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: null, issueKind: 'uptime' })).toBe(
      true,
    );
    expect(conditionsMatch(parsed, { issueLevel: 'error', environment: null, issueKind: 'cron' })).toBe(
      false,
    );
    expect(
      conditionsMatch(parseConditions({}), { issueLevel: 'error', environment: null, issueKind: 'cron' }),
    ).toBe(true);
  });
});
