import type { ApiKeyRecord } from '../domain/api-key';
import type { KeyLookup } from '../domain/authentication';
import { now } from '../shared/clock';

/** Entries kept at most; the oldest goes first (bounds memory under key-guessing floods). */
const MAX_ENTRIES = 10_000;

/**
 * Caches key lookups, hits and misses alike, for `ttlSeconds`: a warm authorizer
 * then answers without a DynamoDB read, and a revoked key stops working within
 * the TTL.
 */
export function cachedKeyLookup(lookup: KeyLookup, ttlSeconds: number): KeyLookup {
  const entries = new Map<string, { record: ApiKeyRecord | undefined; expiresAt: number }>();
  return async (keyId) => {
    const cached = entries.get(keyId);
    if (cached && cached.expiresAt > now()) return cached.record;
    const record = await lookup(keyId);
    entries.delete(keyId);
    if (entries.size >= MAX_ENTRIES) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    entries.set(keyId, { record, expiresAt: now() + ttlSeconds * 1000 });
    return record;
  };
}
