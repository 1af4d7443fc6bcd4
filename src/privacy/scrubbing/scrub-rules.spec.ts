import { SCRUBBED_RULE_WORDS } from '../../../dashboard/src/scrub-rule-words';
import { SCRUB_RULES } from './scrub-rules';

describe('scrub rules', () => {
  it('has words on the event page for every rule an event can record, and no other', () => {
    expect(Object.keys(SCRUBBED_RULE_WORDS).sort()).toEqual(Object.keys(SCRUB_RULES).sort());
  });
});
