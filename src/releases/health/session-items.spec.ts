import { readSessionItems, SessionClass, validRelease, worstClassOf } from './session-items';

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const iso = (ms: number) => new Date(ms).toISOString();
const update = (fields: Record<string, unknown> = {}) => ({
  payload: JSON.stringify({
    sid: 'B1A9D5E0-0F7C-4C4B-9B1E-6C2C0B4D2E11',
    init: true,
    started: iso(NOW - 60_000),
    timestamp: iso(NOW),
    status: 'ok',
    errors: 0,
    attrs: { release: 'shop@1.0.0', environment: 'production' },
    ...fields,
  }),
});

describe('readSessionItems', () => {
  it('reads an update: its bucket, order, class and user', () => {
    const { records, skipped } = readSessionItems([update({ did: 'alice', seq: 7 })], [], NOW);
    expect(skipped.size).toBe(0);
    expect(records).toEqual([
      {
        kind: 'update',
        sid: 'b1a9d5e00f7c4c4b9b1e6c2c0b4d2e11',
        order: 7,
        sessionClass: SessionClass.Healthy,
        ended: false,
        init: true,
        hour: Math.floor((NOW - 60_000) / 3_600_000),
        release: 'shop@1.0.0',
        environment: 'production',
        did: 'alice',
      },
    ]);
  });

  it.each([
    ['ok', 0, SessionClass.Healthy, false],
    ['ok', 2, SessionClass.Errored, false],
    ['exited', 0, SessionClass.Healthy, true],
    ['exited', 1, SessionClass.Errored, true],
    ['errored', 0, SessionClass.Errored, true],
    ['unhandled', 0, SessionClass.Unhandled, true],
    ['abnormal', 0, SessionClass.Abnormal, true],
    ['crashed', 0, SessionClass.Crashed, true],
  ])('status %s with %d errors: class %d, ended %s', (status, errors, sessionClass, ended) => {
    const [record] = readSessionItems([update({ status, errors })], [], NOW).records;
    expect(record).toMatchObject({ sessionClass, ended });
  });

  it('orders by timestamp without seq, and takes a timestamp before started as started', () => {
    const [late] = readSessionItems([update({ timestamp: iso(NOW - 1000) })], [], NOW).records;
    expect(late).toMatchObject({ order: NOW - 1000 });
    const [early] = readSessionItems([update({ timestamp: iso(NOW - 120_000) })], [], NOW).records;
    expect(early).toMatchObject({ order: NOW - 60_000 });
  });

  it('skips what cannot be trusted, by reason, and keeps the rest', () => {
    const { records, skipped } = readSessionItems(
      [
        update(),
        update({ attrs: { environment: 'production' } }),
        update({ attrs: { release: 'latest' } }),
        update({ status: 'exploded' }),
        update({ started: iso(NOW - 5 * 86_400_000 - 1) }),
        update({ timestamp: iso(NOW + 61_000) }),
        update({ sid: 'nope' }),
        update({ errors: 1.5 }),
        update({ seq: -1 }),
        { payload: '[1]' },
        undefined,
      ],
      [],
      NOW,
    );
    expect(records).toHaveLength(1);
    expect(Object.fromEntries(skipped)).toEqual({
      invalid_release: 2,
      invalid_status: 1,
      timestamp: 2,
      invalid_session: 3,
      invalid_json: 1,
      too_large: 1,
    });
  });

  it('drops an invalid environment, not the session', () => {
    const [record] = readSessionItems(
      [update({ attrs: { release: 'r', environment: 'a/b' } })],
      [],
      NOW,
    ).records;
    expect(record).toMatchObject({ release: 'r', environment: '' });
  });

  it('reads aggregate buckets as Relay counts them, skipping bad buckets alone', () => {
    const payload = JSON.stringify({
      attrs: { release: 'api@2' },
      aggregates: [
        { started: iso(NOW), exited: 5, errored: 2, unhandled: 1, abnormal: 1, crashed: 1, did: 'u1' },
        { started: iso(NOW), exited: -1 },
        { started: iso(NOW), exited: 2_000_000 },
        { started: iso(NOW - 6 * 86_400_000), exited: 1 },
        { started: iso(NOW) },
      ],
    });
    const { records, skipped } = readSessionItems([], [{ payload }], NOW);
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'aggregate',
        sessions: 10,
        errored: 3,
        abnormal: 1,
        crashed: 1,
        did: 'u1',
      }),
    ]);
    expect(worstClassOf(records[0] as never)).toBe(SessionClass.Crashed);
    expect(Object.fromEntries(skipped)).toEqual({ invalid_session: 2, timestamp: 1 });
  });
});

describe('validRelease', () => {
  it.each([
    ['shop@1.2.3', true],
    ['a b', true],
    ['', false],
    ['.', false],
    ['..', false],
    [' ', false],
    ['latest', false],
    ['a/b', false],
    ['a\\b', false],
    ['a\nb', false],
    ['x'.repeat(201), false],
    [42, false],
  ])('%j → %s', (release, valid) => {
    expect(validRelease(release)).toBe(valid);
  });
});
