import {
  afterFailures,
  afterSuccess,
  ThresholdEffect,
  Thresholds,
  ThresholdState,
} from './monitor-thresholds';

/** Runs results (true: a success) from `pending`; the state and the effects on the way. */
function run(results: boolean[], thresholds: Thresholds) {
  let state: ThresholdState = { health: 'pending', consecutiveFailures: 0, consecutiveSuccesses: 0 };
  const effects: ThresholdEffect[] = [];
  for (const ok of results) {
    const step = ok ? afterSuccess(state, thresholds) : afterFailures(state, thresholds);
    state = step.state;
    if (step.effect) effects.push(step.effect);
  }
  return { state, effects };
}

const limits = (failureThreshold: number, recoveryThreshold: number): Thresholds => ({
  failureThreshold,
  recoveryThreshold,
});

describe('monitor thresholds', () => {
  it('is up after the first success and down after one failure with thresholds of 1', () => {
    expect(run([true], limits(1, 1)).state.health).toBe('up');
    expect(run([true, false], limits(1, 1))).toEqual({
      state: { health: 'down', consecutiveFailures: 1, consecutiveSuccesses: 0 },
      effects: ['opened'],
    });
    expect(run([true, false, true], limits(1, 1)).effects).toEqual(['opened', 'recovered']);
  });

  it('waits for the failure threshold of consecutive failures, counted afresh after a success', () => {
    expect(run([false, false], limits(3, 1))).toMatchObject({ state: { health: 'pending' }, effects: [] });
    expect(run([false, false, true, false, false], limits(3, 1)).effects).toEqual([]);
    expect(run([false, false, false], limits(3, 1)).effects).toEqual(['opened']);
  });

  it('counts every failure after the one that opened the incident on it', () => {
    expect(run([false, false, false, false, false], limits(3, 1))).toEqual({
      state: { health: 'down', consecutiveFailures: 5, consecutiveSuccesses: 0 },
      effects: ['opened', 'counted', 'counted'],
    });
  });

  it('waits for the recovery threshold of consecutive successes', () => {
    expect(run([false, true, true], limits(1, 3))).toMatchObject({
      state: { health: 'down' },
      effects: ['opened'],
    });
    expect(run([false, true, true, false, true, true, true], limits(1, 3)).effects).toEqual([
      'opened',
      'counted',
      'recovered',
    ]);
  });

  it('names the failure of a run that reached the threshold', () => {
    const up: ThresholdState = { health: 'up', consecutiveFailures: 1, consecutiveSuccesses: 0 };
    expect(afterFailures(up, limits(3, 1), 5)).toMatchObject({ effect: 'opened', fromIndex: 1 });
    expect(afterFailures(up, limits(1, 1), 5)).toMatchObject({ effect: 'opened', fromIndex: 0 });
    expect(afterFailures(up, limits(10, 1), 5)).toMatchObject({ effect: null, fromIndex: -1 });
    const down: ThresholdState = { health: 'down', consecutiveFailures: 4, consecutiveSuccesses: 0 };
    expect(afterFailures(down, limits(3, 1), 5)).toMatchObject({
      effect: 'counted',
      fromIndex: 0,
      state: { consecutiveFailures: 9 },
    });
  });

  it('keeps a held monitor up, counting, and lets it go down once released', () => {
    const held = { ...limits(2, 1), holdUp: true };
    const step = afterFailures({ health: 'up', consecutiveFailures: 5, consecutiveSuccesses: 0 }, held);
    expect(step).toEqual({
      state: { health: 'up', consecutiveFailures: 6, consecutiveSuccesses: 0 },
      effect: null,
      fromIndex: -1,
    });
    expect(afterFailures(step.state, limits(2, 1)).effect).toBe('opened');
  });
});
