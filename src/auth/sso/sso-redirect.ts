/**
 * Where to send the browser after signing in: a path of this site only. Anything else (another
 * origin, `//host`, a backslash trick) goes to the dashboard's start page, so that the sign-in
 * link cannot be used to send people elsewhere.
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2_000) return '/';
  if (!/^\/(?![/\\])/.test(next) || next.includes('\\') || [...next].some((char) => char < ' ')) return '/';
  return next;
}

/** Whether an issuer URL may be fetched over plain http: only on this machine (a test, a local provider). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/** E-mail domains allowed to sign in; an empty list allows any. */
export function emailDomainAllowed(email: string, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return allowed.includes(domain);
}
