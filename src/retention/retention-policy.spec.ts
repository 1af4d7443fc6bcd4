import type { EventPartition } from '../events/event-partitions';
import { planPartitions } from './retention-policy';

const day = (date: string): EventPartition => {
  const from = new Date(`${date}T00:00:00Z`);
  return { name: `events_p${date.replace(/-/g, '')}`, from, to: new Date(from.getTime() + 86_400_000) };
};
const now = new Date('2026-06-30T12:00:00Z');

describe('planPartitions', () => {
  it('drops whole days once the retention has passed their end, and only those', () => {
    const plan = planPartitions([day('2026-06-19'), day('2026-06-20'), day('2026-06-21')], now, 10, []);
    // 10 days before now is 2026-06-20T12:00: the 19th ended before it, the 20th did not.
    expect(plan.map((action) => action.kind)).toEqual(['drop', 'keep', 'keep']);
  });

  it('keeps a day that a project keeps longer, deleting the other projects’ rows of it', () => {
    const plan = planPartitions([day('2026-06-10'), day('2026-06-25')], now, 10, [
      { projectId: 7, days: 30 },
      { projectId: 8, days: 2 },
    ]);
    expect(plan[0]).toEqual({
      kind: 'delete',
      partition: day('2026-06-10'),
      deletions: [
        { before: day('2026-06-10').to, except: [7, 8] },
        { before: day('2026-06-10').to, only: [8] },
      ],
    });
    // Only project 8 (2 days) has passed the 25th.
    expect(plan[1]).toEqual({
      kind: 'delete',
      partition: day('2026-06-25'),
      deletions: [{ before: day('2026-06-25').to, only: [8] }],
    });
  });

  it('drops what the longest retention has passed', () => {
    const plan = planPartitions([day('2026-05-01')], now, 10, [{ projectId: 7, days: 30 }]);
    expect(plan[0].kind).toBe('drop');
  });

  it('deletes the old rows of the partition kept from before partitioning by each cutoff', () => {
    const legacy: EventPartition = {
      name: 'events_legacy',
      from: null,
      to: new Date('2026-06-29T00:00:00Z'),
    };
    const plan = planPartitions([legacy], now, 10, [{ projectId: 3, days: 20 }]);
    expect(plan[0]).toEqual({
      kind: 'delete',
      partition: legacy,
      deletions: [
        { before: new Date('2026-06-20T12:00:00Z'), except: [3] },
        { before: new Date('2026-06-10T12:00:00Z'), only: [3] },
      ],
    });
    expect(planPartitions([legacy], new Date('2026-07-30T00:00:00Z'), 10, [])[0].kind).toBe('drop');
  });
});
