import { REMOVE_CONFIRMATION } from '../../lambda/domain/custom-domain-record';
import type { ApiKey, DomainView, IssuedKey, Session, Usage, Verification } from './contract';

/**
 * The console's API, from the page: same origin (`api/…` next to the page, so `/console/api/…`),
 * the session cookie sent by the browser, and the CSRF token in this module's memory only
 * (never web storage, never a URL): a reloaded page asks GET /session for it again.
 */

/** A refusal or failure, in words for the person at the page. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** The session is gone (ended, expired, never there): the page goes back to sign-in. */
  get signedOut(): boolean {
    return this.status === 401 && (this.code === 'session_ended' || this.code === 'not_signed_in');
  }
}

let csrfToken: string | undefined;
let onSignedOut: (error: ConsoleError) => void = () => undefined;

/** Called once by the app: where a refusal for lack of a session sends the page. */
export function whenSignedOut(handler: (error: ConsoleError) => void): void {
  onSignedOut = handler;
}

function errorOf(status: number, body: unknown): ConsoleError {
  if (typeof body === 'object' && body !== null) {
    const { code, message } = body as { code?: unknown; message?: unknown };
    if (typeof message === 'string' && message !== '') {
      return new ConsoleError(status, typeof code === 'string' ? code : 'error', message);
    }
  }
  return new ConsoleError(
    status,
    'unexpected_answer',
    status >= 500
      ? `The service failed (HTTP ${status}). Try again in a moment.`
      : `The service refused the request (HTTP ${status}).`,
  );
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  // Every change carries the token; the browser adds Origin itself.
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(new URL(`api${path}`, document.baseURI), {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ConsoleError(
      0,
      'network',
      'The console could not reach the service. Check the connection, then try again.',
    );
  }
  const text = response.status === 204 ? '' : await response.text();
  let parsed: unknown;
  try {
    parsed = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = errorOf(response.status, parsed);
    if (error.signedOut && path !== '/session') {
      csrfToken = undefined;
      onSignedOut(error);
    }
    throw error;
  }
  return parsed as T;
}

const domainPath = (name: string) => `/domains/${encodeURIComponent(name)}`;

export const api = {
  /** The current session, or undefined when there is none. */
  async restore(): Promise<Session | undefined> {
    try {
      const session = await call<Session>('GET', '/session');
      csrfToken = session.csrfToken;
      return session;
    } catch (error) {
      if (error instanceof ConsoleError && error.status === 401) return undefined;
      throw error;
    }
  },
  async signIn(token: string): Promise<Session> {
    const session = await call<Session>('POST', '/session', { token });
    csrfToken = session.csrfToken;
    return session;
  },
  async signOut(): Promise<void> {
    try {
      await call<void>('DELETE', '/session');
    } finally {
      csrfToken = undefined;
    }
  },
  usage: () => call<Usage>('GET', '/usage'),
  keys: async () => (await call<{ keys: ApiKey[] }>('GET', '/keys')).keys,
  createKey: (name: string) => call<IssuedKey>('POST', '/keys', { name }),
  rotateKey: (keyId: string) => call<IssuedKey>('POST', `/keys/${encodeURIComponent(keyId)}/rotate`),
  revokeKey: (keyId: string) => call<{ key: ApiKey }>('DELETE', `/keys/${encodeURIComponent(keyId)}`),
  domains: async () => (await call<{ domains: DomainView[] }>('GET', '/domains')).domains,
  addDomain: (name: string, redirect: boolean) =>
    call<DomainView>('POST', '/domains', redirect ? { name, redirect } : { name }),
  verifyDomain: (name: string) => call<Verification>('POST', `${domainPath(name)}/verify`),
  makePrimary: (name: string) => call<unknown>('POST', `${domainPath(name)}/primary`),
  makeRedirect: (name: string) => call<unknown>('POST', `${domainPath(name)}/redirect`),
  removeDomain: (name: string) =>
    call<unknown>('DELETE', `${domainPath(name)}?confirm=${REMOVE_CONFIRMATION}`),
};

/** A message for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ConsoleError) return error.message;
  return 'Something went wrong in the page. Reload it and try again.';
}
