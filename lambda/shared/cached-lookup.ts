/** Entries kept at most; the oldest goes first (bounds memory under key-guessing floods). */
const MAX_ENTRIES = 10_000;

/**
 * Caches lookups by id, hits and misses alike, for `ttlSeconds`: a warm authorizer then
 * answers without a DynamoDB read, and a revoked key or a changed plan takes effect
 * within the TTL. A failed lookup is not cached.
 */
export function cachedLookup<T>(
  lookup: (id: string) => Promise<T | undefined>,
  ttlSeconds: number,
  now: () => number,
): (id: string) => Promise<T | undefined> {
  const entries = new Map<string, { record: T | undefined; expiresAt: number }>();
  return async (id) => {
    const cached = entries.get(id);
    if (cached && cached.expiresAt > now()) return cached.record;
    const record = await lookup(id);
    entries.delete(id);
    if (entries.size >= MAX_ENTRIES) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    entries.set(id, { record, expiresAt: now() + ttlSeconds * 1000 });
    return record;
  };
}
