import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { MAX_API_KEY_CACHE_SECONDS } from '../api/limits';
import { toAuthorizerContext } from '../api/principal';
import { authenticate } from '../domain/authentication';
import { projectOfHost } from '../domain/project';
import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiKeyRepository } from '../store/api-key-repository';
import { cachedLookup } from '../store/cached-lookup';
import { documentClient } from '../store/dynamodb-client';
import { ProjectRepository } from '../store/project-repository';

const keys = new ApiKeyRepository(documentClient(), requireEnv(RUNTIME_ENV.apiKeysTable));
const projects = new ProjectRepository(documentClient(), requireEnv(RUNTIME_ENV.projectsTable));
const cacheSeconds = Math.min(
  Number(optionalEnv(RUNTIME_ENV.apiKeyCacheSeconds) ?? 30),
  MAX_API_KEY_CACHE_SECONDS,
);
const lookupKey = cachedLookup((keyId: string) => keys.get(keyId), cacheSeconds);
const lookupProject = cachedLookup((name: string) => projects.get(name), cacheSeconds);
const anonymousUsageId = optionalEnv(RUNTIME_ENV.anonymousUsageId);
const platformDomain = optionalEnv(RUNTIME_ENV.platformDomain);

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
export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const addressProject = projectOfHost(event.requestContext?.domainName, platformDomain);
  const { principal, usageId } = await authenticate(
    { authorization: authorizationHeaders(event), ...(addressProject ? { addressProject } : {}) },
    lookupKey,
    lookupProject,
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
}
