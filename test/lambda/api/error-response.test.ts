import { toErrorResponse } from '../../../lambda/api/error-response';
import { ApiError, toApiError } from '../../../lambda/api/errors';
import { DomainError, StoreUnavailableError } from '../../../lambda/core/errors';

/** The one mapping from anything thrown to the Error body (middleware, local server, gateway refusals). */

const body = (error: unknown) => JSON.parse(toErrorResponse(error).body) as unknown;

describe('toApiError', () => {
  it('keeps an ApiError as it is', () => {
    const error = new ApiError('pet_not_found', 'No pet has id 7.');
    expect(toApiError(error)).toBe(error);
  });

  it("maps a domain refusal by its kind, keeping the domain's words", () => {
    expect(toApiError(new DomainError('invalid_parameter', 'limit must be …')).toBody()).toEqual({
      code: 'invalid_parameter',
      message: 'limit must be …',
      status: 400,
    });
    expect(toApiError(new DomainError('invalid_cursor', 'The cursor is not valid.')).status).toBe(400);
  });
});

describe("the function's own deadline", () => {
  it("answers as API Gateway does an integration's timeout: 504 gateway_timeout, naming no exception", () => {
    // What middy's early timeout throws when the function runs out of time.
    const timeout = Object.assign(new Error('[AbortError]: The operation was aborted.'), {
      name: 'TimeoutError',
    });
    expect(toApiError(timeout).toBody()).toEqual({
      code: 'gateway_timeout',
      message: 'The service did not answer in time.',
      status: 504,
    });
  });
});

describe('toErrorResponse', () => {
  let errors: jest.SpyInstance;
  beforeEach(() => {
    errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => errors.mockRestore());

  it("answers 503 with Retry-After when the store fails, and none of the store's words", () => {
    const response = toErrorResponse(new StoreUnavailableError(new Error('ECONNREFUSED 127.0.0.1:9')));
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['Retry-After']).toBe('1');
    expect(body(new StoreUnavailableError(new Error('x')))).toMatchObject({ code: 'service_unavailable' });
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|StoreUnavailableError/);
  });

  it('answers anything else with a 500 that reveals nothing', () => {
    const response = toErrorResponse(new TypeError('secret internals at handler.ts:12'));
    expect(response.statusCode).toBe(500);
    expect(body(new TypeError('secret'))).toEqual({
      code: 'internal_error',
      message: 'An unexpected error occurred.',
      status: 500,
    });
    expect(response.body).not.toMatch(/secret|TypeError|\.ts/);
  });

  it("sends an ApiError's status, body and headers", () => {
    const response = toErrorResponse(new ApiError('method_not_allowed', 'Use GET.', { Allow: 'GET' }));
    expect(response).toMatchObject({ statusCode: 405, headers: { Allow: 'GET' } });
    expect(JSON.parse(response.body)).toEqual({
      code: 'method_not_allowed',
      message: 'Use GET.',
      status: 405,
    });
  });
});
