/**
 * Single sign-on through OpenID Connect, end to end: a real provider (the oidc-provider package, its
 * own login and consent pages) driven by a real Chromium against the real server, and a small
 * misbehaving provider for what a well-behaved one never sends (an ID token for someone else).
 * The redirect URI is `${PUBLIC_URL}/auth/sso/callback`, so each app listens on a port chosen first.
 * Needs /usr/bin/chromium and the built dashboard (rebuilt when dashboard/ is newer).
 */
import { createHash, generateKeyPairSync, KeyObject, randomBytes, randomUUID, sign } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { freePort } from '../bench/support';
import { startTestApp, TestApp } from './helpers/app';
import { ensureDashboardBuilt, launchBrowser, screenshot, BROWSER_WAIT_MS, settled } from './helpers/browser';
import { as, expectStatus, invitedAccount, signIn } from './helpers/members';
import { OidcTestProvider, startOidcProvider } from './helpers/oidc-provider';
import { KNOWN_SSO_ERROR_CODES, ssoErrorText } from '../dashboard/src/sso-errors';

const CLIENT_ID = 'error-tracker';
const CLIENT_SECRET = 'sso-test-secret';
const OIDC_NAME = 'Acme ID';
const CALLBACK_PATH = '/auth/sso/callback';

interface AuditEntry {
  id: string;
  action: string;
  actor: string;
  actor_user_id: number | null;
  target_type: string | null;
  target_id: string | null;
  details: Record<string, unknown>;
}

interface MeView {
  kind: string;
  id: number;
  user_id: number | null;
  email?: string;
  name: string;
  role: string;
  sso_linked: boolean;
}

/** What the browser went through, from leaving for the provider to the page it was sent to. */
interface BrowserSignIn {
  context: BrowserContext;
  page: Page;
  /** The provider's answer, as the browser brought it to the app (code, state, iss). */
  callbackUrl: string;
  callbackStatus: number;
  /** The app's Location after the callback, as sent (relative or not). */
  callbackLocation: string;
  landed: URL;
}

describe('single sign-on (OpenID Connect)', () => {
  let provider: OidcTestProvider;
  let t: TestApp;
  let db: DataSource;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let adaId: number;
  /** bob's own password, from the invitation he accepted. */
  let bobPassword: string;

  const operator = () => as(t, { token: t.token });
  const isCallback = (app: TestApp, url: URL) => url.origin === app.url && url.pathname === CALLBACK_PATH;

  /** A browser of its own each time: no provider session, so its login and consent pages always show. */
  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ baseURL: t.url, viewport: { width: 1280, height: 860 } });
    // The provider's pages import a web font: offline that would only slow each page down.
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => route.abort(),
    );
    contexts.push(context);
    return context;
  }

  /** Fills the provider's login page (any password); resolves on its consent page. */
  async function providerLogin(page: Page, account: string, loginScreenshot?: string): Promise<void> {
    const login = page.locator('input[name="login"]');
    await login.waitFor();
    expect(new URL(page.url()).origin).toBe(provider.issuer);
    if (loginScreenshot) await screenshot(page, loginScreenshot);
    await login.fill(account);
    await page.locator('input[name="password"]').fill('any password will do');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).waitFor();
  }

  /** Signs in at the provider and grants the consent it asks for. */
  async function passProviderPages(page: Page, account: string, loginScreenshot?: string): Promise<void> {
    await providerLogin(page, account, loginScreenshot);
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  /**
   * Like passProviderPages, but the provider's answer never reaches the app: it is returned instead
   * (the callback URL, with code and state), and the browser's sign-in (et_sso) is still waiting.
   * Playwright routes see only the first request of a redirect chain, and the answer comes two
   * redirects after the consent form: so the consent is sent from the route and its redirects
   * followed with the context's cookie jar, up to the answer.
   */
  async function heldBackAnswer(page: Page, account: string): Promise<string> {
    await providerLogin(page, account);
    let heldBack: (url: string) => void = () => undefined;
    let failed: (error: unknown) => void = () => undefined;
    const answer = new Promise<string>((resolve, reject) => ((heldBack = resolve), (failed = reject)));
    const consentForm = (url: URL) => url.origin === provider.issuer;
    await page.route(consentForm, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      try {
        let response = await route.fetch({ maxRedirects: 0 });
        let location = new URL(response.headers()['location'] ?? '', provider.issuer);
        while (location.origin === provider.issuer && response.status() >= 300 && response.status() < 400) {
          response = await page.context().request.get(location.href, { maxRedirects: 0 });
          location = new URL(response.headers()['location'] ?? '', provider.issuer);
        }
        if (!isCallback(t, location))
          throw new Error(`the provider answered ${response.status()}, not to the app`);
        heldBack(location.href);
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'held back from the app' });
      } catch (error) {
        failed(error);
        await route.abort();
      }
    });
    await page.getByRole('button', { name: 'Continue' }).click();
    const url = await answer;
    await page.unroute(consentForm);
    return url;
  }

  /**
   * Signs `account` in at the provider in a new browser: `start` opens the app's way there (a path
   * to go to, or steps to take), then waits for the page the app's callback sends the browser to.
   */
  async function browserSignIn(
    account: string,
    start: string | ((page: Page) => Promise<void>),
    options: { loginScreenshot?: string } = {},
  ): Promise<BrowserSignIn> {
    const context = await newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_WAIT_MS);
    const callback = page.waitForResponse((response) => isCallback(t, new URL(response.url())));
    if (typeof start === 'string') await page.goto(start);
    else await start(page);
    await passProviderPages(page, account, options.loginScreenshot);
    const response = await callback;
    const callbackLocation = (await response.headerValue('location')) ?? '';
    const target = new URL(callbackLocation, t.url);
    // Somewhere else than the app (which the test then fails on) is not waited for: it is blocked.
    if (target.origin === t.url) {
      await page.waitForURL((url) => url.origin === t.url && url.pathname !== CALLBACK_PATH);
    }
    return {
      context,
      page,
      callbackUrl: response.url(),
      callbackStatus: response.status(),
      callbackLocation,
      landed: target.origin === t.url ? new URL(page.url()) : target,
    };
  }

  async function sessionOf(context: BrowserContext): Promise<string | undefined> {
    return (await context.cookies(t.url)).find((cookie) => cookie.name === 'et_session')?.value;
  }

  async function me(app: TestApp, session: string): Promise<MeView> {
    return (await expectStatus(app.http().get('/auth/me').set('Cookie', `et_session=${session}`), 200)).body;
  }

  /** The newest audit entry's id, from the table: entries after it are the ones a step made (the apps share one database). */
  async function auditMark(): Promise<bigint> {
    const rows: { id: string | null }[] = await db.query('SELECT max(id)::text AS id FROM audit_log');
    return BigInt(rows[0].id ?? '0');
  }

  /** The entries of `action` after `mark`, as the API lists them, oldest first. */
  async function auditSince(mark: bigint, action: string, app: TestApp = t): Promise<AuditEntry[]> {
    const page = await expectStatus(app.api().get(`/api/audit-log?action=${action}&limit=1000`), 200);
    return (page.body.data as AuditEntry[])
      .filter((entry) => BigInt(entry.id) > mark)
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  /** The one auth.sign_in_failed entry since `mark`; answers its reason, the details kept for administrators. */
  async function refusalAudited(mark: bigint, email?: string, app: TestApp = t): Promise<string> {
    const entries = await auditSince(mark, 'auth.sign_in_failed', app);
    expect(entries).toHaveLength(1);
    expect(entries[0].actor_user_id).toBeNull();
    expect(entries[0].details).toEqual({
      method: 'sso',
      reason: expect.any(String),
      ...(email ? { email } : {}),
    });
    return (entries[0].details as { reason: string }).reason;
  }

  /** The reason's code in the sign-in page's address a refused sign-in ends at: a code, never text. */
  function refusalIn(location: URL): string {
    expect(location.pathname).toBe('/login');
    const code = location.searchParams.get('sso_error');
    expect(KNOWN_SSO_ERROR_CODES).toContain(code);
    return code as string;
  }

  /**
   * A refused sign-in through the browser: back at the sign-in page with the reason's code, shown in
   * the product's words, without a session; answers the code and the audited reason.
   */
  async function refusedSignIn(
    account: string,
    email?: string,
    pageScreenshot?: string,
  ): Promise<{ code: string; reason: string }> {
    const mark = await auditMark();
    const result = await browserSignIn(account, '/auth/sso/start?next=/projects');
    expect(result.callbackStatus).toBe(303);
    const code = refusalIn(result.landed);
    expect(result.callbackLocation).toBe(`/login?sso_error=${code}`);
    // The person is told why, not just shown the sign-in form again.
    await result.page.getByText(ssoErrorText(code)).waitFor();
    if (pageScreenshot) await screenshot(result.page, pageScreenshot);
    expect(await sessionOf(result.context)).toBeUndefined();
    return { code, reason: await refusalAudited(mark, email) };
  }

  async function userRow(id: number) {
    const rows: {
      email: string;
      oidc_issuer: string | null;
      oidc_subject: string | null;
      has_password: boolean;
    }[] = await db.query(
      'SELECT email, oidc_issuer, oidc_subject, password_hash IS NOT NULL AS has_password FROM users WHERE id = $1',
      [id],
    );
    return rows[0];
  }

  beforeAll(async () => {
    ensureDashboardBuilt();
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider({
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [`${publicUrl}${CALLBACK_PATH}`],
        },
      ],
      accounts: {
        ada: { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' },
        bob: { email: 'bob@example.com', email_verified: true, name: 'Bob at the provider' },
        carol: { email: 'carol@example.com', email_verified: true, name: 'Carol' },
        eve: { email: 'eve@example.com', email_verified: false, name: 'Eve' },
        mallory: { email: 'mallory@evil.test', email_verified: true, name: 'Mallory' },
        dora: { email: 'dora@example.com', email_verified: true, name: 'Dora at the provider' },
      },
    });
    t = await startTestApp({
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      SERVE_DASHBOARD: 'true',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_NAME,
      OIDC_ALLOWED_DOMAINS: 'example.com',
      // Every sign-in here comes from one address; the throttle is tested elsewhere.
      LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0',
    });
    expect(t.url).toBe(publicUrl);
    db = t.app.get(DataSource);
    browser = await launchBrowser();
  }, 120_000);

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await provider?.close();
  });

  describe('signing in', () => {
    it("signs a new person in through the provider's pages, as OIDC_DEFAULT_ROLE, back where they were going", async () => {
      const settings = (await expectStatus(t.http().get('/auth/sso'), 200)).body as { enabled: boolean };
      const mark = await auditMark();
      const signedIn = await browserSignIn(
        'ada',
        async (page) => {
          // Signed out, the dashboard sends a deep link to its sign-in page, which offers the provider.
          await page.goto('/projects');
          await page.waitForURL((url) => url.pathname === '/login');
          expect(new URL(page.url()).searchParams.get('next')).toBe('/projects');
          await page.getByLabel('Password').waitFor();
          const button = page
            .getByRole('link', { name: /Sign in with/ })
            .or(page.getByRole('button', { name: /Sign in with/ }));
          if (settings.enabled && (await button.count()) > 0) {
            await settled(
              () => button.first().textContent(),
              (value) => expect(value).toContain(`Sign in with ${OIDC_NAME}`),
            );
            await button.first().click();
          } else {
            await page.goto('/auth/sso/start?next=/projects');
          }
        },
        { loginScreenshot: 'sso-provider-login' },
      );
      expect(signedIn.callbackStatus).toBe(303);
      await signedIn.page.getByRole('heading', { name: 'Projects' }).waitFor();
      await screenshot(signedIn.page, 'sso-landing');

      const session = await sessionOf(signedIn.context);
      expect(session).toMatch(/^[0-9a-f]{64}$/);
      const account = await me(t, session as string);
      expect(t.config.OIDC_DEFAULT_ROLE).toBe('viewer');
      expect(account).toMatchObject({
        kind: 'user',
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        role: 'viewer',
      });
      adaId = account.user_id as number;
      expect(account.id).toBe(adaId);
      expect(await userRow(adaId)).toEqual({
        email: 'ada@example.com',
        oidc_issuer: provider.issuer,
        oidc_subject: 'ada',
        has_password: false,
      });
      const signIns = await auditSince(mark, 'auth.sign_in');
      expect(signIns).toHaveLength(1);
      expect(signIns[0]).toMatchObject({
        actor: 'ada@example.com',
        actor_user_id: adaId,
        target_type: 'member',
        target_id: String(adaId),
        details: { method: 'sso' },
      });
      expect(await auditSince(mark, 'auth.sign_in_failed')).toEqual([]);

      // Last, since the rest does not depend on it: the page the person was going to when asked to sign in.
      expect(signedIn.landed.href).toBe(`${t.url}/projects`);
    });

    it('finds the same account by its subject at the next sign-in, whatever its e-mail is by then', async () => {
      await db.query('UPDATE users SET email = $1 WHERE id = $2', ['ada.lovelace@example.com', adaId]);
      const again = await browserSignIn('ada', '/auth/sso/start?next=/projects');
      expect(again.callbackLocation).toBe('/projects');
      expect(again.landed.href).toBe(`${t.url}/projects`);
      const account = await me(t, (await sessionOf(again.context)) as string);
      expect(account).toMatchObject({ user_id: adaId, email: 'ada.lovelace@example.com', role: 'viewer' });
      // Had the e-mail been looked up instead, the provider's ada@example.com would have made a second account.
      const byEmail: unknown[] = await db.query('SELECT id FROM users WHERE email = $1', ['ada@example.com']);
      expect(byEmail).toEqual([]);
      const bySubject: { id: number }[] = await db.query(
        'SELECT id FROM users WHERE oidc_issuer = $1 AND oidc_subject = $2',
        [provider.issuer, 'ada'],
      );
      expect(bySubject).toEqual([{ id: adaId }]);
    });

    it('links an existing password account of the same verified e-mail, keeping its role', async () => {
      const bob = await invitedAccount(t, operator(), 'member', { email: 'bob@example.com', name: 'Bob' });
      bobPassword = bob.password;
      expect((await userRow(bob.id)).oidc_subject).toBeNull();

      const signedIn = await browserSignIn('bob', '/auth/sso/start?next=/projects');
      expect(signedIn.landed.href).toBe(`${t.url}/projects`);
      const account = await me(t, (await sessionOf(signedIn.context)) as string);
      expect(account).toMatchObject({
        user_id: bob.id,
        email: 'bob@example.com',
        role: 'member',
        name: 'Bob',
      });
      expect(await userRow(bob.id)).toEqual({
        email: 'bob@example.com',
        oidc_issuer: provider.issuer,
        oidc_subject: 'bob',
        has_password: true,
      });
      // Linking adds a way in; the password the person chose still works.
      await signIn(t, bob.email, bob.password);
    });

    it("does not link an admin's account by e-mail; the admin links it, signed in, from the account page", async () => {
      const dora = await invitedAccount(t, operator(), 'admin', { email: 'dora@example.com', name: 'Dora' });
      const refusal = await refusedSignIn('dora', 'dora@example.com');
      expect(refusal.code).toBe('admin_must_link');
      expect(refusal.reason).toContain("is an admin's account");
      expect((await userRow(dora.id)).oidc_subject).toBeNull();

      const mark = await auditMark();
      const linked = await browserSignIn('dora', async (page) => {
        const login = await page.context().request.post(`${t.url}/auth/login`, {
          data: { email: dora.email, password: dora.password },
        });
        expect(login.status()).toBe(200);
        await page.goto('/auth/sso/start?link=1&next=/settings/account');
      });
      expect(linked.landed.href).toBe(`${t.url}/settings/account`);
      expect(await me(t, (await sessionOf(linked.context)) as string)).toMatchObject({
        user_id: dora.id,
        role: 'admin',
        sso_linked: true,
      });
      expect((await userRow(dora.id)).oidc_subject).toBe('dora');
      const links = await auditSince(mark, 'auth.sso_link');
      expect(links.map((entry) => [entry.actor_user_id, entry.target_id])).toEqual([
        [dora.id, String(dora.id)],
      ]);

      // From now on the provider's subject finds her account.
      const again = await browserSignIn('dora', '/auth/sso/start?next=/projects');
      expect(await me(t, (await sessionOf(again.context)) as string)).toMatchObject({ user_id: dora.id });
    });

    it('will not link without a signed-in account', async () => {
      const start = await t.http().get('/auth/sso/start?link=1').expect(303);
      expect(refusalIn(new URL(start.headers.location, t.url))).toBe('sign_in_first');
    });

    it('takes up an open invitation of the e-mail: its role and its teams, the invitation used', async () => {
      const team = (
        await expectStatus(
          operator()
            .post('/api/teams')
            .send({ name: `SSO team ${randomUUID().slice(0, 8)}` }),
          201,
        )
      ).body as { id: number };
      const invitation = (
        await expectStatus(
          operator()
            .post('/api/invitations')
            .send({ email: 'carol@example.com', role: 'admin', team_ids: [team.id] }),
          201,
        )
      ).body as { id: number };

      const signedIn = await browserSignIn('carol', '/auth/sso/start?next=/projects');
      expect(signedIn.landed.href).toBe(`${t.url}/projects`);
      const account = await me(t, (await sessionOf(signedIn.context)) as string);
      expect(account).toMatchObject({ email: 'carol@example.com', role: 'admin', name: 'Carol' });
      const carolId = account.user_id as number;
      expect((await userRow(carolId)).oidc_subject).toBe('carol');

      const teamView = (await expectStatus(operator().get(`/api/teams/${team.id}`), 200)).body;
      expect(teamView.member_ids).toEqual([carolId]);
      const rows: { accepted_by: number | null; accepted: boolean }[] = await db.query(
        'SELECT accepted_by, accepted_at IS NOT NULL AS accepted FROM invitations WHERE id = $1',
        [invitation.id],
      );
      expect(rows).toEqual([{ accepted_by: carolId, accepted: true }]);
      const open = (await expectStatus(operator().get('/api/invitations'), 200)).body.data as {
        id: number;
      }[];
      expect(open.map((each) => each.id)).not.toContain(invitation.id);
    });

    it('sends the browser to a path of this site only after signing in (next=//evil.example → /)', async () => {
      const signedIn = await browserSignIn('bob', '/auth/sso/start?next=//evil.example');
      expect(signedIn.callbackStatus).toBe(303);
      expect(signedIn.callbackLocation).toBe('/');
      expect(signedIn.landed.href).toBe(`${t.url}/`);
      expect(await sessionOf(signedIn.context)).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('refusals', () => {
    it("refuses a callback whose state is not the one this browser's sign-in was given", async () => {
      const context = await newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_WAIT_MS);
      await page.goto('/auth/sso/start?next=/projects');
      const forged = new URL(await heldBackAnswer(page, 'bob'));

      expect(forged.searchParams.get('code')).toEqual(expect.any(String));
      expect(forged.searchParams.get('state')).toEqual(expect.any(String));
      forged.searchParams.set('state', randomBytes(16).toString('base64url'));
      // The browser still holds its sign-in (et_sso): only the state differs from a genuine answer.
      expect((await context.cookies(t.url + CALLBACK_PATH)).map((cookie) => cookie.name)).toContain('et_sso');
      const mark = await auditMark();
      await page.goto(forged.href);
      await page.waitForURL((url) => url.pathname === '/login');
      expect(refusalIn(new URL(page.url()))).toBe('answer_rejected');
      expect(await sessionOf(context)).toBeUndefined();
      // The reason the audit log gives must say what was wrong with the answer.
      const reason = await refusalAudited(mark);
      expect(reason).toContain('not accepted');
      expect(reason).toContain('"state"');
    });

    it("reads a provider's error only with this browser's state, and shows its code, not its description", async () => {
      const context = await newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_WAIT_MS);
      await page.goto('/auth/sso/start?next=/projects');
      const genuine = new URL(await heldBackAnswer(page, 'bob'));
      const errorAnswer = (state: string) =>
        `${CALLBACK_PATH}?error=access_denied&error_description=${encodeURIComponent('Call +1-555 now')}&state=${state}`;

      let mark = await auditMark();
      await page.goto(errorAnswer('not-the-state'));
      await page.waitForURL((url) => url.pathname === '/login');
      expect(refusalIn(new URL(page.url()))).toBe('answer_rejected');
      expect(await refusalAudited(mark)).toContain('"state"');

      // A new browser (the provider remembers this one's sign-in, and would not show its pages).
      const other = await (await newContext()).newPage();
      other.setDefaultTimeout(BROWSER_WAIT_MS);
      await other.goto('/auth/sso/start?next=/projects');
      const fresh = new URL(await heldBackAnswer(other, 'bob'));
      expect(fresh.searchParams.get('state')).not.toBe(genuine.searchParams.get('state'));
      mark = await auditMark();
      await other.goto(errorAnswer(fresh.searchParams.get('state') as string));
      await other.waitForURL((url) => url.pathname === '/login');
      expect(refusalIn(new URL(other.url()))).toBe('provider_refused');
      const reason = await refusalAudited(mark);
      expect(reason).toBe('the identity provider refused the sign-in (access_denied)');
      expect(reason).not.toContain('555');
      await settled(
        () => other.locator('main').innerText(),
        (value) => expect(value).not.toContain('555'),
      );
    });

    it('refuses a callback used already, with or without a sign-in started since', async () => {
      const signedIn = await browserSignIn('bob', '/auth/sso/start?next=/projects');
      expect(signedIn.landed.pathname).toBe('/projects');
      const { context } = signedIn;
      const session = await sessionOf(context);
      expect(session).toMatch(/^[0-9a-f]{64}$/);

      const replay = async () => {
        const response = await context.request.get(signedIn.callbackUrl, { maxRedirects: 0 });
        expect(response.status()).toBe(303);
        const setCookies = response
          .headersArray()
          .filter((header) => header.name.toLowerCase() === 'set-cookie')
          .map((header) => header.value);
        expect(setCookies.filter((cookie) => cookie.startsWith('et_session='))).toEqual([]);
        return refusalIn(new URL(response.headers()['location'], t.url));
      };

      let mark = await auditMark();
      expect(await replay()).toBe('expired');
      expect(await refusalAudited(mark)).toContain('used already');

      // A sign-in in progress does not make the old answer good: it was given to another state.
      const started = await context.request.get('/auth/sso/start?next=/projects', { maxRedirects: 0 });
      expect(started.status()).toBe(303);
      expect(started.headers()['location'].startsWith(provider.issuer)).toBe(true);
      expect((await context.cookies(t.url + CALLBACK_PATH)).map((cookie) => cookie.name)).toContain('et_sso');
      mark = await auditMark();
      expect(await replay()).toBe('answer_rejected');
      expect(await refusalAudited(mark)).toContain('not accepted');

      // Refusals leave the session the browser had alone, and give it no other.
      expect(await sessionOf(context)).toBe(session);
    });

    it('refuses an e-mail the provider has not verified', async () => {
      const refusal = await refusedSignIn('eve', 'eve@example.com', 'sso-refused');
      expect(refusal).toEqual({
        code: 'email_unverified',
        reason: 'the identity provider has not verified eve@example.com',
      });
      const rows: unknown[] = await db.query('SELECT id FROM users WHERE email = $1', ['eve@example.com']);
      expect(rows).toEqual([]);
    });

    it('refuses an e-mail of a domain not in OIDC_ALLOWED_DOMAINS', async () => {
      const refusal = await refusedSignIn('mallory', 'mallory@evil.test');
      expect(refusal.code).toBe('domain_not_allowed');
      expect(refusal.reason).toContain('evil.test');
      expect(refusal.reason).toContain('may not sign in');
      const rows: unknown[] = await db.query('SELECT id FROM users WHERE email = $1', ['mallory@evil.test']);
      expect(rows).toEqual([]);
    });

    it('refuses a deactivated account', async () => {
      const updated = await expectStatus(
        operator().patch(`/api/members/${adaId}`).send({ is_active: false }),
        200,
      );
      expect(updated.body.is_active).toBe(false);
      const refusal = await refusedSignIn('ada', 'ada.lovelace@example.com');
      expect(refusal.code).toBe('deactivated');
      expect(refusal.reason).toContain('deactivated');
    });

    describe('an ID token for another audience', () => {
      let fake: MisbehavingProvider;
      let other: TestApp;

      beforeAll(async () => {
        fake = await startMisbehavingProvider();
        const port = await freePort();
        other = await startTestApp({
          PORT: String(port),
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          OIDC_ISSUER: fake.issuer,
          OIDC_CLIENT_ID: CLIENT_ID,
          OIDC_CLIENT_SECRET: CLIENT_SECRET,
          OIDC_ALLOWED_DOMAINS: 'example.com',
          LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0',
        });
      }, 60_000);

      afterAll(async () => {
        await other?.close();
        await fake?.close();
      });

      it('is refused, naming the audience, without a session', async () => {
        fake.audience = 'someone-else';
        const mark = await auditMark();
        const result = await fetchSignIn(other, '/projects');
        expect(fake.tokensIssued).toBe(1);
        expect(refusalIn(new URL(result.location, other.url))).toBe('answer_rejected');
        expect(result.setCookies.filter((cookie) => cookie.startsWith('et_session='))).toEqual([]);
        const reason = await refusalAudited(mark, undefined, other);
        expect(reason).toContain('not accepted');
        // An administrator reading this must be able to tell the provider named another client.
        expect(reason).toMatch(/audience/);
      });

      it('signs in with the same provider when the audience is this client (the fake is otherwise valid)', async () => {
        fake.audience = CLIENT_ID;
        const result = await fetchSignIn(other, '/projects');
        expect(result.location).toBe('/projects');
        const session = result.setCookies.find((cookie) => cookie.startsWith('et_session='));
        expect(session).toMatch(/^et_session=[0-9a-f]{64};/);
        const account = await me(
          other,
          (session as string).slice('et_session='.length, session?.indexOf(';')),
        );
        expect(account).toMatchObject({
          kind: 'user',
          email: 'grace@example.com',
          name: 'Grace',
          role: 'viewer',
        });
      });
    });
  });

  describe('settings', () => {
    it('tells the sign-in page what it offers', async () => {
      const settings = await expectStatus(t.http().get('/auth/sso'), 200);
      expect(settings.body).toEqual({ enabled: true, name: OIDC_NAME, password_login: true });
    });

    it('with PASSWORD_LOGIN=false, refuses sign-in by password, naming the provider to use', async () => {
      const ssoOnly = await startTestApp({
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: CLIENT_ID,
        OIDC_CLIENT_SECRET: CLIENT_SECRET,
        OIDC_NAME: 'Corporate Login',
        PASSWORD_LOGIN: 'false',
        LOGIN_MAX_ATTEMPTS_PER_ADDRESS: '0',
      });
      try {
        const settings = await expectStatus(ssoOnly.http().get('/auth/sso'), 200);
        expect(settings.body).toEqual({ enabled: true, name: 'Corporate Login', password_login: false });
        // bob's password is right: the refusal is of the way in, not of the credentials.
        const refused = await expectStatus(
          ssoOnly.http().post('/auth/login').send({ email: 'bob@example.com', password: bobPassword }),
          403,
        );
        expect(refused.body.error).toContain('Corporate Login');
        expect(refused.body.error).toContain('password');
        expect(refused.headers['set-cookie']).toBeUndefined();
      } finally {
        await ssoOnly.close();
      }
    });

    it('will not start with PASSWORD_LOGIN=false and no provider to sign in with', async () => {
      await expect(
        startTestApp({
          PASSWORD_LOGIN: 'false',
          OIDC_ISSUER: undefined,
          OIDC_CLIENT_ID: undefined,
          OIDC_CLIENT_SECRET: undefined,
        }),
      ).rejects.toThrow(/^Invalid configuration: PASSWORD_LOGIN=false needs single sign-on/);
    });
  });
});

/** The start, the provider and the callback by plain HTTP, carrying the et_sso cookie as a browser would. */
async function fetchSignIn(app: TestApp, next: string): Promise<{ location: string; setCookies: string[] }> {
  const start = await fetch(`${app.url}/auth/sso/start?next=${encodeURIComponent(next)}`, {
    redirect: 'manual',
  });
  expect(start.status).toBe(303);
  const pending = start.headers.getSetCookie().find((cookie) => cookie.startsWith('et_sso='));
  expect(pending).toBeDefined();
  const authorize = await fetch(start.headers.get('location') as string, { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const callback = authorize.headers.get('location') as string;
  expect(callback.startsWith(`${app.url}${CALLBACK_PATH}?`)).toBe(true);
  const done = await fetch(callback, {
    redirect: 'manual',
    headers: { cookie: (pending as string).split(';')[0] },
  });
  expect(done.status).toBe(303);
  return { location: done.headers.get('location') as string, setCookies: done.headers.getSetCookie() };
}

interface MisbehavingProvider {
  issuer: string;
  /** The `aud` of the ID tokens it issues from now on. */
  audience: string;
  tokensIssued: number;
  close: () => Promise<void>;
}

/**
 * Just enough of an OpenID provider for openid-client to accept, but with an ID token audience of the
 * test's choosing (a real provider only ever names the client): discovery, keys, an authorization
 * endpoint that approves at once, a token endpoint and userinfo for one person, grace@example.com.
 * The key is made with node:crypto, which signs RS256 as well as any library would.
 */
async function startMisbehavingProvider(): Promise<MisbehavingProvider> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const codes = new Map<string, { nonce: string; challenge: string }>();
  const accessTokens = new Set<string>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: MisbehavingProvider = {
    issuer,
    audience: 'someone-else',
    tokensIssued: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const json = (response: ServerResponse, status: number, body: unknown) =>
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(response, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') {
      return json(response, 200, {
        keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }],
      });
    }
    if (url.pathname === '/authorize') {
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        nonce: url.searchParams.get('nonce') ?? '',
        challenge: url.searchParams.get('code_challenge') ?? '',
      });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return response.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        // Checked so that the control sign-in also proves the app's PKCE round trip.
        if (!grant || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
          return json(response, 400, { error: 'invalid_grant' });
        }
        const now = Math.floor(Date.now() / 1000);
        const idToken = signedJwt(
          { iss: issuer, sub: 'grace', aud: fake.audience, nonce: grant.nonce, iat: now, exp: now + 60 },
          privateKey,
          kid,
        );
        const accessToken = randomBytes(16).toString('hex');
        accessTokens.add(accessToken);
        fake.tokensIssued += 1;
        json(response, 200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 60,
          id_token: idToken,
        });
      });
      return;
    }
    if (url.pathname === '/userinfo') {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!token || !accessTokens.has(token)) return json(response, 401, { error: 'invalid_token' });
      return json(response, 200, {
        sub: 'grace',
        email: 'grace@example.com',
        email_verified: true,
        name: 'Grace',
      });
    }
    json(response, 404, { error: 'not_found' });
  });
  return fake;
}

/** A compact JWS (RS256) of `claims`. */
function signedJwt(claims: Record<string, unknown>, key: KeyObject, kid: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', typ: 'JWT', kid })}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}
