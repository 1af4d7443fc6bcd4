import { RepeatedLog } from './repeated-log';

describe('RepeatedLog', () => {
  it('writes the first occurrence, counts the repeats, and reports them with the next line', () => {
    const lines: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => lines.push(args), error: () => undefined };
    const log = new RepeatedLog(logger, 1_000);
    const realNow = Date.now;
    let now = 1_000_000;
    Date.now = () => now;
    try {
      expect(log.warn('db', 'database unavailable')).toBe(true);
      for (let i = 0; i < 500; i++) expect(log.warn('db', 'database unavailable')).toBe(false);
      expect(log.warn('other', 'something else')).toBe(true);
      now += 1_001;
      expect(log.warn('db', 'database unavailable')).toBe(true);
    } finally {
      Date.now = realNow;
    }
    expect(lines).toHaveLength(3);
    expect(lines[2]).toEqual([{ repeated: 500 }, 'database unavailable (500 more in the last 1 s)']);
  });
});
