/**
 * How the console's browser session travels: its `__Host-` cookie and the header of its CSRF
 * token. Nothing here needs Node: the page reads the header's name.
 */

/**
 * The session cookie. `__Host-`: the browser takes it only with Secure, Path=/ and no Domain,
 * so no project address (same site, another host) can set or widen it; HttpOnly keeps it from
 * scripts; SameSite=Strict keeps it off cross-site requests. Local mode sets the same cookie on
 * plain http://localhost, which browsers treat as a secure context.
 */
export const SESSION_COOKIE_NAME = '__Host-animal-store-session';

/** The `Set-Cookie` value of a new session, kept by the browser for `maxAgeSeconds` at most. */
export function sessionCookie(secret: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE_NAME}=${secret}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
}

/** The `Set-Cookie` value that drops the session cookie. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

/** Every value of the session cookie in a request's `Cookie` headers (normally one, or none). */
export function sessionCookieValues(cookieHeaders: readonly string[]): string[] {
  const values: string[] = [];
  for (const header of cookieHeaders) {
    for (const pair of header.split(';')) {
      const split = pair.indexOf('=');
      if (split > 0 && pair.slice(0, split).trim() === SESSION_COOKIE_NAME)
        values.push(pair.slice(split + 1).trim());
    }
  }
  return values;
}

/** The header that carries a session's CSRF token on every change made with its cookie. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * The sign-in in progress (issue 26): sealed (lambda/core/pending-sign-in.ts), HttpOnly, and
 * SameSite=Lax, because the provider's redirect back to the callback is a cross-site top-level
 * navigation, which a Strict cookie would miss. Path=/ as `__Host-` demands.
 */
export const SIGN_IN_COOKIE_NAME = '__Host-animal-store-sign-in';

export function signInCookie(sealed: string, maxAgeSeconds: number): string {
  return `${SIGN_IN_COOKIE_NAME}=${sealed}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearedSignInCookie(): string {
  return `${SIGN_IN_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}

/** Every value of the named cookie in a request's `Cookie` headers. */
export function cookieValues(cookieHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (const header of cookieHeaders) {
    for (const pair of header.split(';')) {
      const split = pair.indexOf('=');
      if (split > 0 && pair.slice(0, split).trim() === name) values.push(pair.slice(split + 1).trim());
    }
  }
  return values;
}
