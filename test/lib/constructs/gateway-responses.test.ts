import { ERROR_CATALOGUE } from '../../../lambda/api/errors';
import { NO_SUCH_PATH, RETRY_AFTER_SECONDS } from '../../../lambda/api/gateway-errors';
import { synthEnvironment } from '../../support/synth';
import { resourcesOfType } from '../template-queries';

/** Every response type API Gateway REST APIs know, listed here independently of lib/. */
const ALL_RESPONSE_TYPES = [
  'ACCESS_DENIED',
  'API_CONFIGURATION_ERROR',
  'AUTHORIZER_CONFIGURATION_ERROR',
  'AUTHORIZER_FAILURE',
  'BAD_REQUEST_PARAMETERS',
  'BAD_REQUEST_BODY',
  'DEFAULT_4XX',
  'DEFAULT_5XX',
  'EXPIRED_TOKEN',
  'INTEGRATION_FAILURE',
  'INTEGRATION_TIMEOUT',
  'INVALID_API_KEY',
  'INVALID_SIGNATURE',
  'MISSING_AUTHENTICATION_TOKEN',
  'QUOTA_EXCEEDED',
  'REQUEST_TOO_LARGE',
  'RESOURCE_NOT_FOUND',
  'THROTTLED',
  'UNAUTHORIZED',
  'UNSUPPORTED_MEDIA_TYPE',
  'WAF_FILTERED',
];

interface GatewayResponseProps {
  ResponseType: string;
  StatusCode: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

const template = synthEnvironment('staging');
const responses = new Map(
  Object.values(resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')).map((r) => {
    const props = r.Properties as unknown as GatewayResponseProps;
    return [props.ResponseType, props];
  }),
);

/** What API Gateway does to the template: `messageString` is a quoted, escaped JSON string. */
function substitute(body: string): string {
  return body
    .replaceAll('$context.error.messageString', JSON.stringify('Gateway says "no" \\ here'))
    .replace(/\$context\.[A-Za-z.]+/g, 'sample');
}

function bodyOf(type: string): { code: string; message: string; status: number } {
  const body = responses.get(type)?.ResponseTemplates['application/json'];
  if (body === undefined) throw new Error(`${type} has no application/json template`);
  return JSON.parse(substitute(body));
}

describe('gateway responses', () => {
  test('every response type is set, once', () => {
    expect([...responses.keys()].sort()).toEqual([...ALL_RESPONSE_TYPES].sort());
    template.resourceCountIs('AWS::ApiGateway::GatewayResponse', ALL_RESPONSE_TYPES.length);
  });

  test.each(ALL_RESPONSE_TYPES)('%s answers an Error body whose status is the HTTP status', (type) => {
    const body = bodyOf(type);
    expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
    expect(body.status).toBe(Number(responses.get(type)?.StatusCode));
    expect(typeof body.message).toBe('string');
    expect(body.message.length).toBeGreaterThan(0);
  });

  test.each(ALL_RESPONSE_TYPES)('%s uses a catalogue code whose status matches', (type) => {
    const { code, status } = bodyOf(type);
    expect(Object.keys(ERROR_CATALOGUE)).toContain(code);
    expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status).toBe(status);
  });

  test.each(ALL_RESPONSE_TYPES)('%s is sent as UTF-8 JSON that a browser may not sniff', (type) => {
    const parameters = responses.get(type)?.ResponseParameters ?? {};
    expect(parameters['gatewayresponse.header.Content-Type']).toBe("'application/json; charset=utf-8'");
    expect(parameters['gatewayresponse.header.X-Content-Type-Options']).toBe("'nosniff'");
    expect(Object.keys(responses.get(type)?.ResponseTemplates ?? {})).toEqual(['application/json']);
  });

  test('a path outside /v1 (MISSING_AUTHENTICATION_TOKEN) is 404 not_found, never 403', () => {
    expect(responses.get('MISSING_AUTHENTICATION_TOKEN')?.StatusCode).toBe('404');
    expect(bodyOf('MISSING_AUTHENTICATION_TOKEN')).toEqual({
      code: 'not_found',
      message: NO_SUCH_PATH,
      status: 404,
    });
    expect(NO_SUCH_PATH).toContain('/v1');
  });

  test('a bearer token on a path outside /v1 (parsed as a SigV4 signature) is 404 too', () => {
    for (const type of ['INVALID_SIGNATURE', 'EXPIRED_TOKEN']) {
      expect(bodyOf(type)).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  test.each(['THROTTLED', 'QUOTA_EXCEEDED'])('%s (a usage plan refusing) answers status 429', (type) => {
    expect(responses.get(type)?.StatusCode).toBe('429');
  });

  test.each(['THROTTLED', 'QUOTA_EXCEEDED'])('%s answers the Error body rate_limited, status 429', (type) => {
    expect(bodyOf(type)).toEqual({
      code: 'rate_limited',
      message: `Too many requests: retry after ${RETRY_AFTER_SECONDS} seconds.`,
      status: 429,
    });
  });

  test.each(['THROTTLED', 'QUOTA_EXCEEDED'])(
    '%s sends Retry-After with the seconds its message names',
    (type) => {
      expect(responses.get(type)?.ResponseParameters['gatewayresponse.header.Retry-After']).toBe(
        `'${RETRY_AFTER_SECONDS}'`,
      );
    },
  );

  test('the catch-alls have a fixed status that agrees with their body', () => {
    expect([responses.get('DEFAULT_4XX')?.StatusCode, bodyOf('DEFAULT_4XX').status]).toEqual(['403', 403]);
    expect([responses.get('DEFAULT_5XX')?.StatusCode, bodyOf('DEFAULT_5XX').status]).toEqual(['500', 500]);
  });

  test("passing on API Gateway's message keeps the body valid JSON", () => {
    expect(responses.get('BAD_REQUEST_PARAMETERS')?.ResponseTemplates['application/json']).toContain(
      '"message":$context.error.messageString',
    );
    expect(bodyOf('BAD_REQUEST_PARAMETERS').message).toBe('Gateway says "no" \\ here');
  });

  test('the validation types, which no method triggers (the service validates), still answer 400 Error bodies', () => {
    expect(bodyOf('BAD_REQUEST_BODY')).toMatchObject({ code: 'invalid_body', status: 400 });
    expect(bodyOf('BAD_REQUEST_PARAMETERS')).toMatchObject({ code: 'invalid_parameter', status: 400 });
  });

  test('invalid keys are 401, oversize bodies 413, unsupported media 415', () => {
    expect(bodyOf('INVALID_API_KEY')).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect(bodyOf('UNAUTHORIZED')).toMatchObject({ status: 401 });
    expect(bodyOf('REQUEST_TOO_LARGE')).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(bodyOf('UNSUPPORTED_MEDIA_TYPE')).toMatchObject({ code: 'unsupported_media_type', status: 415 });
  });

  test('integration problems are 502 and 504', () => {
    expect(bodyOf('INTEGRATION_FAILURE')).toMatchObject({ code: 'bad_gateway', status: 502 });
    expect(bodyOf('INTEGRATION_TIMEOUT')).toMatchObject({ code: 'gateway_timeout', status: 504 });
  });
});
