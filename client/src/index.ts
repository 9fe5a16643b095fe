/** The Animal Store Service's client: see client/README.md. */
export {
  AnimalStoreClient,
  createClient,
  type CallOptions,
  type ClientOptions,
  type CreateOptions,
  type ListPetsQuery,
  type NewPet,
  type OpenApiDocument,
  type Pet,
  type PetPage,
  type PetStatus,
} from './client.ts';
export { AnimalStoreError, ApiError, type ErrorBody, NetworkError, UNEXPECTED_RESPONSE } from './errors.ts';
export type { RateLimitState, RateLimitWindow } from './headers.ts';
export type { RetryEvent, RetryInfo, RetryOptions, StopReason, Timing } from './retry.ts';
export type { components, operations, paths } from './openapi-types.ts';
