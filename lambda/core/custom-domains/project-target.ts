import { createHash, randomBytes } from 'node:crypto';

/**
 * A project's own target for its custom domains: `<target id>.<shared target>`, e.g.
 * `k3v9…q.domains.animalstore.example`, under the platform's one wildcard record
 * (`*.domains.<platform domain>`, a CNAME to the connection group). The CNAME a tenant creates
 * names this target, so it says which project the domain is for: the domains service grants a
 * name only to the project whose target (or ownership token) its DNS shows.
 */

/** The label of the TXT record that proves ownership where no CNAME can (an apex, a flattened CNAME). */
export const OWNERSHIP_TXT_LABEL = '_animal-store';

/** Base32 (RFC 4648, lower case): DNS labels are case-insensitive, so no mixed-case alphabet. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** 20 characters of 5 bits: 100 random bits, so an id is never drawn twice. */
const TARGET_ID_LENGTH = 20;
const TARGET_ID = new RegExp(`^[${ALPHABET}]{${TARGET_ID_LENGTH}}$`);

/**
 * A fresh target id: random (never the project's name, never reused), so a stale CNAME left at
 * a customer's DNS can never be claimed by whoever later creates a project of the same name.
 * Starts with a letter, as a host label reads best.
 */
export function newTargetId(): string {
  const bytes = [...randomBytes(TARGET_ID_LENGTH)];
  return bytes.map((byte, i) => ALPHABET.charAt(i === 0 ? byte % 26 : byte % 32)).join('');
}

/** True for a value {@link newTargetId} can make. */
export function isTargetId(value: unknown): value is string {
  return typeof value === 'string' && TARGET_ID.test(value);
}

/** The project's target: `<target id>.<shared target>` (`<id>.domains.<platform domain>`). */
export function projectTarget(targetId: string, sharedTarget: string): string {
  return `${targetId}.${sharedTarget}`;
}

/**
 * The project's ownership token, the value of TXT `_animal-store.<domain>`: public (it is
 * derived from the target id, which every CNAME shows), one per project, and never a secret
 * of the project (its console token or keys prove nothing at a DNS provider and must never be
 * published there).
 */
export function ownershipToken(targetId: string): string {
  const digest = createHash('sha256').update(`animal-store-ownership:${targetId}`).digest('hex');
  return `animal-store-verification=${digest.slice(0, 32)}`;
}

/** The name of the ownership TXT record of a domain: `_animal-store.<domain>`. */
export function ownershipRecordName(domain: string): string {
  return `${OWNERSHIP_TXT_LABEL}.${domain}`;
}
