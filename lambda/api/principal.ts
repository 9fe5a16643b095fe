import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { AuthFailure, Principal } from '../domain/authentication';
import { isPlanName } from '../domain/plans';

/**
 * How the authorizer tells an operation who a request comes from. The authorizer always
 * lets a request through and says here whether it was authenticated, so that the service
 * itself answers 401 (with its own headers) rather than the gateway.
 */

export type { AuthFailure, Principal };

/** API Gateway passes authorizer context values as strings. */
export type AuthorizerContext = Record<string, string>;

export function toAuthorizerContext(principal: Principal): AuthorizerContext {
  if (!principal.authenticated) return { authenticated: 'false', failure: principal.failure };
  const { keyId, project, plan, limits } = principal;
  return {
    authenticated: 'true',
    keyId,
    project,
    plan,
    perMinute: String(limits.perMinute),
    perDay: String(limits.perDay),
  };
}

const FAILURES: readonly AuthFailure[] = [
  'missing_api_key',
  'invalid_authorization',
  'invalid_api_key',
  'service_unavailable',
  'unknown_address',
];

function count(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(number) ? number : undefined;
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
