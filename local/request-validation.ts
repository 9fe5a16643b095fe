import Ajv from 'ajv-draft-04';
import type { ValidateFunction } from 'ajv';
import { gatewayModel, MODEL_CONTENT_TYPE } from '../lambda/api/gateway-models';
import type { RequestBody } from '../lambda/api/routes';

/**
 * API Gateway's request body validation, for the local server: the same draft-4
 * model the stack deploys, checked by a draft-4 validator, with API Gateway's rules
 * for when it applies. A body is validated only when the request's media type has a
 * model (no Content-Type counts as JSON; other types pass through to the handler);
 * an empty body is validated as `{}`, and a body that is not JSON fails.
 */
const ajv = new Ajv({ allErrors: false, strict: true });
const validators = new Map<string, ValidateFunction>();

function validatorFor(body: RequestBody): ValidateFunction {
  let validator = validators.get(body.name);
  if (!validator) {
    validator = ajv.compile(gatewayModel(body));
    validators.set(body.name, validator);
  }
  return validator;
}

/** Whether API Gateway would let this body through to the integration. */
export function gatewayAcceptsBody(
  body: RequestBody,
  contentType: string | undefined,
  bytes: Buffer,
): boolean {
  const mediaType = (contentType ?? MODEL_CONTENT_TYPE).split(';')[0]?.trim().toLowerCase();
  if (mediaType !== MODEL_CONTENT_TYPE) return true;
  let parsed: unknown;
  try {
    parsed = bytes.length === 0 ? {} : JSON.parse(new TextDecoder('utf-8').decode(bytes));
  } catch {
    return false;
  }
  return validatorFor(body)(parsed) === true;
}
