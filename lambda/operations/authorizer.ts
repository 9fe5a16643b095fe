import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { headerValues } from '../api/http';
import { toAuthorizerContext } from '../api/principal';
import { authenticate, type KeyLookup, type ProjectLookup } from '../domain/authentication';
import { allowedOrigin, projectOfHost } from '../domain/project';

export interface AuthorizerDependencies {
  /** Finds a key by id (the composition place caches it). */
  readonly findKey: KeyLookup;
  /** Finds a project by name (the composition place caches it). */
  readonly findProject: ProjectLookup;
  /** The domain whose subdomains are project addresses; none: no project addresses. */
  readonly platformDomain?: string;
  /** Usage identifier for requests without a valid key (the anonymous usage plan's key). */
  readonly anonymousUsageId?: string;
}

export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

/** The `Origin` header, sent once; a repeated one names no origin. */
function originOf(event: APIGatewayRequestAuthorizerEvent): string | undefined {
  const origins = headerValues(event, 'origin');
  return origins.length === 1 ? origins[0] : undefined;
}

/**
 * REQUEST authorizer. It always allows the call and tells the operation, in the context,
 * who the caller is (a key of a project, with the project's plan and limits) or why not:
 * the operation then answers 401 or 404 itself, with the headers a gateway response could
 * not carry. On a project's address only that project's keys are valid, and the request's
 * `Origin`, when that project allows it, is passed on for the CORS headers. The usage
 * identifier is the project's random usage id, never a secret.
 */
export function authorizer({
  findKey,
  findProject,
  platformDomain,
  anonymousUsageId,
}: AuthorizerDependencies): AuthorizerHandler {
  return async (event) => {
    const addressProject = projectOfHost(event.requestContext?.domainName, platformDomain);
    const { principal, usageId, allowedOrigins, address } = await authenticate(
      { authorization: headerValues(event, 'authorization'), ...(addressProject ? { addressProject } : {}) },
      findKey,
      findProject,
    );
    const corsOrigin = allowedOrigin(originOf(event), allowedOrigins);
    // A preflight from an origin the address's project allows carries no key, but is that
    // project's traffic: counted on its plan and its gateway usage plan, not on the allowance
    // every keyless caller shares.
    const preflightOf = event.httpMethod === 'OPTIONS' && corsOrigin !== undefined ? address : undefined;
    const usageIdentifierKey = usageId ?? preflightOf?.usageId ?? anonymousUsageId;
    return {
      principalId: principal.authenticated ? principal.keyId : 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      context: toAuthorizerContext(principal, corsOrigin, principal.authenticated ? undefined : preflightOf),
      ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
    };
  };
}
