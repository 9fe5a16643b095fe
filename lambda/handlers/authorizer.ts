import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { MAX_API_KEY_CACHE_SECONDS } from '../api/limits';
import { toAuthorizerContext } from '../api/principal';
import { authenticate } from '../domain/authentication';
import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiKeyRepository } from '../store/api-key-repository';
import { cachedKeyLookup } from '../store/cached-key-lookup';
import { documentClient } from '../store/dynamodb-client';

const keys = new ApiKeyRepository(documentClient(), requireEnv(RUNTIME_ENV.apiKeysTable));
const cacheSeconds = Math.min(
  Number(optionalEnv(RUNTIME_ENV.apiKeyCacheSeconds) ?? 30),
  MAX_API_KEY_CACHE_SECONDS,
);
const lookup = cachedKeyLookup((keyId) => keys.get(keyId), cacheSeconds);
const anonymousUsageId = optionalEnv(RUNTIME_ENV.anonymousUsageId);

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
 * REQUEST authorizer. It always allows the call and tells the operation, in the
 * context, whether the key was valid: the operation then answers 401 itself,
 * with the headers a gateway response could not carry. The usage identifier is
 * the key's random usage id, never its secret.
 */
export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const { principal, usageId } = await authenticate(authorizationHeaders(event), lookup);
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
