import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PlanName } from '../api/plans';

/**
 * API keys. A key reads `ask_<keyId>_<secret>`: the key id is public (it names
 * the key in `keys list` and `keys revoke`), the secret is 256 random bits. Only
 * SHA-256 of the secret is stored: a fast hash is right for a high-entropy random
 * secret (no dictionary to slow down), and comparison is constant-time.
 */

const PREFIX = 'ask_';
const KEY_ID_PATTERN = /^[a-z2-7]{16}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The form of a plan name on a stored key (the plan itself may have ended since). */
const PLAN_NAME_FORM = /^(free|pro|business|enterprise:[a-z0-9][a-z0-9-]{0,62})$/;

export function isPlanNameForm(value: string): value is PlanName {
  return PLAN_NAME_FORM.test(value);
}

export interface ParsedApiKey {
  keyId: string;
  secret: string;
}

/** The stored form of a key: never the secret. */
export interface ApiKeyRecord {
  keyId: string;
  /** SHA-256 of the secret, hex. */
  secretHash: string;
  /** Random value sent to API Gateway as the usage identifier (never the secret). */
  usageId: string;
  plan: PlanName;
  name: string;
  createdAt: string;
  revokedAt?: string;
}

function randomBase32(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (const byte of bytes) text += BASE32[byte & 31];
  return text;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Makes a new key: the string shown once to its owner, and the record to store. */
export function issueApiKey(
  plan: PlanName,
  name: string,
  createdAt: Date,
): { apiKey: string; record: ApiKeyRecord } {
  const keyId = randomBase32(16);
  const secret = randomBytes(32).toString('base64url');
  return {
    apiKey: `${PREFIX}${keyId}_${secret}`,
    record: {
      keyId,
      secretHash: hashSecret(secret),
      usageId: randomBytes(20).toString('hex'),
      plan,
      name,
      createdAt: createdAt.toISOString(),
    },
  };
}

/** Splits a presented key into its id and secret; undefined when it cannot be one of ours. */
export function parseApiKey(apiKey: string): ParsedApiKey | undefined {
  if (!apiKey.startsWith(PREFIX)) return undefined;
  const keyId = apiKey.slice(PREFIX.length, PREFIX.length + 16);
  const secret = apiKey.slice(PREFIX.length + 17);
  if (apiKey[PREFIX.length + 16] !== '_' || !KEY_ID_PATTERN.test(keyId) || !SECRET_PATTERN.test(secret)) {
    return undefined;
  }
  return { keyId, secret };
}

/** True when the presented secret matches the stored hash and the key is not revoked. */
export function keyMatches(record: ApiKeyRecord, secret: string): boolean {
  const expected = Buffer.from(record.secretHash, 'hex');
  const presented = createHash('sha256').update(secret, 'utf8').digest();
  return expected.length === presented.length && timingSafeEqual(expected, presented) && !record.revokedAt;
}
