import { thrownBy } from '../../test/helpers/thrown';
import { parseReleaseHealthConditions, validateReleaseHealthConditions } from './release-health-conditions';
import { RuleConditionsError } from './rule-conditions';

const errorOf = (work: () => unknown) => thrownBy(RuleConditionsError, work).message;

const VALID = { metric: 'crash_free_sessions', threshold: 99.5, window_hours: 24, min_sessions: 100 };

describe('validateReleaseHealthConditions', () => {
  it('accepts both metrics, the bounds, and normalises environments', () => {
    expect(validateReleaseHealthConditions(VALID)).toEqual(VALID);
    expect(
      validateReleaseHealthConditions({
        metric: 'crash_free_users',
        threshold: 100,
        window_hours: 168,
        min_sessions: 1,
        environments: [' production', 'production', 'staging'],
      }),
    ).toEqual({
      metric: 'crash_free_users',
      threshold: 100,
      window_hours: 168,
      min_sessions: 1,
      environments: ['production', 'staging'],
    });
    expect(validateReleaseHealthConditions({ ...VALID, threshold: 0.01, window_hours: 1 })).toMatchObject({
      threshold: 0.01,
      window_hours: 1,
    });
    expect(validateReleaseHealthConditions({ ...VALID, environments: [] })).toEqual(VALID);
    expect(validateReleaseHealthConditions({ ...VALID, environments: null })).toEqual(VALID);
  });

  it('names each bad value', () => {
    expect(errorOf(() => validateReleaseHealthConditions([]))).toBe('conditions must be an object');
    expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, min_level: 'error' }))).toBe(
      'conditions.min_level is not supported for release_health rules ' +
        '(allowed: metric, threshold, window_hours, min_sessions, environments)',
    );
    const metric = 'conditions.metric must be one of crash_free_sessions, crash_free_users';
    expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, metric: 'adoption' }))).toBe(metric);
    const { metric: _, ...noMetric } = VALID;
    expect(errorOf(() => validateReleaseHealthConditions(noMetric))).toBe(metric);

    const threshold = 'conditions.threshold must be a percentage greater than 0 and at most 100';
    for (const bad of [0, -1, 100.01, '95', null, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, threshold: bad }))).toBe(threshold);
    }
    const window = 'conditions.window_hours must be a whole number of hours from 1 to 168';
    for (const bad of [0, 169, 1.5, '24', undefined]) {
      expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, window_hours: bad }))).toBe(window);
    }
    const min = 'conditions.min_sessions must be a whole number from 1 to 1000000000';
    for (const bad of [0, -5, 2.5, '10', 1_000_000_001]) {
      expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, min_sessions: bad }))).toBe(min);
    }
    const environments = 'conditions.environments must be a list of at most 100 non-empty strings';
    for (const bad of ['production', [''], ['  '], [1], Array.from({ length: 101 }, (_, i) => `e${i}`)]) {
      expect(errorOf(() => validateReleaseHealthConditions({ ...VALID, environments: bad }))).toBe(
        environments,
      );
    }
  });

  it('reads stored conditions back, or null when they are not valid', () => {
    expect(parseReleaseHealthConditions(VALID)).toEqual(VALID);
    expect(parseReleaseHealthConditions({ environments: ['production'] })).toBeNull();
  });
});
