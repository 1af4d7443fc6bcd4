/**
 * What the sign-in page says for each reason a single sign-on was refused. The page's address
 * carries only a code (`?sso_error=expired`): text taken from a link could be anyone's, such as a
 * fake "call this number" message, so an unknown code gets the generic sentence and nothing of the
 * link is shown. The server's codes are SSO_ERROR_CODES in src/auth/sso/oidc-sign-in.service.ts;
 * the audit log keeps each refusal's details.
 */
const SSO_ERROR_TEXT: Record<string, string> = {
  expired: 'The sign-in took too long or was used already. Start again.',
  answer_rejected: "The identity provider's answer was not accepted. Start again; if it keeps failing, ask an administrator to look at the audit log.",
  provider_refused: 'The identity provider refused the sign-in.',
  deactivated: 'This account is deactivated. Ask an administrator.',
  identity_linked_elsewhere: 'This identity is linked to another account already.',
  account_linked_elsewhere: 'This account is linked to another identity already.',
  domain_not_allowed: 'Accounts of your e-mail domain may not sign in here.',
  sso_not_allowed: 'This account may not sign in through the identity provider.',
  no_email: 'The identity provider gave no e-mail address.',
  email_unverified: 'The identity provider has not verified your e-mail address.',
  email_linked_elsewhere: 'Your e-mail address belongs to an account linked to another identity.',
  admin_must_link:
    "This is an administrator's account: sign in with its password once, then link your identity from the account page.",
  not_configured: 'Single sign-on is not set up on this server.',
  provider_unreachable: 'The identity provider cannot be reached. Try again in a moment.',
  sign_in_first: 'Sign in first to link your identity.',
  failed: 'The sign-in could not be completed. Try again.',
};

export const SSO_ERROR_FALLBACK = 'The sign-in could not be completed. Try again.';

/** The sentence for a refusal code, or the generic one for anything else. */
export function ssoErrorText(code: string): string {
  return Object.hasOwn(SSO_ERROR_TEXT, code) ? SSO_ERROR_TEXT[code] : SSO_ERROR_FALLBACK;
}

export const KNOWN_SSO_ERROR_CODES = Object.keys(SSO_ERROR_TEXT);
