import { classOfFailedReason, countByClass } from './failed-reason';

describe('classOfFailedReason', () => {
  it.each([
    ['invalid event: event payload is not a JSON object', 'invalid'],
    ['cannot be stored: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)', 'data'],
    ['cannot be stored: cache lookup failed for type 0 (SQLSTATE XX000)', 'data'],
    ['cannot be stored: could not write init file (SQLSTATE XX000, FATAL)', 'unavailable'],
    ['failed: deadlock detected (SQLSTATE 40P01)', 'conflict'],
    ["failed: Cannot read properties of undefined (reading 'id')", 'unknown'],
    ['job stalled more than allowable limit', 'stalled'],
    // An outage this job met alone: never read as one again.
    ['failed while the database stored other events: Connection terminated unexpectedly', 'unknown'],
    // Written by earlier versions: no prefix, no SQLSTATE.
    ['cannot be stored: could not write init file', 'unavailable'],
    ['Connection terminated unexpectedly', 'unavailable'],
    ['event payload is not a JSON object', 'unknown'],
    ['', 'unknown'],
  ])('reads "%s" as %s', (reason, expected) => {
    expect(classOfFailedReason(reason)).toBe(expected);
  });

  it('counts a failed set by class, every class present', () => {
    expect(
      countByClass([
        { id: '1', reason: 'invalid event: not an object' },
        { id: '2', reason: 'cannot be stored: x (SQLSTATE 23505)' },
        { id: '3', reason: 'cannot be stored: y (SQLSTATE 22P05)' },
        { id: '4', reason: 'cannot be stored: could not write init file' },
      ]),
    ).toEqual({ invalid: 1, data: 2, unavailable: 1, conflict: 0, unknown: 0, stalled: 0 });
  });
});
