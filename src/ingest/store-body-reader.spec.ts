import { thrownBy } from '../../test/helpers/thrown';
import { EnvelopeError } from './envelope-error';

const failure = (run: () => unknown) => thrownBy(EnvelopeError, run);
import { StoreBodyReader } from './store-body-reader';

const EVENT = '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","message":"hi"}';

describe('StoreBodyReader', () => {
  it('keeps an event JSON and its event_id', () => {
    const reader = new StoreBodyReader();
    reader.write(Buffer.from(EVENT));
    reader.end();
    expect(reader.event).toBe(EVENT);
    expect(reader.eventFacts?.eventId).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
  });

  it('rejects empty, non-object and oversized bodies', () => {
    expect(failure(() => new StoreBodyReader().end()).status).toBe(400);
    const array = new StoreBodyReader();
    array.write(Buffer.from('[]'));
    expect(failure(() => array.end()).status).toBe(400);
    expect(failure(() => new StoreBodyReader(10).write(Buffer.from('{"message":"long"}'))).status).toBe(413);
  });
});
