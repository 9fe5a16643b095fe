import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { PendingSignIn } from './identity';

/**
 * A sign-in in progress travels in its own cookie, sealed (AES-256-GCM: nobody can read it, and
 * any change to it fails to open): the console keeps nothing per started sign-in, so starting
 * sign-ins costs an attacker's allowance and no storage. It lasts 10 minutes, and it is used
 * once in effect: it is cleared at the callback, and the code it goes with is single-use at
 * the provider. The key is derived from secret material only the console function holds (the
 * OIDC client secret in AWS; a secret of the run in local mode).
 */

/** How long a started sign-in may take at the provider. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60_000;

/** Where a sign-in lands when it was not told where, or was told somewhere else than the console. */
export const DEFAULT_RETURN_TO = '/console/';

/** The console path to return to: a path of the console's page, never another site (`//evil`). */
export function safeReturnTo(requested: string | undefined): string {
  return requested !== undefined && /^\/console\/[\w\-/]*$/.test(requested) && !requested.includes('//')
    ? requested
    : DEFAULT_RETURN_TO;
}

/** The 32-byte sealing key, from the given secret material. */
export function pendingSignInKey(material: string | Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'animal-store-console', 'pending-sign-in-cookie', 32));
}

const AAD = Buffer.from('animal-store-pending-sign-in-v1', 'utf8');

interface Sealed {
  readonly s: string;
  readonly n: string;
  readonly v: string;
  readonly r: string;
  /** Epoch milliseconds when it stops opening. */
  readonly e: number;
}

export function sealPendingSignIn(pending: PendingSignIn, key: Buffer, nowMs: number): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const plain: Sealed = {
    s: pending.state,
    n: pending.nonce,
    v: pending.codeVerifier,
    r: pending.returnTo,
    e: nowMs + PENDING_SIGN_IN_TTL_MS,
  };
  const body = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The sign-in a cookie holds, or undefined when it is unreadable, altered or expired. */
export function openPendingSignIn(sealed: string, key: Buffer, nowMs: number): PendingSignIn | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 12 + 16 + 2 || bytes.length > 2048) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAAD(AAD);
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    const plain = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
    const opened = JSON.parse(plain.toString('utf8')) as Sealed;
    if (typeof opened.e !== 'number' || nowMs >= opened.e) return undefined;
    return { state: opened.s, nonce: opened.n, codeVerifier: opened.v, returnTo: safeReturnTo(opened.r) };
  } catch {
    return undefined;
  }
}
