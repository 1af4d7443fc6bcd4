import { InvalidInputError } from '../../common/domain-errors';
import { emailOf, parsePersonIdentifier } from './person-identifier';

describe('parsePersonIdentifier', () => {
  it('reads the user tag prefixes as one field', () => {
    expect(parsePersonIdentifier('id:42')).toEqual({ field: 'id', value: '42' });
    expect(parsePersonIdentifier(' email:Ann@Example.com ')).toEqual({
      field: 'email',
      value: 'Ann@Example.com',
    });
    expect(parsePersonIdentifier('username:ann')).toEqual({ field: 'username', value: 'ann' });
    expect(parsePersonIdentifier('ip:10.0.0.1')).toEqual({ field: 'ip_address', value: '10.0.0.1' });
  });

  it('takes anything else, IPv6 addresses included, as a bare value of any field', () => {
    expect(parsePersonIdentifier('ann@example.com')).toEqual({ field: null, value: 'ann@example.com' });
    expect(parsePersonIdentifier('2001:db8::1')).toEqual({ field: null, value: '2001:db8::1' });
    expect(parsePersonIdentifier('user:7')).toEqual({ field: null, value: 'user:7' });
  });

  it('refuses an empty identifier, an empty prefixed one and a huge one', () => {
    expect(() => parsePersonIdentifier('')).toThrow(InvalidInputError);
    expect(() => parsePersonIdentifier('   ')).toThrow(/identifier is empty/);
    expect(() => parsePersonIdentifier('email:')).toThrow(/names no value/);
    expect(() => parsePersonIdentifier('x'.repeat(1_001))).toThrow(/longer than/);
  });

  it('knows when the identifier may be an e-mail address', () => {
    expect(emailOf({ field: 'email', value: 'a@b.c' })).toBe('a@b.c');
    expect(emailOf({ field: null, value: 'a@b.c' })).toBe('a@b.c');
    expect(emailOf({ field: null, value: '42' })).toBeNull();
    expect(emailOf({ field: 'id', value: 'a@b.c' })).toBeNull();
  });
});
