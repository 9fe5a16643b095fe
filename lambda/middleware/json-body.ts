import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../api/api-error';
import { headerValue } from '../api/http';
import { MAX_BODY_BYTES } from '../api/limits';
import { type Schema, validate } from '../api/validate';

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

function bodyBytes(event: APIGatewayProxyEvent): Buffer | undefined {
  if (event.body === null || event.body === undefined) return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** Parses the request body as JSON and validates it against `schema`; each failure gets its own clear 4xx. */
export function jsonBody(schema: Schema): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: async (request) => {
      const bytes = bodyBytes(request.event);
      if (!bytes || bytes.length === 0) {
        throw new ApiError('invalid_body', 'A JSON request body is required.');
      }
      if (bytes.length > MAX_BODY_BYTES) {
        throw new ApiError(
          'payload_too_large',
          `The request body is ${bytes.length} bytes; the maximum is ${MAX_BODY_BYTES} bytes.`,
        );
      }
      const contentType = headerValue(request.event.headers, 'content-type');
      if (!contentType || !JSON_MEDIA_TYPE.test(contentType.trim())) {
        throw new ApiError(
          'unsupported_media_type',
          `The request body must be sent with Content-Type: application/json${contentType ? `, not ${contentType}` : ''}.`,
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
      } catch (error) {
        const reason = error instanceof SyntaxError ? error.message : 'it is not valid UTF-8';
        throw new ApiError('malformed_json', `The request body is not valid JSON: ${reason}.`);
      }
      const problems = validate(schema, parsed, 'the request body');
      if (problems.length > 0)
        throw new ApiError('invalid_body', `Invalid request body: ${problems.join('; ')}.`);
      (request.event as APIGatewayProxyEvent & { jsonBody: unknown }).jsonBody = parsed;
    },
  };
}
