import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { toErrorResponse } from '../api/error-response';
import { principalOf } from '../api/principal';
import { rateLimitHeaders, rateLimitRefusal, rateLimitUnavailable } from '../api/rate-limit';
import { ANONYMOUS_LIMITS, type PlanLimits } from '../domain/plans';
import type { Admission } from '../domain/rate-limit';
import type { RateLimiter } from '../domain/rate-limiter';
import { logError } from '../shared/observability';

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

/** The response for a settled admission: the given one with the rate-limit headers, or the refusal. */
function finish(
  settled: Settled,
  response: APIGatewayProxyResult | null | undefined,
): APIGatewayProxyResult | null | undefined {
  if ('failure' in settled) return toErrorResponse(rateLimitUnavailable());
  const { admission, caller } = settled;
  if (!admission.admitted) return toErrorResponse(rateLimitRefusal(admission, caller));
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
        if ('failure' in settled) throw rateLimitUnavailable();
        if (!settled.admission.admitted) throw rateLimitRefusal(settled.admission, caller);
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
