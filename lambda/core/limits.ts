/**
 * Bounds of the domain: the API's schemas, the published document, the error catalogue and the
 * tools read them here. Plain values, no Node: the console page type-checks against this too.
 */

/** Longest accepted pet name, in Unicode code points. */
export const NAME_MAX_LENGTH = 100;

/** Largest integer a JSON number carries exactly for JavaScript clients (2^53 − 1): the largest pet id. */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** Page size bounds and default of `GET /pets` (from the spec). */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** Most active keys a project may have; revoked keys do not count. */
export const MAX_ACTIVE_KEYS_PER_PROJECT = 100;

/** A console session unused this long ends. */
export const SESSION_IDLE_TIMEOUT_MS = 30 * 60_000;
/** No console session outlives this, however busy. */
export const SESSION_MAX_LIFETIME_MS = 12 * 60 * 60_000;
/**
 * Most live console sessions a project may have. A sign-in stores its session, then counts the
 * project's live ones and withdraws its own past the cap: each sign-in's count includes every
 * session stored before it, so sign-ins at the same time can refuse each other (the page says
 * to try again) but never end up above the cap, as long as the count reads every earlier write
 * (always in local mode; in AWS the index is eventually consistent, so two sign-ins within its
 * lag, typically under a second, may both stay). Only the console token's holders can sign in,
 * and sign-ins are rate limited per client, so that margin is not an attacker's to widen.
 */
export const MAX_LIVE_SESSIONS_PER_PROJECT = 50;
