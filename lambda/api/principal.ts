import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isPlanNameForm } from '../domain/api-key';
import type { PlanName } from './plans';

/**
 * Who a request comes from, as the authorizer decided. The authorizer always
 * lets a request through and says here whether it was authenticated, so that the
 * service itself answers 401 (with its own headers) rather than the gateway.
 */
export type AuthFailure =
  'missing_api_key' | 'invalid_authorization' | 'invalid_api_key' | 'service_unavailable';

export type Principal =
  | { readonly authenticated: true; readonly keyId: string; readonly plan: PlanName }
  | { readonly authenticated: false; readonly failure: AuthFailure };

/** API Gateway passes authorizer context values as strings. */
export type AuthorizerContext = Record<string, string>;

export function toAuthorizerContext(principal: Principal): AuthorizerContext {
  return principal.authenticated
    ? { authenticated: 'true', keyId: principal.keyId, plan: principal.plan }
    : { authenticated: 'false', failure: principal.failure };
}

const FAILURES: readonly AuthFailure[] = [
  'missing_api_key',
  'invalid_authorization',
  'invalid_api_key',
  'service_unavailable',
];

/** Reads the principal from a proxy event; anything unexpected counts as unauthenticated (fail closed). */
export function principalOf(event: Pick<APIGatewayProxyEvent, 'requestContext'>): Principal {
  const context = (event.requestContext?.authorizer ?? {}) as Record<string, unknown>;
  const { authenticated, keyId, plan, failure } = context;
  if (
    authenticated === 'true' &&
    typeof keyId === 'string' &&
    typeof plan === 'string' &&
    isPlanNameForm(plan)
  ) {
    return { authenticated: true, keyId, plan };
  }
  const known = FAILURES.find((candidate) => candidate === failure);
  return { authenticated: false, failure: known ?? 'missing_api_key' };
}
