import { KNOWN_SSO_ERROR_CODES, SSO_ERROR_FALLBACK, ssoErrorText } from '../../../dashboard/src/sso-errors';
import { SSO_ERROR_CODES } from './oidc-sign-in.service';

describe('single sign-on refusal codes', () => {
  it('has words in the dashboard for every code the server sends, and no other', () => {
    expect([...KNOWN_SSO_ERROR_CODES].sort()).toEqual([...SSO_ERROR_CODES].sort());
  });

  it('shows the generic sentence, never the text of the link, for anything else', () => {
    for (const crafted of ['Call +1 555 0100 to unlock your account', 'toString', '__proto__', 'constructor', ''])
      expect(ssoErrorText(crafted)).toBe(SSO_ERROR_FALLBACK);
    expect(ssoErrorText('expired')).toContain('Start again');
  });
});
