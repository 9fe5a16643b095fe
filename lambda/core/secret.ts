import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets handed to people (API keys, console tokens, sessions): 256 random bits, stored
 * only as SHA-256. A fast hash is right for a high-entropy random secret (there is no
 * dictionary to slow down), and comparison is constant-time.
 */

/** base64url of 32 random bytes: 43 characters from `A–Z a–z 0–9 _ -`. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** SHA-256 of a secret, hex: the only form in which a secret is stored. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** True when the presented secret hashes to the stored hash (constant-time). */
export function secretMatches(storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

/** A random, non-secret identifier (hex), e.g. a gateway usage identifier. */
export function randomId(bytes = 20): string {
  return randomBytes(bytes).toString('hex');
}
