import {
  Finding,
  findBearerTokens,
  findCardNumbers,
  findIbans,
  findIpAddresses,
  findPemKeys,
  findSensitivePairs,
  findUrlPasswords,
  isValidIban,
  passesLuhn,
} from './text-scanners';
import { KeyClassifier } from './sensitive-keys';

const found = (scan: (text: string, findings: Finding[]) => void, text: string): string[] => {
  const findings: Finding[] = [];
  scan(text, findings);
  return findings.map((finding) => text.slice(finding.start, finding.end));
};

const keys = new KeyClassifier({ sensitiveFields: ['pin_code'], safeFields: ['auth_method'] });
const pairs = (text: string): string[] =>
  found((t, f) => findSensitivePairs(t, (key) => keys.classify(key), f), text);

describe('card numbers', () => {
  it('finds Luhn-valid numbers of 13 to 19 digits, solid or grouped', () => {
    expect(found(findCardNumbers, 'paid with 4111111111111111 today')).toEqual(['4111111111111111']);
    expect(found(findCardNumbers, 'card 4111 1111 1111 1111.')).toEqual(['4111 1111 1111 1111']);
    expect(found(findCardNumbers, 'amex 3782-822463-10005')).toEqual(['3782-822463-10005']);
  });

  it('leaves numbers that fail the Luhn check, are too short or too long, or are part of a word', () => {
    expect(found(findCardNumbers, 'order 4111111111111112')).toEqual([]);
    expect(found(findCardNumbers, 'id 411111111111')).toEqual([]);
    expect(found(findCardNumbers, '41111111111111111111111')).toEqual([]);
    expect(found(findCardNumbers, 'x4111111111111111')).toEqual([]);
    expect(found(findCardNumbers, 'ts 1700000000000')).toEqual([]);
  });

  it('checks Luhn like the reference examples', () => {
    expect(passesLuhn([7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 3])).toBe(true);
    expect(passesLuhn([7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 4])).toBe(false);
  });
});

describe('IBANs', () => {
  it('finds valid IBANs, solid or in groups of four', () => {
    expect(found(findIbans, 'to DE89370400440532013000 please')).toEqual(['DE89370400440532013000']);
    expect(found(findIbans, 'IBAN: GB82 WEST 1234 5698 7654 32, thanks')).toEqual([
      'GB82 WEST 1234 5698 7654 32',
    ]);
  });

  it('leaves strings with a wrong check sum', () => {
    expect(found(findIbans, 'DE89370400440532013001')).toEqual([]);
    expect(isValidIban('GB82WEST12345698765432')).toBe(true);
    expect(isValidIban('GB82WEST12345698765433')).toBe(false);
  });
});

describe('PEM keys', () => {
  it('finds the body of a private key, not of a certificate', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQ==\n-----END RSA PRIVATE KEY-----';
    expect(found(findPemKeys, `config: ${key} end`)).toEqual(['\nMIIEow\nAKCAQ==\n']);
    expect(found(findPemKeys, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----')).toEqual([]);
  });

  it('takes a key without its footer to the end of the text', () => {
    expect(found(findPemKeys, '-----BEGIN PRIVATE KEY-----abc')).toEqual(['abc']);
  });
});

describe('bearer tokens', () => {
  it('finds the token after Bearer in any case', () => {
    expect(found(findBearerTokens, 'Authorization: Bearer eyJhbGc.x.y')).toEqual(['eyJhbGc.x.y']);
    expect(found(findBearerTokens, 'sent "bearer  abc123" twice')).toEqual(['abc123']);
    expect(found(findBearerTokens, 'cardbearer abc')).toEqual([]);
    expect(found(findBearerTokens, 'the bearer')).toEqual([]);
  });
});

describe('passwords in URLs', () => {
  it('finds the password of a URL, keeping its user', () => {
    expect(found(findUrlPasswords, 'postgres://app:s3cr%21t@db:5432/x')).toEqual(['s3cr%21t']);
    expect(found(findUrlPasswords, 'see https://example.com/a:b@c')).toEqual([]);
    expect(found(findUrlPasswords, 'https://user@example.com')).toEqual([]);
  });
});

describe('IP addresses', () => {
  it('finds IPv4 and IPv6 addresses', () => {
    expect(found(findIpAddresses, 'from 203.0.113.9.')).toEqual(['203.0.113.9']);
    expect(found(findIpAddresses, 'peer 2001:db8::1 closed')).toEqual(['2001:db8::1']);
    expect(found(findIpAddresses, 'version 1.2.3 and 999.1.1.1')).toEqual([]);
  });
});

describe('sensitive pairs in text', () => {
  it('finds the values of sensitive keys in query strings, forms, JSON and log lines', () => {
    expect(pairs('/login?user=ann&password=hunter2&next=/')).toEqual(['hunter2']);
    expect(pairs('user%5Bpassword%5D=x1&api_key=k2')).toEqual(['x1', 'k2']);
    expect(pairs('{"access_token": "t0k", "name": "n"}')).toEqual(['t0k']);
    expect(pairs('failed with secret: abc def')).toEqual(['abc']);
    expect(pairs('pin_code=1234')).toEqual(['1234']);
  });

  it('takes header-like values to the end of the line', () => {
    expect(pairs('Authorization: Basic dXNlcjpwYXNz\nHost: x')).toEqual(['Basic dXNlcjpwYXNz']);
    expect(pairs('Cookie: a=1; b=2')).toEqual(['a=1; b=2']);
  });

  it('leaves safe fields, URLs and ordinary words', () => {
    expect(pairs('auth_method=password')).toEqual([]);
    expect(pairs('https://example.com/token')).toEqual([]);
    expect(pairs('the password was wrong')).toEqual([]);
  });
});

describe('cost', () => {
  it.each([
    ['digits and separators', '1 '.repeat(50_000)],
    ['URL separators', '://a:'.repeat(25_000)],
    ['bearer words', 'bearer '.repeat(15_000)],
    ['PEM headers', '-----BEGIN '.repeat(10_000)],
    ['key-like runs', 'token:token='.repeat(10_000)],
    ['IBAN-like runs', 'DE89 '.repeat(20_000)],
    ['hex and colons', 'a:'.repeat(50_000)],
  ])('stays linear on adversarial %s', (_name, text) => {
    const scan = (input: string): void => {
      const findings: Finding[] = [];
      findCardNumbers(input, findings);
      findIbans(input, findings);
      findPemKeys(input, findings);
      findBearerTokens(input, findings);
      findUrlPasswords(input, findings);
      findIpAddresses(input, findings);
      findSensitivePairs(input, (key) => keys.classify(key), findings);
    };
    // Eight times the input costs about eight times the time when linear, sixty-four times when
    // quadratic. The two sizes are timed in turns and the best of each kept, so that a busy spell
    // of the machine weighs on both; the bound sits between the two cases.
    const time = (input: string): number => {
      const started = process.hrtime.bigint();
      scan(input);
      return Number(process.hrtime.bigint() - started);
    };
    const larger = text.repeat(8);
    scan(text);
    let single = Infinity;
    let eightfold = Infinity;
    for (let round = 0; round < 7; round++) {
      single = Math.min(single, time(text));
      eightfold = Math.min(eightfold, time(larger));
    }
    expect(eightfold / single).toBeLessThan(32);
  });
});
