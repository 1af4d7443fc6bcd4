import type { AppConfig } from '../src/config/app-config';
import { validateEnvironment } from '../src/config/environment';
import { refusalReason } from '../src/common/ip-ranges';
import {
  MAX_BODY_READ_BYTES,
  UPTIME_USER_AGENT,
  UptimeChecker,
  CheckRequest,
} from '../src/monitors/uptime/uptime-checker';
import { startTlsSite, startUptimeSites, TlsSite, UptimeSites } from './helpers/uptime-sites';
import { testDatabaseUrl } from './helpers/test-env';

/** The configuration the app would resolve from these variables. */
function configWith(variables: Record<string, string>): AppConfig {
  return validateEnvironment({ DATABASE_URL: testDatabaseUrl(), ...variables }) as AppConfig;
}

const request = (url: string, changes: Partial<CheckRequest> = {}): CheckRequest => ({
  url,
  method: 'GET',
  headers: {},
  body: null,
  expectedStatusMin: 200,
  expectedStatusMax: 299,
  bodyContains: null,
  timeoutSeconds: 5,
  ...changes,
});

describe('uptime checks against local sites', () => {
  let sites: UptimeSites;
  let tls: TlsSite;
  const checker = new UptimeChecker(configWith({ UPTIME_ALLOW_PRIVATE_NETWORKS: 'true' }));

  beforeAll(async () => {
    sites = await startUptimeSites();
    tls = await startTlsSite(5);
  });
  afterAll(async () => {
    await sites.close();
    await tls.close();
  });

  it('passes a healthy page, names the product in its user agent, and sends the configured request', async () => {
    const result = await checker.check(
      request(`${sites.url}/echo`, {
        method: 'POST',
        headers: { 'X-Probe': 'yes' },
        body: '{"ping":true}',
        bodyContains: 'ping',
      }),
    );
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, tlsExpiresAt: null });
    expect(result.responseMs).toEqual(expect.any(Number));
    const seen = sites.requests.filter((entry) => entry.path === '/echo').at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe('{"ping":true}');
    expect(seen.headers['user-agent']).toBe(UPTIME_USER_AGENT);
    expect(UPTIME_USER_AGENT).toMatch(/error-tracker/);
    expect(seen.headers['x-probe']).toBe('yes');
  });

  it('fails on a status outside the expected range, and passes it when the range allows it', async () => {
    expect(await checker.check(request(`${sites.url}/status/500`))).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500, expected 200–299',
    });
    const allowed = await checker.check(
      request(`${sites.url}/status/404`, { expectedStatusMin: 400, expectedStatusMax: 404 }),
    );
    expect(allowed).toMatchObject({ ok: true, statusCode: 404 });
  });

  it('fails when the body lacks the expected text', async () => {
    const result = await checker.check(request(`${sites.url}/ok`, { bodyContains: 'database: ok' }));
    expect(result).toMatchObject({ ok: false, statusCode: 200 });
    expect(result.error).toContain('do not contain the expected text');
  });

  it('waits for a slow page within the timeout, and fails one that hangs once the timeout is over', async () => {
    const slow = await checker.check(request(`${sites.url}/slow/300`, { timeoutSeconds: 10 }));
    expect(slow).toMatchObject({ ok: true, statusCode: 200 });
    expect(slow.responseMs).toBeGreaterThanOrEqual(300);
    const hung = await checker.check(request(`${sites.url}/hang`, { timeoutSeconds: 1 }));
    expect(hung).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 1 s' });
  });

  it('reads at most 64 KiB of a huge body and closes the connection', async () => {
    const result = await checker.check(request(`${sites.url}/huge`, { bodyContains: 'healthy' }));
    expect(result).toMatchObject({ ok: false, statusCode: 200 });
    expect(result.error).toContain('do not contain');
    // The site wrote what socket buffers took before the close, far from its 64 MiB.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sites.hugeBytesSent()).toBeLessThan(16 * 1024 * 1024);
    expect(MAX_BODY_READ_BYTES).toBe(64 * 1024);
    // Without body_contains the body is not read at all.
    expect(await checker.check(request(`${sites.url}/huge`))).toMatchObject({ ok: true, statusCode: 200 });
  });

  it('follows redirects, a bounded number of them', async () => {
    expect(
      await checker.check(request(`${sites.url}/redirect/3`, { bodyContains: 'healthy' })),
    ).toMatchObject({
      ok: true,
      statusCode: 200,
    });
    expect(await checker.check(request(`${sites.url}/loop`))).toMatchObject({
      ok: false,
      statusCode: 301,
      error: 'more than 5 redirects',
    });
    const toFile = await checker.check(
      request(`${sites.url}/to?url=${encodeURIComponent('file:///etc/passwd')}`),
    );
    expect(toFile).toMatchObject({ ok: false, error: 'redirect location must use http or https, not file' });
    const withCredentials = await checker.check(
      request(`${sites.url}/to?url=${encodeURIComponent('http://user:secret@127.0.0.1/')}`),
    );
    expect(withCredentials.error).toContain('redirect location must not contain credentials');
  });

  it('reads the TLS certificate expiry from a verified certificate', async () => {
    const trusted = await startTlsSite(5, 'ca');
    try {
      const trusting = new UptimeChecker(configWith({ UPTIME_ALLOW_PRIVATE_NETWORKS: 'true' }));
      trusting.extraCertificateAuthorities = [trusted.ca!];
      const result = await trusting.check(request(`${trusted.url}/`, { bodyContains: 'healthy' }));
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(result.tlsExpiresAt?.toISOString()).toBe(trusted.expiresAt.toISOString());
      // The same site, to a checker that does not know its authority, is not trusted.
      expect(await checker.check(request(`${trusted.url}/`))).toMatchObject({
        ok: false,
        error: 'TLS certificate not trusted: UNABLE_TO_VERIFY_LEAF_SIGNATURE',
        tlsExpiresAt: null,
      });
    } finally {
      await trusted.close();
    }
  });

  it('fails an untrusted certificate before any byte of the request is sent', async () => {
    const result = await checker.check(
      request(`${tls.url}/login`, {
        method: 'POST',
        headers: { Authorization: 'Bearer s3cret-token', Cookie: 'session=abc' },
        body: '{"password":"hunter2"}',
      }),
    );
    expect(result).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'TLS certificate not trusted: DEPTH_ZERO_SELF_SIGNED_CERT',
      tlsExpiresAt: null,
    });
    expect(tls.bytesReceived()).toBe(0);
  });

  it('sends no configured header and no body to another origin a redirect points at', async () => {
    const other = await startUptimeSites('127.0.0.2');
    try {
      const headers = {
        Authorization: 'Bearer s3cret-token',
        Cookie: 'session=abc',
        'Proxy-Authorization': 'Basic cHJveHk=',
        'X-Api-Key': 'key-123',
      };
      const elsewhere = encodeURIComponent(`${other.url}/echo`);
      const followed = await checker.check(request(`${sites.url}/to?url=${elsewhere}`, { headers }));
      expect(followed).toMatchObject({ ok: true, statusCode: 200 });
      expect(other.requests).toHaveLength(1);
      const seen = other.requests[0];
      expect(seen.headers['user-agent']).toBe(UPTIME_USER_AGENT);
      for (const name of Object.keys(headers))
        expect({ name, value: seen.headers[name.toLowerCase()] }).toEqual({ name, value: undefined });

      // A 307 keeps the method and the body: to another origin, the check fails rather than send them.
      const posted = await checker.check(
        request(`${sites.url}/to?url=${elsewhere}`, {
          method: 'POST',
          headers,
          body: '{"password":"hunter2"}',
        }),
      );
      expect(posted).toMatchObject({ ok: false, statusCode: 307 });
      expect(posted.error).toBe(
        `redirected to another origin (${other.url}) with the request body: check ${other.url}/echo itself`,
      );
      expect(other.requests).toHaveLength(1);

      // A 303 (or a 301 or 302 after a POST) goes on as a GET without body: that may go elsewhere.
      const seeOther = await checker.check(
        request(`${sites.url}/to?status=303&url=${elsewhere}`, { method: 'POST', headers, body: 'secret' }),
      );
      expect(seeOther).toMatchObject({ ok: true, statusCode: 200 });
      expect(other.requests).toHaveLength(2);
      expect(other.requests[1]).toMatchObject({ method: 'GET', body: '' });
      expect(other.requests[1].headers.authorization).toBeUndefined();
      expect(other.requests[1].headers['x-api-key']).toBeUndefined();

      // Within the origin, the request goes on as configured.
      const before = sites.requests.length;
      const same = await checker.check(
        request(`${sites.url}/to?url=%2Fecho`, { method: 'POST', headers, body: 'b' }),
      );
      expect(same).toMatchObject({ ok: true });
      const echoed = sites.requests.slice(before).find((entry) => entry.path === '/echo')!;
      expect(echoed).toMatchObject({ method: 'POST', body: 'b' });
      expect(echoed.headers.authorization).toBe('Bearer s3cret-token');
    } finally {
      await other.close();
    }
  });

  it('fails a refused connection with its reason', async () => {
    const result = await checker.check(request('http://127.0.0.1:1/'));
    expect(result).toMatchObject({ ok: false, error: 'connection to 127.0.0.1:1 refused' });
  });
});

describe('the SSRF guard of uptime checks', () => {
  let sites: UptimeSites;

  beforeAll(async () => {
    sites = await startUptimeSites();
  });
  afterAll(() => sites.close());

  it('refuses loopback, private and metadata addresses by default, named or literal', async () => {
    const guarded = new UptimeChecker(configWith({}));
    for (const url of [
      `${sites.url}/ok`,
      'http://localhost:1/',
      'http://169.254.169.254/latest',
      'http://[::1]/',
      'http://0x7f.1/',
    ]) {
      const result = await guarded.check(request(url));
      expect({ url, ok: result.ok, error: result.error }).toEqual({
        url,
        ok: false,
        error: expect.stringMatching(
          /^refused to connect to .*(addresses are|address, which is) not allowed \(set UPTIME_ALLOW_PRIVATE_NETWORKS=true/,
        ),
      });
    }
    expect(sites.requests).toHaveLength(0);
  });

  it('names the host it refused, never the address the host resolves to', async () => {
    const result = await new UptimeChecker(configWith({})).check(
      request(`http://localhost:${new URL(sites.url).port}/ok`),
    );
    expect(result).toMatchObject({ ok: false });
    expect(result.error).toMatch(
      /^refused to connect to localhost: it resolves to a loopback address, which is not allowed/,
    );
    expect(result.error).not.toMatch(/127\.0\.0\.1|::1/);
    expect(sites.requests).toHaveLength(0);
  });

  it('checks every redirect again: a site that may be reached cannot send the check to one that may not', async () => {
    // 127.0.0.1 stands for a public site here; every other address keeps the guard's verdict.
    const onlySite = new UptimeChecker(configWith({}));
    const narrowed = UptimeChecker.withPolicy(configWith({}), (address) =>
      address === '127.0.0.1' ? null : refusalReason(address),
    );
    expect((await onlySite.check(request(`${sites.url}/ok`))).ok).toBe(false);
    expect(await narrowed.check(request(`${sites.url}/redirect/1`))).toMatchObject({ ok: true });
    const port = new URL(sites.url).port;
    for (const target of [
      `http://127.0.0.2:${port}/ok`,
      `http://localhost6:${port}/ok`,
      'http://10.0.0.1/',
      'http://[::1]/',
    ]) {
      const before = sites.requests.length;
      const result = await narrowed.check(request(`${sites.url}/to?url=${encodeURIComponent(target)}`));
      expect({ target, ok: result.ok }).toEqual({ target, ok: false });
      expect(result.error).toMatch(/refused to connect to|could not be resolved/);
      // Only the redirecting page was asked; the forbidden target never was.
      expect(sites.requests.slice(before).map((entry) => entry.path)).toEqual(['/to']);
    }
  });
});
