import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import * as openid from 'openid-client';
import { DataSource } from 'typeorm';
import { randomHex, sha256Hex } from '../../common/crypto';
import { AppConfig } from '../../config/app-config';
import { InvitationAccounts } from '../../members/invitation-accounts';
import { InvitationsRepository } from '../../members/invitations.repository';
import { REDIS, RedisClient } from '../../redis/redis.module';
import type { User } from '../user.entity';
import { normaliseEmail, UsersService } from '../users.service';
import { emailDomainAllowed, isLoopbackHttp, safeNextPath } from './sso-redirect';

/** How long a browser has between leaving for the provider and coming back. */
const PENDING_TTL_SECONDS = 600;
/** A provider that could not be reached is asked again after this long, not at every click. */
const DISCOVERY_RETRY_MS = 30_000;

/** Why a sign-in through the provider was refused, in words for the sign-in page and the audit log. */
export class SsoRefusal extends Error {
  constructor(
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
}

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
  async start(next: unknown): Promise<{ url: string; secret: string }> {
    const configuration = await this.discovered();
    const pending: PendingSignIn = {
      state: openid.randomState(),
      nonce: openid.randomNonce(),
      verifier: openid.randomPKCECodeVerifier(),
      next: safeNextPath(next),
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
  async finish(secret: string | undefined, query: string): Promise<{ user: User; next: string }> {
    const stored = secret && /^[0-9a-f]{64}$/.test(secret) ? await this.redis.getdel(this.key(secret)) : null;
    if (!stored) throw new SsoRefusal('the sign-in took too long or was used already: start again');
    const pending = JSON.parse(stored) as PendingSignIn;
    const configuration = await this.discovered();
    const callback = new URL(`${this.redirectUri}?${query}`);
    const providerError = callback.searchParams.get('error');
    if (providerError) {
      throw new SsoRefusal(
        `the identity provider refused: ${callback.searchParams.get('error_description') ?? providerError}`,
      );
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
      throw new SsoRefusal(`the answer of the identity provider was not accepted: ${why}`);
    }
    return { user: await this.accountFor(claims), next: pending.next };
  }

  private async accountFor(claims: Record<string, unknown>): Promise<User> {
    const issuer = (this.config.oidc as NonNullable<AppConfig['oidc']>).issuer;
    const subject = String(claims.sub);
    const email = typeof claims.email === 'string' ? normaliseEmail(claims.email) : undefined;
    const name = typeof claims.name === 'string' ? claims.name.slice(0, 200) : '';
    const allowed = this.config.oidc?.allowedDomains ?? [];
    if (email && !emailDomainAllowed(email, allowed)) {
      throw new SsoRefusal(
        `e-mail addresses of ${email.slice(email.lastIndexOf('@') + 1)} may not sign in here`,
        email,
      );
    }
    const linked = await this.users.findByOidcSubject(issuer, subject);
    if (linked) {
      if (!linked.isActive) throw new SsoRefusal('this account is deactivated', linked.email);
      if (allowed.length > 0 && !emailDomainAllowed(linked.email, allowed)) {
        throw new SsoRefusal('this account may not sign in through the identity provider', linked.email);
      }
      return linked;
    }
    // Past this point an e-mail decides which account it is: only one the provider vouches for.
    if (!email) throw new SsoRefusal('the identity provider gave no e-mail address');
    if (claims.email_verified !== true) {
      throw new SsoRefusal(`the identity provider has not verified ${email}`, email);
    }
    const existing = await this.users.findByEmail(email);
    if (existing) {
      if (existing.oidcSubject !== null) {
        throw new SsoRefusal(`${email} belongs to an account linked to another identity`, email);
      }
      if (!existing.isActive) throw new SsoRefusal('this account is deactivated', email);
      await this.users.linkOidcSubject(existing.id, issuer, subject);
      this.logger.log(`account ${existing.id} linked to its identity at ${issuer}`);
      return existing;
    }
    return this.db.transaction(async (manager) => {
      const oidc = { issuer, subject };
      const invitation = await this.invitations.findOpenByEmail(manager, email);
      if (invitation)
        return this.invitationAccounts.create(manager, invitation, { name, passwordHash: null, oidc });
      return this.users.create(
        { email, name, role: this.config.OIDC_DEFAULT_ROLE, passwordHash: null, oidc },
        manager,
      );
    });
  }

  /** The provider's metadata, fetched once (again after a failure, at most every 30 s). */
  private discovered(): Promise<openid.Configuration> {
    const oidc = this.config.oidc;
    if (!oidc) throw new SsoRefusal('single sign-on is not set up (OIDC_ISSUER)');
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
        throw new SsoRefusal('the identity provider cannot be reached; try again in a moment');
      }
    })();
    return this.configuration;
  }

  private key(secret: string): string {
    return `${this.keyPrefix}:pending:${sha256Hex(secret)}`;
  }
}
