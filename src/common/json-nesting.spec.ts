import { jsonNesting } from './json-nesting';

describe('jsonNesting', () => {
  it('measures nesting outside strings only', () => {
    expect(jsonNesting('{"a":[1,{"b":"[[[{{{"}],"c":"\\"["}', 100)).toBe(3);
  });
});
