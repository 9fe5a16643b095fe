import { CONSOLE_SECURITY_HEADERS } from '../console/security-headers';
import { CONSOLE_API_PREFIX, CONSOLE_ROUTES } from '../lambda/api/console-routes';
import type { AnyErrorCode } from '../lambda/api/errors';
import { ROUTES } from '../lambda/api/routes';
import { PLANS } from '../lambda/core/plans';
import { send, type SmokeRequest, type SmokeResponse } from './smoke-http';

/**
 * The smoke test's checks: what a user sees of a running service, over HTTP(S) alone. Each
 * returns a line saying what it saw, throws a {@link CheckFailure} saying what was wrong, or
 * skips where the target has no such address. Expected values come from the source (the route
 * table, the plan table, the console's header list), never from copies.
 */

/** Where the service under test answers. */
export interface SmokeTarget {
  /** The API's base URL, ending in `/v1`. */
  readonly baseUrl: string;
  /** The throwaway project's own address (`…/v1`), or why there is none. */
  readonly projectAddress: { readonly url: string } | { readonly none: string };
  /** The console page's URL (`…/console/`), or why there is none. */
  readonly consolePage: { readonly url: string } | { readonly none: string };
}

/** The throwaway project the checks act as: on the Free plan, with one key and one allowed origin. */
export interface SmokeSubject {
  readonly project: string;
  readonly apiKey: string;
  readonly allowedOrigin: string;
  /** Where its key was stored, for the message when the service does not know it. */
  readonly keyStore: string;
}

export interface CheckContext {
  readonly target: SmokeTarget;
  readonly subject: SmokeSubject;
  readonly signal?: AbortSignal;
  /** The pet the create check made, once it has. */
  pet?: { readonly id: number; readonly name: string };
}

export type CheckResult =
  { readonly skipped?: undefined; readonly detail: string } | { readonly skipped: string };

export interface SmokeCheck {
  readonly name: string;
  /** What it checks, for the usage. */
  readonly what: string;
  run(context: CheckContext): Promise<CheckResult>;
}

/** A check that saw something other than what a working service answers. */
export class CheckFailure extends Error {}

function must(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

const passed = (detail: string): CheckResult => ({ detail });

function parseJson(response: SmokeResponse, what: string): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new CheckFailure(`${what} is not JSON: ${JSON.stringify(response.text.slice(0, 80))}`);
  }
}

/** `401 missing_api_key`, or what came instead, with the start of the body. */
function seen(response: SmokeResponse): string {
  const body = response.text.replace(/\s+/g, ' ').slice(0, 120);
  return `${response.status}${body ? ` ${body}` : ''}`;
}

/** Checks the service's Error body: exactly `{code, message, status}`, with this status and code. */
function expectError(response: SmokeResponse, status: number, code: AnyErrorCode, what: string): void {
  must(response.status === status, `${what}: expected ${status} ${code}, got ${seen(response)}`);
  const body = parseJson(response, `${what}'s body`) as Record<string, unknown>;
  const keys = Object.keys(body ?? {}).sort();
  must(
    keys.join() === 'code,message,status' && body.status === status && body.code === code,
    `${what}: expected the Error body {code: ${code}, message, status: ${status}}, got ${response.text.slice(0, 120)}`,
  );
}

const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });

/** A keyed request of the subject's to the base URL (or another address). */
function asSubject(context: CheckContext, url: string, request: SmokeRequest = {}): Promise<SmokeResponse> {
  return send(
    url,
    { ...request, headers: { ...bearer(context.subject.apiKey), ...request.headers } },
    context.signal,
  );
}

/** The message when the service refuses the key the store holds: most likely another store. */
function keyRefused(context: CheckContext, response: SmokeResponse, what: string): string {
  return response.status === 401
    ? `${what}: the service refused the throwaway key (${seen(response)}); is ${context.subject.keyStore} the store this service reads?`
    : `${what}: got ${seen(response)}`;
}

const openApiDocument: SmokeCheck = {
  name: 'OpenAPI document',
  what: 'GET /openapi.json is an OpenAPI 3 document with every operation of the route table.',
  async run({ target, signal }) {
    const url = `${target.baseUrl}/openapi.json`;
    const response = await send(url, {}, signal);
    must(response.status === 200, `GET ${url}: expected 200, got ${seen(response)}`);
    must(
      /^application\/(vnd\.oai\.openapi\+)?json/.test(response.headers['content-type'] ?? ''),
      `GET ${url}: expected a JSON Content-Type, got ${response.headers['content-type'] ?? 'none'}`,
    );
    const document = parseJson(response, 'The document') as {
      openapi?: unknown;
      info?: { version?: unknown };
      paths?: Record<string, Record<string, unknown>>;
    };
    must(
      typeof document.openapi === 'string' && document.openapi.startsWith('3.'),
      'The document is not OpenAPI 3',
    );
    const missing = ROUTES.filter((route) => !document.paths?.[route.path]?.[route.method.toLowerCase()]);
    must(
      missing.length === 0,
      `The document lacks ${missing.map((route) => `${route.method} ${route.path}`).join(', ')}`,
    );
    return passed(
      `OpenAPI ${document.openapi}, version ${String(document.info?.version)}, all ${ROUTES.length} operations`,
    );
  },
};

const withoutKey: SmokeCheck = {
  name: '401 without a key',
  what: 'GET /pets without a key is 401 missing_api_key, in the Error body.',
  async run({ target, signal }) {
    const response = await send(`${target.baseUrl}/pets`, {}, signal);
    expectError(response, 401, 'missing_api_key', 'GET /pets without a key');
    return passed('GET /pets answers 401 missing_api_key');
  },
};

const createListGet: SmokeCheck = {
  name: 'create, list and get',
  what: 'POST /pets is 201 with Location; the pet is listed and fetched by id.',
  async run(context) {
    const { baseUrl } = context.target;
    const name = `smoke ${context.subject.project}`;
    const created = await asSubject(context, `${baseUrl}/pets`, {
      method: 'POST',
      json: { name, categoryId: 1, status: 'available' },
    });
    must(created.status === 201, keyRefused(context, created, 'POST /pets'));
    const pet = parseJson(created, 'The created pet') as { id?: unknown; name?: unknown };
    must(
      typeof pet.id === 'number' && pet.name === name,
      `POST /pets answered ${created.text.slice(0, 120)}`,
    );
    context.pet = { id: pet.id, name };
    must(created.headers.location, 'POST /pets: the 201 has no Location header');

    const listed = await asSubject(context, `${baseUrl}/pets?status=available`);
    must(listed.status === 200, `GET /pets: expected 200, got ${seen(listed)}`);
    const pets = parseJson(listed, 'The list') as { id?: unknown }[];
    must(
      Array.isArray(pets) && pets.some((candidate) => candidate.id === pet.id),
      `GET /pets?status=available does not list pet ${pet.id}`,
    );

    const fetched = await asSubject(context, `${baseUrl}/pets/${pet.id}`);
    must(fetched.status === 200, `GET /pets/${pet.id}: expected 200, got ${seen(fetched)}`);
    must(
      (parseJson(fetched, 'The pet') as { id?: unknown }).id === pet.id,
      `GET /pets/${pet.id} answered another pet`,
    );
    return passed(`pet ${pet.id} created (201, Location), listed and fetched`);
  },
};

const projectAddress: SmokeCheck = {
  name: 'project address',
  what: "The project's own address (<project>.<platform domain>) serves its pets.",
  async run(context) {
    const address = context.target.projectAddress;
    if ('none' in address) return { skipped: address.none };
    const response = await asSubject(context, `${address.url}/pets`);
    must(response.status === 200, keyRefused(context, response, `GET ${address.url}/pets`));
    const pets = parseJson(response, 'The list') as { id?: unknown }[];
    must(Array.isArray(pets), `GET ${address.url}/pets did not answer a list`);
    const { pet } = context;
    must(
      !pet || pets.some((candidate) => candidate.id === pet.id),
      `${address.url} does not list pet ${pet?.id}`,
    );
    return passed(`${address.url} serves project ${context.subject.project}${pet ? ` (pet ${pet.id})` : ''}`);
  },
};

/** An origin no project allows: a preflight from it is refused. */
const STRANGER_ORIGIN = 'https://stranger.example';

const corsPreflight: SmokeCheck = {
  name: 'CORS preflight',
  what: "OPTIONS at the project's address: 204 for its allowed origin, 403 for another.",
  async run({ target, subject, signal }) {
    const address = target.projectAddress;
    if ('none' in address)
      return { skipped: `${address.none}; preflights are answered at a project's address` };
    const preflight = (origin: string) =>
      send(
        `${address.url}/pets`,
        {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization,content-type',
          },
        },
        signal,
      );
    const allowed = await preflight(subject.allowedOrigin);
    must(
      allowed.status === 204,
      `OPTIONS /pets from ${subject.allowedOrigin}: expected 204, got ${seen(allowed)}`,
    );
    must(
      allowed.headers['access-control-allow-origin'] === subject.allowedOrigin,
      `OPTIONS /pets: Access-Control-Allow-Origin is ${allowed.headers['access-control-allow-origin'] ?? 'missing'}`,
    );
    must(
      /\bPOST\b/.test(allowed.headers['access-control-allow-methods'] ?? ''),
      `OPTIONS /pets: Access-Control-Allow-Methods is ${allowed.headers['access-control-allow-methods'] ?? 'missing'}`,
    );
    const refused = await preflight(STRANGER_ORIGIN);
    expectError(refused, 403, 'cors_not_allowed', `OPTIONS /pets from ${STRANGER_ORIGIN}`);
    must(
      refused.headers['access-control-allow-origin'] === undefined,
      `OPTIONS /pets from ${STRANGER_ORIGIN} carries Access-Control-Allow-Origin`,
    );
    return passed(`204 for the project's origin, 403 cors_not_allowed for another`);
  },
};

const consolePage: SmokeCheck = {
  name: 'console page security headers',
  what: 'The console page is HTML with every security header (CSP, nosniff, HSTS, ...).',
  async run({ target, signal }) {
    const page = target.consolePage;
    if ('none' in page) return { skipped: page.none };
    const response = await send(page.url, {}, signal);
    must(response.status === 200, `GET ${page.url}: expected 200, got ${response.status}`);
    must(
      (response.headers['content-type'] ?? '').startsWith('text/html'),
      `GET ${page.url}: expected an HTML page, got ${response.headers['content-type'] ?? 'no Content-Type'}`,
    );
    const wrong = Object.entries(CONSOLE_SECURITY_HEADERS).flatMap(([header, expected]) => {
      const actual = response.headers[header.toLowerCase()];
      return actual === expected
        ? []
        : [`${header} ${actual === undefined ? 'missing' : `is ${JSON.stringify(actual)}`}`];
    });
    must(wrong.length === 0, `GET ${page.url}: ${wrong.join('; ')}`);
    return passed(
      `${page.url} carries all ${Object.keys(CONSOLE_SECURITY_HEADERS).length} (CSP, nosniff, HSTS, …)`,
    );
  },
};

const SESSION_ROUTE = CONSOLE_ROUTES.find((route) => route.operationId === 'getSession');

const consoleApi: SmokeCheck = {
  name: 'console API 401',
  what: 'The console API without a session is 401 not_signed_in.',
  async run({ target, signal }) {
    const page = target.consolePage;
    if ('none' in page) return { skipped: page.none };
    const url = `${new URL(page.url).origin}${CONSOLE_API_PREFIX}${SESSION_ROUTE?.path ?? '/session'}`;
    const response = await send(url, {}, signal);
    expectError(response, 401, 'not_signed_in', `GET ${url} without a session`);
    return passed(`GET ${url} answers 401 not_signed_in`);
  },
};

/** Requests sent at once while spending the minute: well under the Free usage plan's burst. */
const CONCURRENCY = 10;

/**
 * Spends the rest of the Free minute, counted from the service's own X-RateLimit-Remaining, then
 * sends one more. A minute that turns on the way restarts the count, so it tries a second minute.
 */
const freeMinute: SmokeCheck = {
  name: '429 on a Free project',
  what: 'The Free minute spent, the next request is 429 rate_limited with Retry-After\nand X-RateLimit-* (the limit read from lambda/core/plans.ts).',
  async run(context) {
    const { perMinute } = PLANS.free.limits;
    const url = `${context.target.baseUrl}/pets?limit=1`;
    for (let attempt = 1; ; attempt++) {
      const first = await asSubject(context, url);
      must(first.status === 200 || first.status === 429, keyRefused(context, first, `GET /pets?limit=1`));
      const reset = first.headers['x-ratelimit-reset'];
      let last = first;
      if (first.status === 200) {
        must(
          first.headers['x-ratelimit-limit'] === String(perMinute),
          `X-RateLimit-Limit is ${first.headers['x-ratelimit-limit'] ?? 'missing'}, not the Free plan's ${perMinute}`,
        );
        let remaining = Number(first.headers['x-ratelimit-remaining']);
        must(Number.isInteger(remaining) && remaining >= 0, 'X-RateLimit-Remaining is missing');
        while (remaining > 0) {
          const batch = Math.min(CONCURRENCY, remaining);
          await Promise.all(Array.from({ length: batch }, () => asSubject(context, url)));
          remaining -= batch;
        }
        last = await asSubject(context, url);
      }
      if (last.status !== 429 && last.headers['x-ratelimit-reset'] !== reset && attempt < 2) continue;
      expectError(last, 429, 'rate_limited', `Request ${perMinute + 1} of a Free minute`);
      const retryAfter = Number(last.headers['retry-after']);
      must(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
        `The 429's Retry-After is ${last.headers['retry-after'] ?? 'missing'}`,
      );
      must(
        last.headers['x-ratelimit-remaining'] === '0' &&
          last.headers['x-ratelimit-limit'] === String(perMinute) &&
          last.headers['x-ratelimit-reset'] !== undefined,
        `The 429's X-RateLimit headers: limit ${last.headers['x-ratelimit-limit']}, remaining ${last.headers['x-ratelimit-remaining']}, reset ${last.headers['x-ratelimit-reset']}`,
      );
      return passed(
        `request ${perMinute + 1} of the minute: 429 rate_limited, Retry-After ${retryAfter}, X-RateLimit-Limit ${perMinute}, X-RateLimit-Remaining 0`,
      );
    }
  },
};

/**
 * Every check, in the order they run. The Free minute goes last: it spends the project's
 * allowance, which every keyed check before it needs.
 */
export const SMOKE_CHECKS: readonly SmokeCheck[] = [
  openApiDocument,
  withoutKey,
  createListGet,
  projectAddress,
  corsPreflight,
  consolePage,
  consoleApi,
  freeMinute,
];
