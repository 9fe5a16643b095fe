import { randomInt } from 'node:crypto';
import { MAX_SAFE_ID } from './limits';

/**
 * Pet ids are time-ordered 53-bit integers: milliseconds since {@link ID_EPOCH_MS}
 * in the high 41 bits and 12 random bits below. Ascending id is creation order
 * (to the millisecond), every id is a safe JSON integer, and ids are made without
 * a shared counter: uniqueness is enforced by a conditional write, retried on the
 * rare collision. 41 bits of milliseconds last until the year 2094.
 */
export const ID_EPOCH_MS = Date.UTC(2025, 0, 1);

const RANDOM_BITS = 12;
const RANDOM_RANGE = 2 ** RANDOM_BITS;

export function newPetId(nowMs: number): number {
  const elapsed = Math.max(0, Math.floor(nowMs - ID_EPOCH_MS));
  const id = elapsed * RANDOM_RANGE + randomInt(RANDOM_RANGE);
  if (id < 1 || id > MAX_SAFE_ID) throw new Error(`Pet id ${id} is out of range: the id clock has run out`);
  return id;
}

/** Parses a decimal pet id as it appears in a path; undefined unless it is an integer from 1 to 2^53 − 1. */
export function parsePetId(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return undefined;
  const id = Number(text);
  return id <= MAX_SAFE_ID ? id : undefined;
}
