import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AuthFailure, Principal } from '../core/authentication';
import { isPlanName } from '../core/plans';

/**
 * How the authorizer tells an operation who a request comes from. The authorizer always
 * lets a request through and says here whether it was authenticated, so that the service
 * itself answers 401 (with its own headers) rather than the gateway.
 */

export type { AuthFailure, Principal };

/** API Gateway passes authorizer context values as strings. */
export type AuthorizerContext = Record<string, string>;

/**
 * The context the authorizer passes: who the caller is, and `corsOrigin`, the request's
 * `Origin` when the project of the request's address allows it (one origin, not the list:
 * the context stays small whatever the project allows).
 */
export function toAuthorizerContext(principal: Principal, corsOrigin?: string): AuthorizerContext {
  const cors: AuthorizerContext = corsOrigin === undefined ? {} : { corsOrigin };
  if (!principal.authenticated) return { authenticated: 'false', failure: principal.failure, ...cors };
  const { keyId, project, plan, limits } = principal;
  return {
    authenticated: 'true',
    keyId,
    project,
    plan,
    perMinute: String(limits.perMinute),
    perDay: String(limits.perDay),
    ...cors,
  };
}

/** The origin the authorizer found allowed for this request, if any (see {@link toAuthorizerContext}). */
export function corsOriginOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string | undefined {
  const { corsOrigin } = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  return typeof corsOrigin === 'string' && corsOrigin.length > 0 ? corsOrigin : undefined;
}

const FAILURES: readonly AuthFailure[] = [
  'missing_api_key',
  'invalid_authorization',
  'invalid_api_key',
  'service_unavailable',
  'unknown_address',
  'unknown_domain',
];

function count(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(number) ? number : undefined;
}

/**
 * The viewer's address the authorizer found stated by the edge (only on a request carrying
 * the origin secret); none otherwise. The authorizer alone writes the context.
 */
export function viewerAddressOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string | undefined {
  const { viewerAddress } = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  return typeof viewerAddress === 'string' && viewerAddress.length > 0 ? viewerAddress : undefined;
}

/** Reads the principal from a proxy event; anything unexpected counts as unauthenticated (fail closed). */
export function principalOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): Principal {
  const context = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  const { authenticated, keyId, project, plan, failure } = context;
  const perMinute = count(context.perMinute);
  const perDay = count(context.perDay);
  if (
    authenticated === 'true' &&
    typeof keyId === 'string' &&
    typeof project === 'string' &&
    typeof plan === 'string' &&
    isPlanName(plan) &&
    perMinute !== undefined &&
    perDay !== undefined
  ) {
    return { authenticated: true, keyId, project, plan, limits: { perMinute, perDay } };
  }
  const known = FAILURES.find((candidate) => candidate === failure);
  return { authenticated: false, failure: known ?? 'missing_api_key' };
}
