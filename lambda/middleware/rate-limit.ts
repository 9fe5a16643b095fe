import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { toErrorResponse } from '../api/error-response';
import { allowedRequestOrigin, isPreflight } from '../api/cors';
import { principalOf, viewerAddressOf } from '../api/principal';
import { rateLimitHeaders, rateLimitRefusal, rateLimitUnavailable } from '../api/rate-limit';
import { ANONYMOUS_LIMITS, type PlanLimits, PREFLIGHT_LIMITS } from '../core/plans';
import type { Admission } from '../core/rate-limit';
import { keySubject, projectIdentity, type RateLimiter } from '../core/rate-limiter';
import { logError } from '../shared/observability';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;
type Settled = { admission: Admission; caller: string; banned: string } | { failure: unknown };

const PENDING = Symbol('rate limit admission');

/** Who a request is counted as: the counter's identity, its limits, and the caller's words for a refusal. */
export interface CountedCaller {
  readonly identity: string;
  readonly limits: PlanLimits;
  readonly caller: string;
  /** Who is banned if it keeps calling while limited: one key of a project. @default the whole caller */
  readonly subject?: string;
  /** Whether its calls are a project's usage, counted by operation (issue 29). */
  readonly countsUsage?: boolean;
}

/**
 * Who is counted, and against which limits: a project (all its keys together) against its
 * plan, a ban falling on the one key that earned it; anyone without a valid key per client
 * address (the viewer's, when the request came through the edge, see the authorizer; else
 * the connection's source), never on a project's counter, whatever address or origin it
 * names: a preflight from an origin the address's project allows against the preflight
 * allowance, anything else against the anonymous one.
 */
export function callerOf(event: APIGatewayProxyEvent): CountedCaller {
  const principal = principalOf(event);
  if (principal.authenticated) {
    return {
      identity: projectIdentity(principal.project),
      limits: principal.limits,
      caller: `project ${principal.project} (${principal.plan} plan)`,
      subject: keySubject(principal.keyId),
      countsUsage: true,
    };
  }
  // Through the edge the source is a CloudFront address many viewers share: the viewer counts.
  const client = viewerAddressOf(event) ?? event.requestContext?.identity?.sourceIp ?? 'unknown';
  if (isPreflight(event) && allowedRequestOrigin(event) !== undefined) return preflightCallerAt(client);
  return anonymousCallerAt(client);
}

/** A caller known only by its client address, against the anonymous allowance. */
export function anonymousCallerAt(ip: string): CountedCaller {
  return {
    identity: `ip:${ip}`,
    limits: ANONYMOUS_LIMITS,
    caller: 'requests without a valid API key (per client IP)',
  };
}

/** A client's preflights from allowed origins, against their own allowance (apart from its other keyless calls). */
function preflightCallerAt(ip: string): CountedCaller {
  return {
    identity: `preflight:${ip}`,
    limits: PREFLIGHT_LIMITS,
    caller: 'CORS preflights (per client IP)',
  };
}

/** The response for a settled admission: the given one with the rate-limit headers, or the refusal. */
function finish(
  settled: Settled,
  response: APIGatewayProxyResult | null | undefined,
): APIGatewayProxyResult | null | undefined {
  if ('failure' in settled) return toErrorResponse(rateLimitUnavailable());
  const { admission, caller, banned } = settled;
  if (!admission.admitted) return toErrorResponse(rateLimitRefusal(admission, caller, banned));
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
  {
    countBeforeHandler,
    identify = callerOf,
    operation,
  }: {
    countBeforeHandler: boolean;
    /** The operation a project's request is counted under in its usage (the handler's name). */
    operation?: string;
    /** Who is counted (the console counts its projects apart from their API calls). @default callerOf */
    identify?: (event: APIGatewayProxyEvent) => CountedCaller;
  },
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const pendingOf = (request: Request) =>
    (request.internal as Record<symbol, Promise<Settled> | undefined>)[PENDING];
  return {
    before: async (request) => {
      const { identity, limits, caller, subject, countsUsage } = identify(request.event);
      // A key's ban leaves its project's other keys alone; the message says so.
      const banned = subject === undefined ? 'this caller' : "this API key (not the project's other keys)";
      const usage = countsUsage ? operation : undefined;
      const pending: Promise<Settled> = limiter.admit(identity, limits, subject, usage).then(
        (admission) => ({ admission, caller, banned }),
        (failure: unknown) => {
          logError('rate limiter unavailable', failure);
          return { failure };
        },
      );
      (request.internal as Record<symbol, Promise<Settled>>)[PENDING] = pending;
      if (countBeforeHandler) {
        const settled = await pending;
        if ('failure' in settled) throw rateLimitUnavailable();
        if (!settled.admission.admitted) throw rateLimitRefusal(settled.admission, caller, banned);
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
