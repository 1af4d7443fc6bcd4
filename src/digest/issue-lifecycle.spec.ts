import { IssueBeforeBatch, lifecycleChange } from './issue-lifecycle';

const NOW = new Date('2026-06-01T12:00:00Z');
const base: IssueBeforeBatch = {
  state: 'open',
  eventCount: 10,
  resolvedIn: null,
  resolvedAbove: null,
  muteUntil: null,
  muteUntilCount: null,
  mutedEventCount: null,
};
const batch = (added: number, ...releases: string[]) => ({ added, releases: new Set(releases) });
const known = (version: string) => ({ version });

describe('what new events do to an issue', () => {
  it('leaves an open issue open', () => {
    expect(lifecycleChange(base, batch(3), NOW, known)).toBeNull();
  });

  it('reopens a plainly resolved issue on any event', () => {
    expect(lifecycleChange({ ...base, state: 'resolved' }, batch(1), NOW, known)).toBe('regressed');
  });

  it('reopens an issue resolved in a release only for a newer release', () => {
    const resolved = { ...base, state: 'resolved', resolvedIn: '2.0.0', resolvedAbove: '2.0.0' };
    expect(lifecycleChange(resolved, batch(2, '2.0.0', '1.9.9'), NOW, known)).toBeNull();
    expect(lifecycleChange(resolved, batch(1), NOW, known)).toBeNull();
    expect(lifecycleChange(resolved, batch(2, '1.0.0', '2.0.1'), NOW, known)).toBe('regressed');
  });

  it('reopens an issue resolved in the next release, with no release known then, for any release', () => {
    const resolved = { ...base, state: 'resolved', resolvedIn: 'next_release', resolvedAbove: null };
    expect(lifecycleChange(resolved, batch(1), NOW, known)).toBeNull();
    expect(lifecycleChange(resolved, batch(1, 'anything'), NOW, known)).toBe('regressed');
  });

  it('opens a muted issue once its time has come, and not before', () => {
    const muted = { ...base, state: 'muted', muteUntil: new Date('2026-06-01T12:00:00Z') };
    expect(lifecycleChange(muted, batch(1), NOW, known)).toBe('unmuted');
    expect(
      lifecycleChange({ ...muted, muteUntil: new Date('2026-06-01T12:00:01Z') }, batch(1), NOW, known),
    ).toBeNull();
  });

  it('opens a muted issue when the events since muting reach the count', () => {
    const muted = { ...base, state: 'muted', muteUntilCount: 5, mutedEventCount: 10 };
    expect(lifecycleChange(muted, batch(4), NOW, known)).toBeNull();
    expect(lifecycleChange(muted, batch(5), NOW, known)).toBe('unmuted');
    expect(lifecycleChange({ ...muted, eventCount: 13 }, batch(2), NOW, known)).toBe('unmuted');
  });

  it('keeps an issue muted for good muted, and changes nothing without new events', () => {
    expect(lifecycleChange({ ...base, state: 'muted' }, batch(100), NOW, known)).toBeNull();
    expect(lifecycleChange({ ...base, state: 'resolved' }, batch(0), NOW, known)).toBeNull();
  });
});
