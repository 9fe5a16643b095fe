/** Request size and field limits: the handlers, the local gateway and the edge firewall all read these. */

/** Largest request body accepted, in bytes. A NewPet is a few hundred bytes at most. */
export const MAX_BODY_BYTES = 8 * 1024;

/** Longest accepted pet name, in Unicode code points. */
export const NAME_MAX_LENGTH = 100;

/** Largest integer a JSON number carries exactly for JavaScript clients (2^53 − 1). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** Page size bounds and default of `GET /pets` (from the spec). */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** Longest time the authorizer may cache a key lookup, i.e. keep honouring a revoked key, in seconds. */
export const MAX_API_KEY_CACHE_SECONDS = 60;
