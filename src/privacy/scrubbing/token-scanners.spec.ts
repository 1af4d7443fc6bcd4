import { growth } from '../../../test/helpers/relative-cost';
import { KeyClassifier } from './sensitive-keys';
import { Finding, findSensitivePairs } from './text-scanners';
import { findAwsAccessKeyIds, findJwts, findStripeKeys } from './token-scanners';

const found = (scan: (text: string, findings: Finding[]) => void, text: string): string[] => {
  const findings: Finding[] = [];
  scan(text, findings);
  return findings.map((finding) => text.slice(finding.start, finding.end));
};

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('JSON Web Tokens', () => {
  it('finds a signed token without Bearer, in text, URLs and JSON', () => {
    expect(found(findJwts, `session restored from ${JWT} after login`)).toEqual([JWT]);
    expect(found(findJwts, `https://app.example/verify/${JWT}?next=/`)).toEqual([JWT]);
    expect(found(findJwts, `{"id_token":"${JWT}"}`)).toEqual([JWT]);
    expect(found(findJwts, `it was ${JWT}.`)).toEqual([JWT]);
  });

  it('finds an unsigned token and an encrypted one (five parts)', () => {
    expect(found(findJwts, 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.')).toEqual(['eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.']);
    const jwe = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..iv_part.cipher-text.tag';
    expect(found(findJwts, `jwe ${jwe} end`)).toEqual([jwe]);
  });

  it('leaves version strings, dotted names and words that start like a token', () => {
    expect(found(findJwts, 'upgraded to 1.2.3 from 1.2.2-beta.4')).toEqual([]);
    expect(found(findJwts, 'eyJohn.smith.example')).toEqual([]);
    expect(found(findJwts, 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9')).toEqual([]);
    expect(found(findJwts, 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0')).toEqual([]);
    expect(found(findJwts, `x${JWT}`)).toEqual([]);
    expect(found(findJwts, `a.b.c.${JWT}`)).toEqual([]);
  });
});

describe('Stripe keys', () => {
  it('finds secret and restricted keys, live and test', () => {
    const live = 'sk_live_51H8xYzAbCdEfGhIjKlMnOpQr';
    const restricted = 'rk_test_4eC39HqLyjWDarjtT1zdp7dc';
    expect(found(findStripeKeys, `stripe.api_key = "${live}"`)).toEqual([live]);
    expect(found(findStripeKeys, `key ${restricted}, retrying`)).toEqual([restricted]);
    expect(found(findStripeKeys, `sk_test_4eC39HqLyjWDarjtT1zdp7dc`)).toEqual(['sk_test_4eC39HqLyjWDarjtT1zdp7dc']);
  });

  it('leaves publishable keys, short names and words that contain the prefix', () => {
    expect(found(findStripeKeys, 'pk_live_51H8xYzAbCdEfGhIjKlMnOpQr')).toEqual([]);
    expect(found(findStripeKeys, 'sk_live_demo')).toEqual([]);
    expect(found(findStripeKeys, 'task_live_settingsAndMoreOfThem')).toEqual([]);
    expect(found(findStripeKeys, 'ask_test_questionsAboutTheirFuture')).toEqual([]);
  });
});

describe('AWS access key ids', () => {
  it('finds long-term (AKIA) and temporary (ASIA) ids of 20 characters', () => {
    expect(found(findAwsAccessKeyIds, 'aws_access_key_id=AKIAIOSFODNN7EXAMPLE')).toEqual(['AKIAIOSFODNN7EXAMPLE']);
    expect(found(findAwsAccessKeyIds, 'assumed ASIAY34FZKBOKMUTVV7A: denied')).toEqual(['ASIAY34FZKBOKMUTVV7A']);
  });

  it('leaves words that start with AKIA, lower case, and ids too short or too long', () => {
    expect(found(findAwsAccessKeyIds, 'AKIANAPOLIS is not a city')).toEqual([]);
    expect(found(findAwsAccessKeyIds, 'AKIAIOSFODNN7EXAMPL')).toEqual([]);
    expect(found(findAwsAccessKeyIds, 'AKIAIOSFODNN7EXAMPLE1')).toEqual([]);
    expect(found(findAwsAccessKeyIds, 'akiaiosfodnn7example')).toEqual([]);
    expect(found(findAwsAccessKeyIds, 'AKIAIOSFODNN7exAMPLE')).toEqual([]);
    expect(found(findAwsAccessKeyIds, 'XAKIAIOSFODNN7EXAMPLE')).toEqual([]);
  });
});

describe('session keys outside cookies', () => {
  const keys = new KeyClassifier({ sensitiveFields: [], safeFields: [] });
  const pairs = (text: string): string[] =>
    found((t, f) => findSensitivePairs(t, (key) => keys.classify(key), f), text);

  it('scrubs sessionid and session_key by name, and keeps a session cookie named as one', () => {
    expect(keys.classify('sessionid')).toBe('sensitive_key');
    expect(keys.classify('Session_Key')).toBe('sensitive_key');
    expect(keys.classifyCookie('sessionid')).toBe('session_cookie');
    expect(pairs('restored sessionid=abc123 for user')).toEqual(['abc123']);
    expect(pairs('{"session_key": "k9x"}')).toEqual(['k9x']);
  });

  it('leaves other keys that only mention a session', () => {
    expect(keys.classify('session_count')).toBeNull();
    expect(keys.classify('sessions')).toBeNull();
  });
});

describe('cost', () => {
  const scanAll = (input: string): void => {
    const findings: Finding[] = [];
    findJwts(input, findings);
    findStripeKeys(input, findings);
    findAwsAccessKeyIds(input, findings);
  };
  it.each([
    ['token headers', 'eyJ'.repeat(30_000)],
    ['token headers and dots', 'eyJaaaaaaaaaaaaaaaaaaaa.'.repeat(5_000)],
    ['Stripe prefixes', 'sk_live_'.repeat(12_000)],
    ['Stripe prefixes without a word boundary', 'xsk_test_a'.repeat(10_000)],
    ['AWS prefixes', 'AKIA'.repeat(25_000)],
    ['AWS ids one short', 'ASIAABCDEFGHIJKLMNO '.repeat(5_000)],
  ])('stays linear on adversarial %s', (_name, text) => {
    const larger = text.repeat(8);
    // Eight times the input: about 8 when linear, 64 when quadratic.
    expect(growth(() => scanAll(text), () => scanAll(larger), 24)).toBeLessThan(24);
  });
});
