import fc from 'fast-check';
import { normaliseEvent } from '../../digest/event-normaliser';
import { plantedEvent } from '../../../test/helpers/planted-secrets';
import { DEFAULT_SCRUB_SETTINGS, EventScrubber } from './event-scrubber';

describe('EventScrubber (property)', () => {
  const scrubber = new EventScrubber(DEFAULT_SCRUB_SETTINGS);

  it('leaves none of the secrets planted anywhere in an event', () => {
    fc.assert(
      fc.property(plantedEvent, ({ event, secrets }) => {
        const normalised = normaliseEvent(event, { eventId: 'b'.repeat(32), receivedAt: Date.now() });
        scrubber.scrub(normalised);
        const stored = JSON.stringify(normalised);
        for (const secret of secrets) expect(stored).not.toContain(secret);
        expect(normalised.scrubbed?.length).toBeGreaterThanOrEqual(secrets.length);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent: scrubbing a scrubbed event changes nothing more', () => {
    fc.assert(
      fc.property(plantedEvent, ({ event }) => {
        const once = normaliseEvent(event, { eventId: 'c'.repeat(32), receivedAt: Date.now() });
        scrubber.scrub(once);
        const snapshot = JSON.stringify({ ...once, scrubbed: undefined });
        delete once.scrubbed;
        scrubber.scrub(once);
        expect(once.scrubbed).toBeUndefined();
        expect(JSON.stringify({ ...once, scrubbed: undefined })).toBe(snapshot);
      }),
      { numRuns: 100 },
    );
  });
});
