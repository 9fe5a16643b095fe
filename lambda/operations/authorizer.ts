import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { toAuthorizerContext } from '../api/principal';
import { authenticate, type KeyLookup, type ProjectLookup } from '../domain/authentication';
import { projectOfHost } from '../domain/project';

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

function authorizationHeaders(event: APIGatewayRequestAuthorizerEvent): string[] {
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (name.toLowerCase() === 'authorization') return values ?? [];
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (name.toLowerCase() === 'authorization' && value !== undefined) return [value];
  }
  return [];
}

/**
 * REQUEST authorizer. It always allows the call and tells the operation, in the context,
 * who the caller is (a key of a project, with the project's plan and limits) or why not:
 * the operation then answers 401 or 404 itself, with the headers a gateway response could
 * not carry. On a project's address only that project's keys are valid. The usage
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
    const { principal, usageId } = await authenticate(
      { authorization: authorizationHeaders(event), ...(addressProject ? { addressProject } : {}) },
      findKey,
      findProject,
    );
    const usageIdentifierKey = usageId ?? anonymousUsageId;
    return {
      principalId: principal.authenticated ? principal.keyId : 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      context: toAuthorizerContext(principal),
      ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
    };
  };
}
