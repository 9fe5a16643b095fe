/**
 * The console page's security headers: one list, sent by local mode's static server and set
 * on the console distribution's response headers policy in AWS. The policy allows no inline
 * script or style, and no framing; the page talks only to its own origin (its API is a path of
 * that origin, so no CORS is needed).
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Two years, as HSTS preload lists ask; browsers ignore it over plain HTTP (local mode). */
export const CONSOLE_HSTS_SECONDS = 63_072_000;

export const CONSOLE_SECURITY_HEADERS = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'Strict-Transport-Security': `max-age=${CONSOLE_HSTS_SECONDS}; includeSubDomains`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
} as const;
