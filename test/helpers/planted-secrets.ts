/**
 * fast-check arbitraries for events with secrets planted at random places and depths, for the
 * scrubbing property tests (unit: src/privacy/scrubbing; end to end: test/scrubbing.e2e-spec.ts).
 * Each planted secret is a unique marker, so a search for it anywhere is unambiguous.
 */
import fc from 'fast-check';

export interface Planted {
  /** The text that must not survive anywhere. */
  secret: string;
  /** How it is written where it is planted. */
  written: string | Record<string, unknown>;
}

const marker = fc.stringMatching(/^[a-z0-9]{10}$/).map((suffix) => `Zq${suffix}`);

function luhnCheckDigit(payload: number[]): number {
  let sum = 0;
  for (let position = 0; position < payload.length; position++) {
    let digit = payload[payload.length - 1 - position];
    if (position % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

const cardNumber = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }).map((digits) => {
  const payload = [4, ...digits.slice(1)];
  return [...payload, luhnCheckDigit(payload)].join('');
});

const germanIban = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }).map((digits) => {
  const bban = digits.join('');
  // D = 13, E = 14; check digits make the whole number ≡ 1 (mod 97).
  const rearranged = `${bban}131400`;
  let remainder = 0;
  for (const character of rearranged) remainder = (remainder * 10 + Number(character)) % 97;
  return `DE${String(98 - remainder).padStart(2, '0')}${bban}`;
});

const sensitiveKey = fc.constantFrom(
  'password',
  'db_password',
  'Passwd',
  'client_secret',
  'api_key',
  'X-Api-Key',
  'apiKey',
  'auth',
  'authToken',
  'credentials',
  'private_key',
  'access_token',
  'refreshToken',
  'sessionid',
  'session_key',
);

/** Sixteen upper-case letters and digits: the rest of an AWS access key id, unique per run. */
const awsKeyBody = fc.stringMatching(/^[A-Z0-9]{16}$/);

/** A signed JWT whose signature is the marker (any base64url text is a valid signature's shape). */
const jwt = (signature: string): string =>
  `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9.${signature}`;

/** A secret written as a value of its own (under a sensitive key, or recognisable by its shape). */
export const plantedValue: fc.Arbitrary<Planted & { key?: string }> = fc.oneof(
  fc.tuple(sensitiveKey, marker).map(([key, secret]) => ({ key, secret, written: secret })),
  cardNumber.map((card) => ({ secret: card, written: card })),
  germanIban.map((iban) => ({ secret: iban, written: iban })),
  marker.map((secret) => ({ secret, written: `Bearer ${secret}` })),
  marker.map((secret) => ({ secret, written: `https://deploy:${secret}@git.example.com/repo.git` })),
  marker.map((secret) => ({
    secret,
    written: `-----BEGIN RSA PRIVATE KEY-----\n${secret}\n-----END RSA PRIVATE KEY-----`,
  })),
  fc.tuple(sensitiveKey, marker).map(([key, secret]) => ({ secret, written: `page=2&${key}=${secret}&q=x` })),
  marker.map((secret) => ({ secret, written: `restored session ${jwt(`${secret}_sig`)} from storage` })),
  fc
    .tuple(fc.constantFrom('sk_live_', 'rk_live_', 'sk_test_', 'rk_test_'), marker)
    .map(([prefix, secret]) => ({ secret, written: `stripe key ${prefix}51H8x${secret}Qr refused` })),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), awsKeyBody)
    .map(([prefix, body]) => ({ secret: `${prefix}${body}`, written: `signed by ${prefix}${body}: denied` })),
  fc.tuple(sensitiveKey, marker).map(([key, secret]) => ({ secret, written: JSON.stringify({ id: 1, [key]: secret }) })),
  fc.tuple(sensitiveKey, marker).map(([key, secret]) => ({ secret, written: `login failed: ${key}=${secret} rejected` })),
);

/** Wraps a value in `depth` levels of objects under ordinary keys. */
function nest(value: unknown, path: string[]): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

const ordinaryKey = fc.constantFrom('data', 'payload', 'details', 'inner', 'items', 'meta', 'context');

export interface PlantedEvent {
  event: Record<string, unknown>;
  secrets: string[];
}

/** An SDK event with several secrets planted in extra, contexts, request, breadcrumbs, exception values, tags and message. */
export const plantedEvent: fc.Arbitrary<PlantedEvent> = fc
  .record({
    inExtra: fc.tuple(plantedValue, fc.array(ordinaryKey, { maxLength: 5 })),
    inContext: fc.tuple(plantedValue, fc.array(ordinaryKey, { maxLength: 3 })),
    inHeader: fc.oneof(
      marker.map((secret) => ({ name: 'Authorization', value: `Bearer ${secret}`, secret })),
      marker.map((secret) => ({ name: 'Cookie', value: `sessionid=${secret}; theme=dark`, secret })),
      marker.map((secret) => ({ name: 'X-Auth-Token', value: secret, secret })),
    ),
    inQuery: fc.tuple(sensitiveKey, marker),
    inBreadcrumb: plantedValue,
    inException: plantedValue,
    inTag: plantedValue,
    inMessage: plantedValue,
    title: fc.constantFrom('TypeError', 'PaymentError', 'DatabaseError'),
  })
  .map((planted) => {
    const asText = (value: Planted & { key?: string }): string =>
      value.key ? `${value.key}=${value.secret}` : (value.written as string);
    const asField = (value: Planted & { key?: string }): Record<string, unknown> => ({
      [value.key ?? 'note']: value.written,
    });
    const secrets = [
      planted.inExtra[0].secret,
      planted.inContext[0].secret,
      planted.inHeader.secret,
      planted.inQuery[1],
      planted.inBreadcrumb.secret,
      planted.inException.secret,
      planted.inTag.secret,
      planted.inMessage.secret,
    ];
    const event = {
      platform: 'node',
      level: 'error',
      message: `payment step failed ${asText(planted.inMessage)} after retry`,
      exception: {
        values: [
          {
            type: planted.title,
            value: `while calling upstream ${asText(planted.inException)} !`,
            stacktrace: { frames: [{ filename: 'app.js', function: 'pay', lineno: 3, in_app: true }] },
          },
        ],
      },
      extra: nest(asField(planted.inExtra[0]), planted.inExtra[1]),
      contexts: { app: nest(asField(planted.inContext[0]), planted.inContext[1]) },
      request: {
        url: 'https://shop.example/checkout',
        method: 'POST',
        headers: { [planted.inHeader.name]: planted.inHeader.value, Accept: 'application/json' },
        query_string: `step=2&${planted.inQuery[0]}=${planted.inQuery[1]}`,
      },
      breadcrumbs: [{ category: 'http', message: 'request', data: asField(planted.inBreadcrumb) }],
      tags: planted.inTag.key ? { [planted.inTag.key]: planted.inTag.secret } : { note: asText(planted.inTag) },
    };
    return { event, secrets };
  });
