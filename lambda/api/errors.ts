import { addErrorStatuses } from './api-error';
import { CONSOLE_ERROR_CATALOGUE } from './console-error-catalogue';
import { ERROR_CATALOGUE } from './error-catalogue';

/**
 * The errors of every code the service answers with, the API's and the console's: the console's
 * modules import this one, the API's import api-error.ts, so that the API's functions do not bundle
 * the console's catalogue.
 */
addErrorStatuses(CONSOLE_ERROR_CATALOGUE);

export { CONSOLE_ERROR_CATALOGUE, ERROR_CATALOGUE };
export type { AnyErrorCode, ErrorCode } from './error-catalogue';
export { ApiError, type ErrorBody, errorBody, toApiError } from './api-error';
