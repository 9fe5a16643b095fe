import { randomBytes } from 'node:crypto';
import { hashSecret, newSecret, SECRET_PATTERN, secretMatches } from './secret';

/**
 * API keys. A key reads `ask_<keyId>_<secret>`: the key id is public (it names the key in
 * `keys list` and `keys revoke`), the secret is 256 random bits stored only as a hash. A
 * key belongs to one project, whose plan, pets and address it acts for.
 */

const PREFIX = 'ask_';
/** Every key id's length: a longer one is no key's, and is never looked up. */
export const KEY_ID_LENGTH = 16;
const KEY_ID_PATTERN = /^[a-z2-7]{16}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export interface ParsedApiKey {
  keyId: string;
  secret: string;
}

/** The stored form of a key: never the secret. */
export interface ApiKeyRecord {
  keyId: string;
  /** SHA-256 of the secret, hex. */
  secretHash: string;
  /** The project the key acts for (absent only on a key stored before projects, until the upgrade). */
  project: string;
  name: string;
  createdAt: string;
  revokedAt?: string;
  /** The key that replaced it, when a rotation revoked it. */
  replacedBy?: string;
}

/** What authentication needs of key storage (the store implements it; tools use more of it). */
export interface ApiKeyStore {
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
}

/** Where a key's randomness comes from (tests pass their own to reach every secret shape). */
export interface KeyRandomness {
  keyId(length: number): string;
  secret(): string;
}

const RANDOM: KeyRandomness = {
  keyId: (length) => {
    let text = '';
    for (const byte of randomBytes(length)) text += BASE32[byte & 31];
    return text;
  },
  secret: newSecret,
};

/** Makes a new key of a project: the string shown once to its owner, and the record to store. */
export function issueApiKey(
  project: string,
  name: string,
  createdAt: Date,
  random: KeyRandomness = RANDOM,
): { apiKey: string; record: ApiKeyRecord } {
  const keyId = random.keyId(KEY_ID_LENGTH);
  const secret = random.secret();
  return {
    apiKey: `${PREFIX}${keyId}_${secret}`,
    record: { keyId, secretHash: hashSecret(secret), project, name, createdAt: createdAt.toISOString() },
  };
}

/** Splits a presented key into its id and secret; undefined when it cannot be one of ours. */
export function parseApiKey(apiKey: string): ParsedApiKey | undefined {
  if (!apiKey.startsWith(PREFIX)) return undefined;
  const keyId = apiKey.slice(PREFIX.length, PREFIX.length + KEY_ID_LENGTH);
  const secret = apiKey.slice(PREFIX.length + KEY_ID_LENGTH + 1);
  if (
    apiKey[PREFIX.length + KEY_ID_LENGTH] !== '_' ||
    !KEY_ID_PATTERN.test(keyId) ||
    !SECRET_PATTERN.test(secret)
  ) {
    return undefined;
  }
  return { keyId, secret };
}

/** True when the presented secret matches the stored hash and the key is not revoked. */
export function keyMatches(record: ApiKeyRecord, secret: string): boolean {
  return secretMatches(record.secretHash, secret) && !record.revokedAt;
}

export { hashSecret };
