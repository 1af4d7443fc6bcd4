import { dueSlots } from './uptime-slots';

describe('dueSlots', () => {
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

  it('runs the slot that is due and schedules the next', () => {
    expect(dueSlots(at(0), at(3), 60)).toEqual({ dueAt: at(0), nextDueAt: at(60) });
    expect(dueSlots(at(0), at(0), 60)).toEqual({ dueAt: at(0), nextDueAt: at(60) });
  });

  it('runs only the latest missed slot after an outage', () => {
    expect(dueSlots(at(0), at(610), 60)).toEqual({ dueAt: at(600), nextDueAt: at(660) });
  });
});
