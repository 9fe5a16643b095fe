import { createHash, randomUUID } from 'node:crypto';
import { DomainError, type DomainErrorKind } from './errors';
import { type NewPet, type Pet, petFrom } from './pet';
import { newPetId } from './pet-id';

/**
 * Idempotent creates (`Idempotency-Key`, IETF draft-ietf-httpapi-idempotency-key-header):
 * the key's rules, its record's life, and the one create that a key can ever make.
 *
 * A create runs in three steps, each a conditional write, so a failure between any two leaves
 * a state the next attempt resumes: (1) reserve the key's record, holding the pet's id and
 * create token, before anything is written; (2) write the pet with that id and token (the
 * pets' conditional put lets the same token write the same pet again, never a second pet);
 * (3) complete the record with the pet, which later attempts replay. An in-flight record is
 * leased to one attempt at a time; an attempt that died leaves a lease that passes, and the
 * next attempt takes it over and redoes steps 2 and 3 with the same id and token.
 */

/** Longest key, in characters (after unescaping a quoted string). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a completed create is remembered (replayed) after it completed. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long an unfinished create stays resumable. Far beyond the 24 hours a client may
 * retry within, so an attempt that died mid-way is resumed, never replaced by a second
 * pet; finite, so an abandoned record does not stay (and block its key) for ever.
 */
export const IN_FLIGHT_TTL_SECONDS = 7 * 24 * 60 * 60;
/**
 * How long an attempt holds an in-flight record: the function's timeout (10 s), so in
 * Lambda a lease passes only once its holder is certainly gone. A takeover while the
 * holder still runs would be harmless anyway: both write the same pet.
 */
export const IDEMPOTENCY_LEASE_MS = 10_000;
/** Steps after which an attempt that keeps losing races gives up with "in use". */
const MAX_STEPS = 10;

export type IdempotencyErrorKind = Extract<
  DomainErrorKind,
  'invalid_idempotency_key' | 'idempotency_key_in_use' | 'idempotency_key_reused'
>;

/** What this module refuses. */
export abstract class IdempotencyError extends DomainError {
  declare readonly kind: IdempotencyErrorKind;

  protected constructor(kind: IdempotencyErrorKind, message: string) {
    super(kind, message);
  }
}

export class InvalidIdempotencyKeyError extends IdempotencyError {
  constructor(problem: string) {
    super(
      'invalid_idempotency_key',
      `The Idempotency-Key ${problem}. Send a quoted string of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324".`,
    );
    this.name = 'InvalidIdempotencyKeyError';
  }
}

export class IdempotencyKeyInUseError extends IdempotencyError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still in progress; retry after the Retry-After delay.',
    );
    this.name = 'IdempotencyKeyInUseError';
  }
}

export class IdempotencyKeyReusedError extends IdempotencyError {
  constructor() {
    super(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body; use a new key for a different request.',
    );
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** The characters of a bare (unquoted) key: RFC 9110's token characters, and `:` and `/` as in an sf-token. */
const BARE_KEY = /^[A-Za-z0-9!#$%&'*+\-.^_`|~:/]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The key an `Idempotency-Key` field value carries. The draft's form is a Structured Field
 * String (`"…"`, where `\"` and `\\` stand for `"` and `\`); a bare token is also accepted
 * (letters, digits and `!#$%&'*+-.^_`|~:/`, so a UUID need not be quoted). Leading and
 * trailing spaces and tabs are ignored. Parameters after the string are refused, not ignored:
 * the draft defines none, and a key sent with one is more likely a client's mistake.
 * @throws InvalidIdempotencyKeyError naming the problem
 */
export function parseIdempotencyKey(fieldValue: string): string {
  const value = fieldValue.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!PRINTABLE_ASCII.test(value)) {
    throw new InvalidIdempotencyKeyError('contains a character that is not printable ASCII');
  }
  if (value !== '' && !value.startsWith('"') && !BARE_KEY.test(value)) {
    throw new InvalidIdempotencyKeyError(
      "is not quoted and contains a character other than letters, digits and !#$%&'*+-.^_`|~:/",
    );
  }
  const key = value.startsWith('"') ? unquote(value) : value;
  if (key === '') throw new InvalidIdempotencyKeyError('is empty');
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new InvalidIdempotencyKeyError(`is longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  }
  return key;
}

/** The content of a Structured Field String (RFC 8941 §4.2.5), which must be all of `value`. */
function unquote(value: string): string {
  let key = '';
  for (let index = 1; index < value.length; index += 1) {
    const char = value[index];
    if (char === '"') {
      if (index !== value.length - 1) {
        throw new InvalidIdempotencyKeyError(
          'has something after its closing quote (parameters and lists are not accepted)',
        );
      }
      return key;
    }
    if (char === '\\') {
      index += 1;
      const escaped = value[index];
      if (escaped !== '"' && escaped !== '\\') {
        throw new InvalidIdempotencyKeyError('has a backslash that escapes neither " nor \\');
      }
      key += escaped;
    } else {
      key += char;
    }
  }
  throw new InvalidIdempotencyKeyError('has an opening quote but no closing quote');
}

/**
 * JSON with object keys in code-unit order at every level (RFC 8785 for the values a
 * request body holds): two bodies that differ only in key order or spacing read the same.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 (hex) of the validated body's canonical JSON: what tells a retry from a reuse of the key. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** Seconds since the epoch, as DynamoDB TTL counts them; expiry is compared in these units everywhere. */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** What a create reserves before it writes anything. */
export interface PetReservation {
  readonly petId: number;
  readonly createToken: string;
  /** The pet's creation time: every write of the reserved pet stores it, so repeated writes are identical. */
  readonly reservedAtMs: number;
}

/** Which attempt may work on an in-flight record, and until when. */
export interface Lease {
  /** A random id of the attempt; on a completed record, the attempt that completed it. */
  readonly leaseOwner: string;
  readonly leaseUntilMs: number;
}

interface RecordCommon extends PetReservation, Lease {
  /** {@link requestFingerprint} of the body the key was first used with. */
  readonly fingerprint: string;
  /** When the record is forgotten (TTL, epoch seconds); a record past it counts as absent even before DynamoDB deletes it. */
  readonly expiresAtSeconds: number;
}

export interface InFlightRecord extends RecordCommon {
  readonly state: 'in_flight';
}

export interface CompletedRecord extends RecordCommon {
  readonly state: 'completed';
  /** The pet the create answered with, replayed as it was. */
  readonly pet: Pet;
  readonly completedAtMs: number;
}

/** The record of one key of one project. */
export type IdempotencyRecord = InFlightRecord | CompletedRecord;

export type ReserveOutcome =
  | { readonly reserved: true }
  /** `current`: the live record the condition found, when the store returns it (else the caller reads). */
  | { readonly reserved: false; readonly current?: IdempotencyRecord };

/** What idempotent creates need from storage; every write is one conditional write of one record. */
export interface IdempotencyStore {
  /** The key's record (strongly consistent); undefined when there is none. */
  read(project: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Writes `record` if the key has no record, or one that expired by `nowMs`. */
  reserve(project: string, key: string, record: InFlightRecord, nowMs: number): Promise<ReserveOutcome>;
  /**
   * Gives an in-flight record's lease, still `from` as read, to `to`, and its expiry to
   * `expiresAtSeconds`; false when the record changed since it was read.
   */
  takeOver(project: string, key: string, from: Lease, to: Lease, expiresAtSeconds: number): Promise<boolean>;
  /**
   * Replaces the reservation `from` of an in-flight record leased to `owner` by `to` (its id
   * turned out to be another pet's); false when the record is no longer in that state.
   */
  reassign(
    project: string,
    key: string,
    owner: string,
    from: PetReservation,
    to: PetReservation,
  ): Promise<boolean>;
  /**
   * Replaces the in-flight record of `record`'s reservation by `record`; also true when
   * `record.leaseOwner` completed it already (a retried call); false otherwise.
   */
  complete(project: string, key: string, record: CompletedRecord): Promise<boolean>;
}

/** What idempotent creates need from pet storage. */
export interface ReservedPetWriter {
  /**
   * Writes `pet` under its (reserved) id with `createToken` and `createdAtMs`: true when the pet
   * is stored, by this call or an earlier one with the same token; false when the id is another pet's.
   */
  writeReserved(project: string, pet: Pet, createToken: string, createdAtMs: number): Promise<boolean>;
}

export interface IdempotentCreateDeps {
  readonly store: IdempotencyStore;
  readonly pets: ReservedPetWriter;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /** @default a random time-ordered id ({@link newPetId}) */
  readonly newPetId?: (nowMs: number) => number;
  /** Create tokens and attempt ids. @default a random UUID */
  readonly newToken?: () => string;
}

export interface IdempotentCreate {
  /** `created`: this request completed the create; `replayed`: an earlier one did, and its pet is answered again. */
  readonly outcome: 'created' | 'replayed';
  readonly pet: Pet;
}

/** Whole seconds until a lease passes, at least 1 (a `Retry-After` of 0 invites a busy loop). */
function retryAfterSeconds(leaseUntilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((leaseUntilMs - nowMs) / 1000));
}

function isExpired(record: IdempotencyRecord, nowMs: number): boolean {
  return record.expiresAtSeconds <= epochSeconds(nowMs);
}

/**
 * Creates `newPet` in `project` once per `key`, whatever fails when: an attempt either
 * replays the key's pet or creates it, and never a second one while the key is remembered.
 * @throws IdempotencyKeyReusedError when the key was used with another body
 * @throws IdempotencyKeyInUseError while another attempt holds the key's lease
 * @throws StoreUnavailableError (from the stores) when a step fails; a retry resumes
 */
export async function createPetIdempotently(
  project: string,
  key: string,
  newPet: NewPet,
  deps: IdempotentCreateDeps,
): Promise<IdempotentCreate> {
  const { store, pets, clock } = deps;
  const nextPetId = deps.newPetId ?? newPetId;
  const nextToken = deps.newToken ?? randomUUID;
  const fingerprint = requestFingerprint(newPet);
  const me = nextToken();
  const reservation = (nowMs: number): PetReservation => ({
    petId: nextPetId(nowMs),
    createToken: nextToken(),
    reservedAtMs: nowMs,
  });
  const lease = (nowMs: number): Lease => ({ leaseOwner: me, leaseUntilMs: nowMs + IDEMPOTENCY_LEASE_MS });

  // The record as last seen ('unknown' after a lost race). Keys are usually new: reserve first, unread.
  let seen: IdempotencyRecord | undefined | 'unknown' = undefined;
  for (let step = 0; step < MAX_STEPS; step += 1) {
    const nowMs = clock();
    if (seen === 'unknown') seen = await store.read(project, key);
    if (seen === undefined || isExpired(seen, nowMs)) {
      const record: InFlightRecord = {
        state: 'in_flight',
        fingerprint,
        ...reservation(nowMs),
        ...lease(nowMs),
        expiresAtSeconds: epochSeconds(nowMs) + IN_FLIGHT_TTL_SECONDS,
      };
      const outcome = await store.reserve(project, key, record, nowMs);
      seen = outcome.reserved ? record : (outcome.current ?? 'unknown');
      continue;
    }
    if (seen.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
    if (seen.state === 'completed') return { outcome: 'replayed', pet: seen.pet };
    if (seen.leaseOwner !== me) {
      if (seen.leaseUntilMs > nowMs) {
        throw new IdempotencyKeyInUseError(retryAfterSeconds(seen.leaseUntilMs, nowMs));
      }
      // Its attempt died (or stalls): resume with the same reservation, so the same pet.
      const taken = lease(nowMs);
      const expiresAtSeconds = epochSeconds(nowMs) + IN_FLIGHT_TTL_SECONDS;
      const took = await store.takeOver(project, key, seen, taken, expiresAtSeconds);
      seen = took ? { ...seen, ...taken, expiresAtSeconds } : 'unknown';
      continue;
    }
    const pet = petFrom(seen.petId, newPet);
    if (!(await pets.writeReserved(project, pet, seen.createToken, seen.reservedAtMs))) {
      // The id is another pet's, so this reservation can never be written: replace it.
      const moved = reservation(nowMs);
      seen = (await store.reassign(project, key, me, seen, moved)) ? { ...seen, ...moved } : 'unknown';
      continue;
    }
    const completedAtMs = clock();
    const completed: CompletedRecord = {
      ...seen,
      state: 'completed',
      pet,
      completedAtMs,
      expiresAtSeconds: epochSeconds(completedAtMs) + IDEMPOTENCY_KEY_TTL_SECONDS,
    };
    if (await store.complete(project, key, completed)) return { outcome: 'created', pet };
    // Another attempt completed it (with this same pet) or took the lease over: see which.
    seen = 'unknown';
  }
  throw new IdempotencyKeyInUseError(1);
}
