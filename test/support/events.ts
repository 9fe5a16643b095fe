import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { type Principal, toAuthorizerContext } from '../../lambda/api/principal';
import { PLANS } from '../../lambda/core/plans';

/** The caller of a proxy event unless a test names another: a key of a Free project. */
export const TEST_PRINCIPAL: Principal = {
  authenticated: true,
  keyId: 'abcdefghijklmnop',
  project: 'acme',
  plan: 'free',
  limits: PLANS.free.limits,
};

/** A REST API proxy event as API Gateway sends it through the execute-api endpoint of the `production` stage. */
export function proxyEvent(
  overrides: Partial<APIGatewayProxyEvent> & { principal?: Principal | null } = {},
): APIGatewayProxyEvent {
  const { principal = TEST_PRINCIPAL, ...rest } = overrides;
  const path = rest.path ?? '/v1/pets';
  return {
    resource: '/v1/pets',
    path,
    httpMethod: 'GET',
    headers: { Host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    ...rest,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      httpMethod: rest.httpMethod ?? 'GET',
      path: `/production${path}`,
      protocol: 'HTTP/1.1',
      requestId: 'request-1',
      requestTimeEpoch: Date.now(),
      resourceId: 'r1',
      resourcePath: rest.resource ?? '/v1/pets',
      stage: 'production',
      identity: { sourceIp: '203.0.113.9' },
      authorizer: principal ? { ...toAuthorizerContext(principal), principalId: 'p' } : undefined,
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export function authorizerEvent(
  headers: Record<string, string>,
  domainName = 'abc123.execute-api.eu-west-1.amazonaws.com',
): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/production/GET/v1/pets',
    resource: '/v1/pets',
    path: '/v1/pets',
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: { domainName } as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

export const lambdaContext = {
  awsRequestId: 'request-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
