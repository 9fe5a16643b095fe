import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/errors';
import { ANONYMOUS_LIMITS, type PlanLimits } from '../domain/plans';
import { principalOf } from '../api/principal';
import { type Admission, rateLimitHeaders } from '../domain/rate-limit';
import type { RateLimiter } from '../domain/rate-limiter';
import { logError } from '../shared/observability';
import { toErrorResponse } from './error-responses';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
type Settled = { admission: Admission; caller: string } | { failure: unknown };

const PENDING = Symbol('rate limit admission');

/**
 * Who is counted, and against which limits: a project (all its keys together) against its
 * plan, anyone else per client address against the anonymous allowance.
 */
function callerOf(event: APIGatewayProxyEvent): { identity: string; limits: PlanLimits; caller: string } {
  const principal = principalOf(event);
  if (principal.authenticated) {
    return {
      identity: `project:${principal.project}`,
      limits: principal.limits,
      caller: `project ${principal.project} (${principal.plan} plan)`,
    };
  }
  const ip = event.requestContext?.identity?.sourceIp ?? 'unknown';
  return {
    identity: `ip:${ip}`,
    limits: ANONYMOUS_LIMITS,
    caller: 'requests without a valid API key (per client IP)',
  };
}

function refusalError(admission: Admission & { admitted: false }, caller: string): ApiError {
  const headers = rateLimitHeaders(admission);
  const until = new Date(admission.retryAtMs).toISOString();
  const wait = headers['Retry-After'];
  if (admission.reason === 'banned') {
    return new ApiError(
      'temporarily_banned',
      `Too many requests were sent while rate limited, so this caller is banned until ${until} (${wait} s). Wait for Retry-After, then back off exponentially.`,
      headers,
    );
  }
  const limit = admission.reason === 'minute' ? admission.limits.perMinute : admission.limits.perDay;
  return new ApiError(
    'rate_limited',
    `Rate limit exceeded: ${limit} requests per ${admission.reason} for ${caller}. The ${admission.reason} window resets at ${until} (in ${wait} s).`,
    headers,
  );
}

const unavailable = () =>
  new ApiError(
    'service_unavailable',
    'Rate limits cannot be checked because the data store is unavailable; retry after the Retry-After delay.',
    { 'Retry-After': '1' },
  );

/** The response for a settled admission: the given one with the rate-limit headers, or the refusal. */
function finish(
  settled: Settled,
  response: APIGatewayProxyResult | null | undefined,
): APIGatewayProxyResult | null | undefined {
  if ('failure' in settled) return toErrorResponse(unavailable());
  const { admission, caller } = settled;
  if (!admission.admitted) return toErrorResponse(refusalError(admission, caller));
  if (response) response.headers = { ...response.headers, ...rateLimitHeaders(admission) };
  return response;
}

/**
 * Counts every request, whatever its outcome, and puts the rate-limit headers on
 * every response. For reads the count runs beside the operation (its latency is
 * not added in series); writes wait for it, so a refused request writes nothing.
 * If the counters cannot be reached the request fails closed with 503.
 */
export function rateLimit(
  limiter: RateLimiter,
  { countBeforeHandler }: { countBeforeHandler: boolean },
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const pendingOf = (request: Request) =>
    (request.internal as Record<symbol, Promise<Settled> | undefined>)[PENDING];
  return {
    before: async (request) => {
      const { identity, limits, caller } = callerOf(request.event);
      const pending: Promise<Settled> = limiter.admit(identity, limits).then(
        (admission) => ({ admission, caller }),
        (failure: unknown) => {
          logError('rate limiter unavailable', failure);
          return { failure };
        },
      );
      (request.internal as Record<symbol, Promise<Settled>>)[PENDING] = pending;
      if (countBeforeHandler) {
        const settled = await pending;
        if ('failure' in settled) throw unavailable();
        if (!settled.admission.admitted) throw refusalError(settled.admission, caller);
      }
    },
    after: async (request) => {
      const pending = pendingOf(request);
      if (pending) request.response = finish(await pending, request.response) ?? request.response;
    },
    onError: async (request) => {
      const pending = pendingOf(request);
      if (pending) request.response = finish(await pending, request.response) ?? request.response;
    },
  };
}
