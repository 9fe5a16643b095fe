/** Bounds of the domain: the API's schemas, the published document and the tools read them here. */

/** Longest accepted pet name, in Unicode code points. */
export const NAME_MAX_LENGTH = 100;

/** Largest integer a JSON number carries exactly for JavaScript clients (2^53 − 1): the largest pet id. */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** Page size bounds and default of `GET /pets` (from the spec). */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;
