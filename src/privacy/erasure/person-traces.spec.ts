import { distinctIdsOf } from './person-traces.service';

describe('distinctIdsOf', () => {
  it('takes the value as sent, and an e-mail address also in lower case', () => {
    expect(distinctIdsOf({ field: 'id', value: 'Ann-1' })).toEqual(['Ann-1']);
    expect(distinctIdsOf({ field: 'email', value: 'Ann@Example.com' })).toEqual([
      'Ann@Example.com',
      'ann@example.com',
    ]);
    expect(distinctIdsOf({ field: null, value: 'ann@example.com' })).toEqual(['ann@example.com']);
    expect(distinctIdsOf({ field: 'username', value: 'Ann' })).toEqual(['Ann']);
  });
});
