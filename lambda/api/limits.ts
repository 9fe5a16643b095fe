/** Request limits of the HTTP contract: the handlers, the local gateway and the edge firewall all read these. */

// The domain's bounds are part of the contract too; they are stated in the core and published from here.
export { MAX_SAFE_ID, NAME_MAX_LENGTH, PAGE_LIMIT } from '../core/limits';

/** Largest request body accepted, in bytes. A NewPet is a few hundred bytes at most. */
export const MAX_BODY_BYTES = 8 * 1024;

/** Longest time the authorizer may cache a key lookup, i.e. keep honouring a revoked key, in seconds. */
export const MAX_API_KEY_CACHE_SECONDS = 60;
