/** In words, per rule of the server's scrubbing (src/privacy/scrubbing/scrub-rules.ts). */
export const SCRUBBED_RULE_WORDS: Record<string, string> = {
  sensitive_key: 'its key names a secret',
  custom_key: "its key is one of the project's sensitive fields",
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
};
