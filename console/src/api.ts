import { type ConsoleCall, consoleClient } from '../../lambda/api/console-client';
import { CSRF_HEADER } from '../../lambda/api/console-cookies';
import { SIGN_IN_PROVIDER_PATH } from '../../lambda/api/console-navigation';
import type { Session } from './contract';

/**
 * The console's API, from the page: same origin (`api/…` next to the page, so `/console/api/…`),
 * the session cookie sent by the browser, and the CSRF token in this module's memory only
 * (never web storage, never a URL): a reloaded page asks GET /session for it again. Every call
 * goes through the console API's typed client: `api.call('listKeys')` answers what the route
 * declares.
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

  /**
   * The session is gone (ended, expired, never there, its membership or its token retired: the
   * service cleared its cookie): the page goes back to sign-in.
   */
  get signedOut(): boolean {
    return this.status === 401 && SESSION_GONE.has(this.code);
  }
}

const SESSION_GONE = new Set(['session_ended', 'not_signed_in', 'membership_ended', 'console_token_retired']);

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

/** The browser's way of sending a call: same origin, the cookie, and the CSRF token on a change. */
async function send<Answer>({ method, path, body }: ConsoleCall): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  // Every change carries the token; the browser adds Origin itself.
  if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken;
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
  if (!response.ok) {
    const error = errorOf(response.status, parsedOrUndefined(text));
    if (error.signedOut && path !== '/session') {
      csrfToken = undefined;
      onSignedOut(error);
    }
    throw error;
  }
  try {
    // The answer its route declares (null for a 204): the service is the route table's other reader.
    return JSON.parse(text || 'null');
  } catch {
    throw new ConsoleError(
      response.status,
      'unexpected_answer',
      'The service answered something the console cannot read. Reload the page and try again.',
    );
  }
}

function parsedOrUndefined(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

const client = consoleClient(send);

export const api = {
  /** Calls a console route: `api.call('verifyDomain', { path: { name } })`. */
  call: client.call,
  /** The current session, or undefined when there is none. */
  async restore(): Promise<Session | undefined> {
    try {
      const session = await client.call('getSession');
      csrfToken = session.csrfToken;
      return session;
    } catch (error) {
      if (error instanceof ConsoleError && error.status === 401) return undefined;
      throw error;
    }
  },
  async signIn(token: string): Promise<Session> {
    const session = await client.call('createSession', { body: { token } });
    csrfToken = session.csrfToken;
    return session;
  },
  /** Whether sign-in through an identity provider is set up (its path exists only then). */
  async identityProvider(): Promise<boolean> {
    try {
      const response = await fetch(SIGN_IN_PROVIDER_PATH, { credentials: 'same-origin', cache: 'no-store' });
      return response.ok;
    } catch {
      return false;
    }
  },
  async signOut(): Promise<void> {
    try {
      await client.call('deleteSession');
    } finally {
      csrfToken = undefined;
    }
  },
};

/** A message for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ConsoleError) return error.message;
  return 'Something went wrong in the page. Reload it and try again.';
}
