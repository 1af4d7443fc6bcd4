import { thrownBy } from '../../test/helpers/thrown';
import { RuleConditionsError, validateRuleConditions } from './rule-conditions';

const errorOf = (work: () => unknown) => thrownBy(RuleConditionsError, work).message;

describe('validateRuleConditions', () => {
  it('accepts the supported keys and normalises them', () => {
    expect(validateRuleConditions({})).toEqual({});
    expect(
      validateRuleConditions({
        environments: [' production', 'production', 'staging'],
        min_level: 'warning',
      }),
    ).toEqual({
      environments: ['production', 'staging'],
      min_level: 'warning',
    });
    expect(validateRuleConditions({ environments: [] })).toEqual({});
    expect(validateRuleConditions({ environments: null, min_level: null })).toEqual({});
  });

  it.each([
    [[], 'conditions must be an object'],
    ['x', 'conditions must be an object'],
    [{ level: 'error' }, 'conditions.level is not supported (allowed: environments, min_level)'],
    [
      { environments: 'production' },
      'conditions.environments must be a list of at most 100 non-empty strings',
    ],
    [{ environments: [''] }, 'conditions.environments must be a list of at most 100 non-empty strings'],
    [{ environments: [1] }, 'conditions.environments must be a list of at most 100 non-empty strings'],
    [{ min_level: 'critical' }, 'conditions.min_level must be one of debug, info, warning, error, fatal'],
    [{ min_level: 3 }, 'conditions.min_level must be one of debug, info, warning, error, fatal'],
  ])('rejects %j', (conditions, message) => {
    expect(errorOf(() => validateRuleConditions(conditions))).toBe(message);
  });
});

describe('monitor rule conditions', () => {
  it('take monitor_kinds, deduplicated, only for the monitor types', () => {
    expect(
      validateRuleConditions({ monitor_kinds: ['cron', 'cron'], environments: ['production'] }, true),
    ).toEqual({
      monitor_kinds: ['cron'],
      environments: ['production'],
    });
    expect(validateRuleConditions({ monitor_kinds: [] }, true)).toEqual({});
    expect(errorOf(() => validateRuleConditions({ monitor_kinds: ['disk'] }, true))).toBe(
      'conditions.monitor_kinds must be a list of cron, uptime',
    );
    expect(errorOf(() => validateRuleConditions({ monitor_kinds: ['cron'] }))).toBe(
      'conditions.monitor_kinds is not supported (allowed: environments, min_level)',
    );
  });
});
