import type { NextFunction, Request, Response } from 'express';

/**
 * The built dashboard is one module script and one stylesheet from /assets, talking to its own
 * origin; Preact sets styles through the CSSOM, which style-src does not govern. So nothing inline
 * and nothing from elsewhere is needed, and an injected script or style has nowhere to come from.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Every file and page of the dashboard. */
export function setDashboardSecurityHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  // frame-ancestors supersedes it; browsers without CSP level 2 only know this one.
  response.setHeader('X-Frame-Options', 'DENY');
  // Dashboard URLs name projects and issues: links out should not tell other sites about them.
  response.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * Every answer of the server: an API answer echoes what clients sent (issue titles, event payloads),
 * and a browser must never guess that JSON is HTML or script.
 */
export function noSniff(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}
