import { ApiError, ERROR_CATALOGUE, type ErrorCode, errorBody } from './api-error';
import { MAX_BODY_BYTES } from './limits';
import { API_VERSION_PREFIX } from './routes';

/**
 * What API Gateway answers when it refuses a request itself, stated once: the CDK
 * stack turns it into gateway responses and the local server answers from it.
 *
 * Every request under the version prefix reaches the service (the operations, or the
 * catch-all for unknown paths and methods), which validates bodies and parameters itself.
 * Only what cannot reach it is answered here: paths outside the prefix, firewall blocks,
 * the usage plans' throttle and quota, and the gateway's own failures. (A stage that does
 * not exist and a request API Gateway cannot parse never get this far either: AWS answers
 * those itself, without the API's gateway responses.)
 */

/** The HTTP status of an error code, from the catalogue (so body and status cannot disagree). */
export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/**
 * The spec's Error body as JSON text, for responses the gateway or the firewall produce
 * without running any of our code.
 */
export function errorBodyJson(code: ErrorCode, message: string): string {
  return JSON.stringify(errorBody(code, message));
}

/** Every gateway response type API Gateway REST APIs know. */
export const GATEWAY_RESPONSE_TYPES = [
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
] as const;

/** Name of a gateway response type. */
export type GatewayResponseTypeName = (typeof GATEWAY_RESPONSE_TYPES)[number];

/** Use API Gateway's own message (already a quoted, escaped JSON string) instead of a fixed one. */
export const GATEWAY_MESSAGE = Symbol('gateway message');

/** Seconds a throttled client is told to wait. */
export const RETRY_AFTER_SECONDS = 60;

/** How one gateway response type answers. The HTTP status is the code's status in the catalogue. */
export interface GatewayError {
  /** Error code from the catalogue; its status becomes the HTTP status. */
  readonly code: ErrorCode;
  /** Fixed message, or {@link GATEWAY_MESSAGE} to pass on API Gateway's. */
  readonly message: string | typeof GATEWAY_MESSAGE;
  /** Extra response headers (plain values, not yet quoted). */
  readonly headers?: Readonly<Record<string, string>>;
}

const UNEXPECTED = 'An unexpected error occurred.';

/** What the gateway says for a path outside the version prefix (inside it, the catch-all answers). */
export const NO_SUCH_PATH = `No such path: every path of this API starts with ${API_VERSION_PREFIX}.`;

const RATE_LIMITED: GatewayError = {
  code: 'rate_limited',
  message: `Too many requests: retry after ${RETRY_AFTER_SECONDS} seconds.`,
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
};

/**
 * The one table of what API Gateway answers when it refuses a request itself.
 *
 * Gateway response templates only substitute variables, and no variable carries the
 * HTTP status: `$context.status` is documented as "for access logging only" (API
 * Gateway developer guide, "$context Variables for access logging only"). So the two
 * defaults get a fixed status that matches their body, like every other type here.
 * DEFAULT_4XX answers 403 `forbidden` ("refused by the gateway") because the catalogue
 * has no generic 400 code; since every type below is set explicitly, the defaults
 * only ever serve types AWS adds later.
 */
export const GATEWAY_ERRORS: Readonly<Record<GatewayResponseTypeName, GatewayError>> = {
  ACCESS_DENIED: { code: 'forbidden', message: 'The request was refused.' },
  API_CONFIGURATION_ERROR: { code: 'internal_error', message: UNEXPECTED },
  AUTHORIZER_CONFIGURATION_ERROR: { code: 'internal_error', message: UNEXPECTED },
  AUTHORIZER_FAILURE: { code: 'internal_error', message: UNEXPECTED },
  // No method has a request validator (the service validates), so these two never fire;
  // set like every type so that one added later still answers the Error body.
  BAD_REQUEST_PARAMETERS: { code: 'invalid_parameter', message: GATEWAY_MESSAGE },
  BAD_REQUEST_BODY: { code: 'invalid_body', message: GATEWAY_MESSAGE },
  DEFAULT_4XX: { code: 'forbidden', message: GATEWAY_MESSAGE },
  DEFAULT_5XX: { code: 'internal_error', message: UNEXPECTED },
  // No method uses SigV4, so signature errors only arise when a path outside the prefix
  // is called with a bearer token, which API Gateway then tries to parse as a signature.
  EXPIRED_TOKEN: { code: 'not_found', message: NO_SUCH_PATH },
  INVALID_SIGNATURE: { code: 'not_found', message: NO_SUCH_PATH },
  INTEGRATION_FAILURE: { code: 'bad_gateway', message: 'The service could not be reached.' },
  INTEGRATION_TIMEOUT: { code: 'gateway_timeout', message: 'The service did not answer in time.' },
  INVALID_API_KEY: { code: 'invalid_api_key', message: 'The API key is invalid.' },
  // What API Gateway says for a path without a resource: since the catch-all's `{proxy+}`
  // takes everything under the prefix, only paths outside it.
  MISSING_AUTHENTICATION_TOKEN: { code: 'not_found', message: NO_SUCH_PATH },
  QUOTA_EXCEEDED: RATE_LIMITED,
  REQUEST_TOO_LARGE: {
    code: 'payload_too_large',
    message: `The request body exceeds the maximum of ${MAX_BODY_BYTES} bytes.`,
  },
  RESOURCE_NOT_FOUND: { code: 'not_found', message: NO_SUCH_PATH },
  THROTTLED: RATE_LIMITED,
  UNAUTHORIZED: { code: 'invalid_api_key', message: 'The API key is missing or invalid.' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'The request body must be sent as application/json.',
  },
  WAF_FILTERED: { code: 'forbidden', message: 'The request was refused by the firewall.' },
};

/** The Error body template of a gateway response: valid JSON once API Gateway substitutes it. */
export function gatewayErrorTemplate(error: GatewayError): string {
  if (error.message !== GATEWAY_MESSAGE) return errorBodyJson(error.code, error.message);
  return `{"code":${JSON.stringify(error.code)},"message":$context.error.messageString,"status":${statusOf(error.code)}}`;
}

/**
 * The answer API Gateway gives for a response type, as an {@link ApiError} (the local
 * gateway answers with it). `gatewayMessage` stands in for API Gateway's own message
 * where the table passes that on.
 */
export function gatewayError(
  type: GatewayResponseTypeName,
  gatewayMessage = 'The request was refused.',
): ApiError {
  const { code, message, headers } = GATEWAY_ERRORS[type];
  return new ApiError(code, message === GATEWAY_MESSAGE ? gatewayMessage : message, { ...headers });
}
