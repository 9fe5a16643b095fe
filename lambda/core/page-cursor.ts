import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_SAFE_ID } from './limits';
import { PET_STATUSES, type PetStatus } from './pet';

/**
 * Pagination cursors. A cursor names the last pet id of a page and the status
 * filter it was made for, packed into 10 bytes and authenticated with a truncated
 * HMAC-SHA256, then base64url-encoded. It never carries a DynamoDB key: the
 * repository turns the id into a key condition (`id > after`) itself.
 */

const VERSION = 1;
const BODY_BYTES = 10;
const MAC_BYTES = 12;
const NO_STATUS = 0;

export interface PageCursor {
  /** Id of the last pet of the previous page; the next page starts after it. */
  afterId: number;
  /** The filter the cursor belongs to (undefined: all pets). */
  status?: PetStatus;
}

export type CursorProblem = 'corrupt' | 'filter-mismatch';

function mac(key: string, body: Buffer): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES);
}

export function encodeCursor(cursor: PageCursor, key: string): string {
  const body = Buffer.alloc(BODY_BYTES);
  body.writeUInt8(VERSION, 0);
  body.writeUInt8(cursor.status ? PET_STATUSES.indexOf(cursor.status) + 1 : NO_STATUS, 1);
  body.writeBigUInt64BE(BigInt(cursor.afterId), 2);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

/** Decodes a cursor for a request with the given status filter; a problem when it was tampered with or belongs elsewhere. */
export function decodeCursor(
  text: string,
  status: PetStatus | undefined,
  key: string,
): { cursor: PageCursor } | { problem: CursorProblem } {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return { problem: 'corrupt' };
  const raw = Buffer.from(text, 'base64url');
  // Base64 has spare bits in its last character: only the canonical spelling is accepted.
  if (raw.length !== BODY_BYTES + MAC_BYTES || raw.toString('base64url') !== text)
    return { problem: 'corrupt' };
  const body = raw.subarray(0, BODY_BYTES);
  if (!timingSafeEqual(raw.subarray(BODY_BYTES), mac(key, body)) || body.readUInt8(0) !== VERSION) {
    return { problem: 'corrupt' };
  }
  const statusIndex = body.readUInt8(1);
  const afterId = body.readBigUInt64BE(2);
  const cursorStatus = statusIndex === NO_STATUS ? undefined : PET_STATUSES[statusIndex - 1];
  if (afterId < 1n || afterId > BigInt(MAX_SAFE_ID) || (statusIndex !== NO_STATUS && !cursorStatus)) {
    return { problem: 'corrupt' };
  }
  if (cursorStatus !== status) return { problem: 'filter-mismatch' };
  return { cursor: { afterId: Number(afterId), ...(cursorStatus ? { status: cursorStatus } : {}) } };
}
