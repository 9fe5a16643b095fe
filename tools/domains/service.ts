import { type ConsoleClient, consoleClient } from '../../lambda/api/console-client';
import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { portFromEnv } from '../../local/local-tables';
import { reason, Refusal, UsageError } from '../failures';
import { CONSOLE_TOKEN_VARIABLE, PERSONAL_TOKEN_VARIABLE, TOKEN_HINT } from './options';
import type { DomainsCommandIo } from './io';

/**
 * The tenant's side of the tool: the domains service (the console's API) through its typed
 * client, as the project of the console token in ANIMAL_STORE_CONSOLE_TOKEN; local mode's by
 * default, a deployed one with --url. A refusal is the service's own message.
 */

/** Local mode's API: the tests' URL, or http://127.0.0.1:<PORT>. */
export function localBase(io: DomainsCommandIo): string {
  if (io.localApiUrl !== undefined) return io.localApiUrl;
  try {
    return `http://127.0.0.1:${portFromEnv('PORT', 3000, io.env ?? process.env)}`;
  } catch (error) {
    throw new UsageError(reason(error));
  }
}

/** The console API's base: --url, or local mode's. */
export function consoleBase(io: DomainsCommandIo, url: string | undefined): string {
  if (url === undefined) return `${localBase(io)}${CONSOLE_API_PREFIX}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `--url ${url}: give the console API's base URL, e.g. https://console.example.com${CONSOLE_API_PREFIX}.`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`--url ${url}: give an http(s) URL.`);
  }
  return url.replace(/\/+$/, '');
}

/**
 * The caller's token, from the environment only: a member's personal access token, else the
 * project's console token (which works until the project's first owner).
 */
export function consoleTokenOf(io: DomainsCommandIo): string {
  const env = io.env ?? process.env;
  const token = env[PERSONAL_TOKEN_VARIABLE] || env[CONSOLE_TOKEN_VARIABLE];
  if (!token) {
    throw new UsageError(
      `Set ${PERSONAL_TOKEN_VARIABLE} to your personal access token (pat_…, made in the console's Tokens view), or, until the project has an owner, ${CONSOLE_TOKEN_VARIABLE} to the project's console token (pct_…, printed by npm run projects -- create): the tool acts for that project. It is never an argument, which would land in shell history.`,
    );
  }
  return token;
}

/** A refusal's words: the Error body's message, and where to look on a 401. */
export function refusalOf(status: number, text: string, fallback: string): Refusal {
  let message = fallback;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
      message = body.message;
    }
  } catch {
    // Not an Error body: the fallback says what answered.
  }
  const hint = status === 401 ? TOKEN_HINT : '';
  return new Refusal(`${message}${hint}`);
}

/** The console API at `base`, as the project of `token`: each call's answer is its route's, a non-2xx a Refusal. */
export function domainsService(base: string, token: string): ConsoleClient {
  return consoleClient(async ({ method, path, body }) => {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await response.text();
    } catch {
      throw new Refusal(
        `No domains service answers at ${base}: start local mode (npm start, and set PORT to its port), or give --url.`,
      );
    }
    if (!response.ok) throw refusalOf(response.status, text, `HTTP ${response.status}`);
    try {
      // The answer its route declares (null for a 204): the service is the route table's other reader.
      return JSON.parse(text || 'null');
    } catch {
      throw new Refusal(`The service at ${base} answered ${response.status} with a body that is not JSON.`);
    }
  });
}

/** The service of a tenant command: --url (or local mode) and the console token. */
export function serviceOf(io: DomainsCommandIo, url: string | undefined): ConsoleClient {
  const base = consoleBase(io, url);
  return domainsService(base, consoleTokenOf(io));
}
