import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import * as openid from 'openid-client';
import { DataSource } from 'typeorm';
import { randomHex, sha256Hex } from '../../common/crypto';
import { AppConfig } from '../../config/app-config';
import { InvitationAccounts } from '../../members/invitation-accounts';
import { InvitationsRepository } from '../../members/invitations.repository';
import { REDIS, RedisClient } from '../../redis/redis.module';
import type { User } from '../../users/user.entity';
import { roleAtLeast } from '../../access/roles';
import { normaliseEmail, UsersService } from '../../users/users.service';
import { emailDomainAllowed, isLoopbackHttp, safeNextPath } from './sso-redirect';

/** How long a browser has between leaving for the provider and coming back. */
const PENDING_TTL_SECONDS = 600;
/** A provider that could not be reached is asked again after this long, not at every click. */
const DISCOVERY_RETRY_MS = 30_000;

/** Why a sign-in through the provider was refused, in words for the sign-in page and the audit log. */
/**
 * Why a single sign-on was refused, as the sign-in page's address carries it (`?sso_error=`): a
 * code, never text, since anyone can write a link with any text in it. The page shows the
 * product's own words for each code (dashboard/src/sso-errors.ts); the audit log keeps the details.
 */
export const SSO_ERROR_CODES = [
  'expired',
  'answer_rejected',
  'provider_refused',
  'deactivated',
  'identity_linked_elsewhere',
  'account_linked_elsewhere',
  'domain_not_allowed',
  'sso_not_allowed',
  'no_email',
  'email_unverified',
  'email_linked_elsewhere',
  'admin_must_link',
  'not_configured',
  'provider_unreachable',
  'sign_in_first',
  'failed',
] as const;
export type SsoErrorCode = (typeof SSO_ERROR_CODES)[number];

export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoErrorCode,
    message: string,
    readonly email?: string,
  ) {
    super(message);
  }
}

interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Set when a signed-in account links its identity at the provider (from its account page). */
  linkUserId?: number;
}

/** What a sign-in through the provider did, for the audit log besides the sign-in itself. */
export type SsoOutcome = 'signed_in' | 'linked' | 'created' | 'invited';

/**
 * OpenID Connect sign-in with openid-client: the authorization code flow with PKCE, state and
 * nonce, the ID token verified (signature, issuer, audience, expiry, nonce). What the browser must
 * bring back is kept in Redis under a cookie of its own, once: a replayed callback finds nothing.
 *
 * Accounts are found by the provider's subject; the first sign-in of a verified e-mail links an
 * existing account of that e-mail, takes up an open invitation of it, or makes a new account.
 */
@Injectable()
export class OidcSignIn {
  private readonly logger = new Logger('OidcSignIn');
  private configuration: Promise<openid.Configuration> | undefined;
  private readonly keyPrefix: string;

  constructor(
    private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly users: UsersService,
    private readonly invitations: InvitationsRepository,
    private readonly invitationAccounts: InvitationAccounts,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    this.keyPrefix = `${config.REDIS_PREFIX}:{sso}`;
  }

  get enabled(): boolean {
    return this.config.oidc !== undefined;
  }

  get redirectUri(): string {
    return `${this.config.publicUrl}/auth/sso/callback`;
  }

  /** The provider's sign-in URL, and the secret the browser keeps (as a cookie) until it comes back. */
  async start(next: unknown, linkUserId?: number): Promise<{ url: string; secret: string }> {
    const configuration = await this.discovered();
    const pending: PendingSignIn = {
      state: openid.randomState(),
      nonce: openid.randomNonce(),
      verifier: openid.randomPKCECodeVerifier(),
      next: safeNextPath(next),
      ...(linkUserId !== undefined ? { linkUserId } : {}),
    };
    const secret = randomHex(32);
    await this.redis.set(this.key(secret), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
    const url = openid.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await openid.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, secret };
  }

  /**
   * Checks the provider's answer (`query`: the callback's query string) against what the browser's
   * secret holds, and returns the account to sign in, with where to go next.
   */
  async finish(
    secret: string | undefined,
    query: string,
  ): Promise<{ user: User; next: string; outcome: SsoOutcome }> {
    const stored = secret && /^[0-9a-f]{64}$/.test(secret) ? await this.redis.getdel(this.key(secret)) : null;
    if (!stored) throw new SsoRefusal('expired', 'the sign-in took too long or was used already: start again');
    const pending = JSON.parse(stored) as PendingSignIn;
    const configuration = await this.discovered();
    const callback = new URL(`${this.redirectUri}?${query}`);
    // The state first: an answer that is not the one this browser asked for is not read further.
    if (callback.searchParams.get('state') !== pending.state) {
      throw new SsoRefusal('answer_rejected', 'the answer of the identity provider was not accepted: unexpected "state" value');
    }
    const providerError = callback.searchParams.get('error');
    if (providerError) {
      // Its code, not its description: the page shows it, and must not say what someone else chose.
      const code = /^[a-z_]{1,40}$/.test(providerError) ? providerError : 'an error';
      throw new SsoRefusal('provider_refused', `the identity provider refused the sign-in (${code})`);
    }
    let claims: Record<string, unknown>;
    try {
      const tokens = await openid.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = { ...(tokens.claims() ?? {}) };
      if (typeof claims.email !== 'string') {
        // Some providers give the e-mail at the userinfo endpoint only.
        const info = await openid.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
        claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
      }
    } catch (error) {
      if (error instanceof SsoRefusal) throw error;
      // openid-client says what was wrong (the state, the audience, …) in the error's cause.
      const cause = (error as Error).cause;
      const why = cause instanceof Error ? cause.message : (error as Error).message;
      throw new SsoRefusal('answer_rejected', `the answer of the identity provider was not accepted: ${why}`);
    }
    if (pending.linkUserId !== undefined) {
      return { user: await this.link(pending.linkUserId, claims), next: pending.next, outcome: 'linked' };
    }
    return { ...(await this.accountFor(claims)), next: pending.next };
  }

  /** Links a signed-in account (its own request, from its account page) to the provider's identity. */
  private async link(userId: number, claims: Record<string, unknown>): Promise<User> {
    const issuer = (this.config.oidc as NonNullable<AppConfig['oidc']>).issuer;
    const subject = String(claims.sub);
    const account = await this.users.findById(userId);
    if (!account || !account.isActive) throw new SsoRefusal('deactivated', 'this account is deactivated');
    const holder = await this.users.findByOidcSubject(issuer, subject);
    if (holder && holder.id !== account.id) {
      throw new SsoRefusal('identity_linked_elsewhere', 'this identity is linked to another account already', account.email);
    }
    if (account.oidcSubject !== null && account.oidcSubject !== subject) {
      throw new SsoRefusal('account_linked_elsewhere', 'this account is linked to another identity already', account.email);
    }
    await this.users.linkOidcSubject(account.id, issuer, subject);
    return Object.assign(account, { oidcIssuer: issuer, oidcSubject: subject });
  }

  private async accountFor(claims: Record<string, unknown>): Promise<{ user: User; outcome: SsoOutcome }> {
    const issuer = (this.config.oidc as NonNullable<AppConfig['oidc']>).issuer;
    const subject = String(claims.sub);
    const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : undefined;
    const name = typeof claims.name === 'string' ? claims.name.slice(0, 200) : '';
    const allowed = this.config.oidc?.allowedDomains ?? [];
    if (email && !emailDomainAllowed(email, allowed)) {
      throw new SsoRefusal(
        'domain_not_allowed',
        `e-mail addresses of ${email.slice(email.lastIndexOf('@') + 1)} may not sign in here`,
        email,
      );
    }
    const linked = await this.users.findByOidcSubject(issuer, subject);
    if (linked) {
      if (!linked.isActive) throw new SsoRefusal('deactivated', 'this account is deactivated', linked.email);
      if (allowed.length > 0 && !emailDomainAllowed(linked.email, allowed)) {
        throw new SsoRefusal('sso_not_allowed', 'this account may not sign in through the identity provider', linked.email);
      }
      return { user: linked, outcome: 'signed_in' };
    }
    // Past this point an e-mail decides which account it is: only one the provider vouches for.
    if (!email) throw new SsoRefusal('no_email', 'the identity provider gave no e-mail address');
    if (claims.email_verified !== true) {
      throw new SsoRefusal('email_unverified', `the identity provider has not verified ${email}`, email);
    }
    const existing = await this.users.findByEmail(email);
    if (existing) {
      if (existing.oidcSubject !== null) {
        throw new SsoRefusal('email_linked_elsewhere', `${email} belongs to an account linked to another identity`, email);
      }
      if (!existing.isActive) throw new SsoRefusal('deactivated', 'this account is deactivated', email);
      // Whoever controls e-mails at the provider would take over an admin's account here: admins and
      // owners link their identity themselves, signed in, from their account page.
      if (roleAtLeast(existing.role, 'admin')) {
        throw new SsoRefusal(
          'admin_must_link',
          `${email} is an ${existing.role}'s account: sign in with its password once and link your identity from the account page`,
          email,
        );
      }
      await this.users.linkOidcSubject(existing.id, issuer, subject);
      this.logger.log(`account ${existing.id} linked to its identity at ${issuer}`);
      return { user: existing, outcome: 'linked' };
    }
    return this.db.transaction(async (manager) => {
      const oidc = { issuer, subject };
      const invitation = await this.invitations.findOpenByEmail(manager, email);
      if (invitation) {
        const user = await this.invitationAccounts.create(manager, invitation, {
          name,
          passwordHash: null,
          oidc,
        });
        return { user, outcome: 'invited' as const };
      }
      const user = await this.users.create(
        { email, name, role: this.config.OIDC_DEFAULT_ROLE, passwordHash: null, oidc },
        manager,
      );
      return { user, outcome: 'created' as const };
    });
  }

  /** The provider's metadata, fetched once (again after a failure, at most every 30 s). */
  private discovered(): Promise<openid.Configuration> {
    const oidc = this.config.oidc;
    if (!oidc) throw new SsoRefusal('not_configured', 'single sign-on is not set up (OIDC_ISSUER)');
    this.configuration ??= (async () => {
      const issuer = new URL(oidc.issuer);
      try {
        return await openid.discovery(
          issuer,
          oidc.clientId,
          { client_secret: oidc.clientSecret },
          openid.ClientSecretBasic(oidc.clientSecret),
          isLoopbackHttp(issuer) ? { execute: [openid.allowInsecureRequests] } : undefined,
        );
      } catch (error) {
        setTimeout(() => (this.configuration = undefined), DISCOVERY_RETRY_MS).unref();
        this.logger.warn(
          `identity provider ${oidc.issuer} could not be reached: ${(error as Error).message}`,
        );
        throw new SsoRefusal('provider_unreachable', 'the identity provider cannot be reached; try again in a moment');
      }
    })();
    return this.configuration;
  }

  private key(secret: string): string {
    return `${this.keyPrefix}:pending:${sha256Hex(secret)}`;
  }
}
