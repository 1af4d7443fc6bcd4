/**
 * Why a value was replaced by `[Filtered]`. Recorded on the event with the path of each value, and
 * shown on the event page; the value itself is never kept.
 */
export const SCRUB_RULES = {
  sensitive_key: 'key that names a secret (password, token, secret, api key, auth, credentials, private key)',
  custom_key: "one of the project's additional sensitive fields",
  authorization_header: 'Authorization header',
  cookie_header: 'Cookie header',
  session_cookie: 'session cookie',
  credit_card: 'credit card number',
  iban: 'IBAN',
  pem_key: 'PEM private key',
  bearer_token: 'bearer token',
  url_password: 'password in a URL',
  jwt: 'JSON Web Token',
  stripe_key: 'Stripe secret key',
  aws_access_key_id: 'AWS access key id',
  ip_address: 'IP address',
} as const;

export type ScrubRule = keyof typeof SCRUB_RULES;

export const FILTERED = '[Filtered]';
