import type { MemberRoles, PersonRef } from './members';
import { isRole, type Role } from './permissions';
import {
  lowerRole,
  MAX_LIVE_TOKENS_PER_MEMBER,
  MAX_TOKEN_DAYS,
  PERSONAL_TOKEN_PREFIX,
  type PersonalTokenView,
  rolesUpTo,
} from './personal-token-views';
import type { ProjectRecord, ProjectStore } from './project';
import { hashSecret, newSecret, randomId, SECRET_PATTERN, secretMatches } from './secret';

/**
 * Personal access tokens (issue 28): a member's token for tools, `pat_<tokenId>_<secret>`. The
 * id is public (it names the token in the console), the secret is 256 random bits stored only as
 * its hash (secret.ts, as API keys and console tokens). A token belongs to one member of one
 * project and acts there with the role chosen at its creation or its member's current role,
 * whichever is lower (read per request, cached at most 30 s: members.ts), so a demotion lowers
 * it and a removal ends it. It is refused after its expiry (at most a year) and once revoked;
 * its member's removal through the console revokes it too.
 */

export { PERSONAL_TOKEN_PREFIX };

/** The stored form of a token: never its secret. */
export interface PersonalTokenRecord {
  /** 32 hex characters: the key. */
  readonly tokenId: string;
  /** SHA-256 of the secret, hex. */
  readonly tokenHash: string;
  readonly project: string;
  /** Its member, as their provider names them, and their email when it was made. */
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
}

/** What token storage must do. */
export interface PersonalTokenStore {
  get(tokenId: string): Promise<PersonalTokenRecord | undefined>;
  /** Stores a new token (a conditional put: an id is never reused). */
  create(record: PersonalTokenRecord): Promise<void>;
  /** Withdraws a token just made (over the cap). */
  delete(tokenId: string): Promise<void>;
  /** The project's tokens; only the person's when one is given. */
  listOf(project: string, person?: PersonRef): Promise<PersonalTokenRecord[]>;
  /** Records the revocation if the token is not revoked yet; false otherwise (the first time is kept). */
  revoke(tokenId: string, revokedAt: string): Promise<boolean>;
  /** Records a use (nothing when the token is gone). */
  touch(tokenId: string, lastUsedAt: string): Promise<void>;
}

/** A last use is written at most this often: one write a minute per busy token. */
export const TOKEN_TOUCH_INTERVAL_MS = 60_000;

const TOKEN_ID = /^[0-9a-f]{32}$/;

/** The id and secret of a token's text; undefined for anything that is not one. */
export function parsePersonalToken(text: string): { tokenId: string; secret: string } | undefined {
  if (!text.startsWith(PERSONAL_TOKEN_PREFIX)) return undefined;
  const rest = text.slice(PERSONAL_TOKEN_PREFIX.length);
  const tokenId = rest.slice(0, 32);
  const secret = rest.slice(33);
  if (!TOKEN_ID.test(tokenId) || rest[32] !== '_' || !SECRET_PATTERN.test(secret)) return undefined;
  return { tokenId, secret };
}

/** A token as the console shows it. */
export function personalTokenView(record: PersonalTokenRecord): PersonalTokenView {
  const { tokenId, name, role, email, createdAt, expiresAt, lastUsedAt, revokedAt } = record;
  return {
    tokenId,
    name,
    role,
    member: { email },
    createdAt,
    expiresAt,
    ...(lastUsedAt === undefined ? {} : { lastUsedAt }),
    ...(revokedAt === undefined ? {} : { revokedAt }),
  };
}

export type PersonalTokenFailure =
  'invalid_personal_token' | 'personal_token_expired' | 'personal_token_revoked' | 'membership_ended';

export type PersonalTokenAccess =
  | {
      readonly granted: true;
      readonly project: ProjectRecord;
      /** The lower of the token's role and its member's current one. */
      readonly role: Role;
      readonly record: PersonalTokenRecord;
    }
  | { readonly granted: false; readonly failure: PersonalTokenFailure };

export type PersonalTokenRefusalKind =
  'role_too_high' | 'too_many_tokens' | 'token_not_found' | 'invalid_token';

/** Why a token was not made or revoked, in words a member can act on. */
export class PersonalTokenRefusal extends Error {
  constructor(
    readonly kind: PersonalTokenRefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'PersonalTokenRefusal';
  }
}

export interface PersonalTokensOptions {
  readonly store: PersonalTokenStore;
  readonly projects: ProjectStore;
  /** Members' roles as each request reads them (cached at most 30 s), shared with the sessions. */
  readonly roles: MemberRoles;
  /** Epoch milliseconds (tests move it). */
  readonly clock: () => number;
}

/** Who makes or revokes a token: a signed-in person, with their current role in the project. */
export interface TokenHolder extends PersonRef {
  readonly email: string;
  readonly role: Role;
}

const DAY_MS = 24 * 60 * 60_000;

function samePerson(record: PersonRef, person: PersonRef): boolean {
  return record.issuer === person.issuer && record.subject === person.subject;
}

/** Making, listing, revoking and checking personal access tokens. */
export class PersonalTokens {
  constructor(private readonly options: PersonalTokensOptions) {}

  /**
   * The access a token's text grants. Unknown, malformed and wrong tokens fail alike; only the
   * holder of the whole secret learns that it expired, was revoked or outlived its membership.
   */
  async authenticate(text: string): Promise<PersonalTokenAccess> {
    const invalid = { granted: false, failure: 'invalid_personal_token' } as const;
    const parsed = parsePersonalToken(text);
    if (!parsed) return invalid;
    const record = await this.options.store.get(parsed.tokenId);
    if (!record || !secretMatches(record.tokenHash, parsed.secret)) return invalid;
    if (record.revokedAt !== undefined) return { granted: false, failure: 'personal_token_revoked' };
    const nowMs = this.options.clock();
    if (nowMs >= Date.parse(record.expiresAt)) return { granted: false, failure: 'personal_token_expired' };
    const project = await this.options.projects.get(record.project);
    if (!project) return invalid;
    // A member removed and added again since the token was made (by any path) holds it no more.
    const membership = await this.options.roles.membershipOf(record.project, record);
    if (!membership || Date.parse(membership.addedAt) > Date.parse(record.createdAt)) {
      return { granted: false, failure: 'membership_ended' };
    }
    if (record.lastUsedAt === undefined || nowMs - Date.parse(record.lastUsedAt) >= TOKEN_TOUCH_INTERVAL_MS) {
      await this.options.store.touch(record.tokenId, new Date(nowMs).toISOString());
    }
    return { granted: true, project, role: lowerRole(record.role, membership.role), record };
  }

  /**
   * Makes a token for `holder` in `project`: its text, shown once, and its record. Its role is
   * at most the holder's, its life 1 to {@link MAX_TOKEN_DAYS} days. It is stored, then the
   * holder's live tokens are counted and it is withdrawn past the cap, so two creations at once
   * never leave more than the cap (they may refuse each other).
   */
  async create(
    project: string,
    holder: TokenHolder,
    request: { readonly name: string; readonly role: Role; readonly expiresInDays: number },
  ): Promise<{ token: string; record: PersonalTokenRecord }> {
    const { name, role, expiresInDays } = request;
    if (!isRole(role) || !rolesUpTo(holder.role).includes(role)) {
      throw new PersonalTokenRefusal(
        'role_too_high',
        `Your role in project ${project} is ${holder.role}: a token of yours may have that role or a lower one (${rolesUpTo(holder.role).join(', ')}), not ${String(role)}.`,
      );
    }
    if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > MAX_TOKEN_DAYS) {
      throw new PersonalTokenRefusal(
        'invalid_token',
        `A token lives 1 to ${MAX_TOKEN_DAYS} days, not ${expiresInDays}.`,
      );
    }
    const nowMs = this.options.clock();
    const secret = newSecret();
    const record: PersonalTokenRecord = {
      tokenId: randomId(16),
      tokenHash: hashSecret(secret),
      project,
      issuer: holder.issuer,
      subject: holder.subject,
      email: holder.email,
      name,
      role,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: new Date(nowMs + expiresInDays * DAY_MS).toISOString(),
    };
    const { store } = this.options;
    await store.create(record);
    const live = (await this.listOf(project, holder)).filter((each) => this.isLive(each, nowMs));
    if (live.length > MAX_LIVE_TOKENS_PER_MEMBER) {
      await store.delete(record.tokenId);
      throw new PersonalTokenRefusal(
        'too_many_tokens',
        `You hold ${MAX_LIVE_TOKENS_PER_MEMBER} live tokens in project ${project}, the most a member may: revoke one first.`,
      );
    }
    return { token: `${PERSONAL_TOKEN_PREFIX}${record.tokenId}_${secret}`, record };
  }

  /** The person's tokens in the project, newest first; every member's when `person` is undefined. */
  async listOf(project: string, person?: PersonRef): Promise<PersonalTokenRecord[]> {
    const records = await this.options.store.listOf(project, person);
    return records
      .filter((record) => record.project === project && (!person || samePerson(record, person)))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.tokenId.localeCompare(b.tokenId));
  }

  /**
   * Revokes a token of the project: the caller's own, or anyone's for `mayRevokeOthers`. A token
   * of another project or member is not found, as one that does not exist. Revoking again is
   * fine: the first time is kept.
   */
  async revoke(
    project: string,
    tokenId: string,
    caller: { readonly person?: PersonRef; readonly mayRevokeOthers: boolean },
  ): Promise<PersonalTokenRecord> {
    const notFound = new PersonalTokenRefusal(
      'token_not_found',
      `You have no token ${tokenId} in project ${project}.`,
    );
    if (!TOKEN_ID.test(tokenId)) throw notFound;
    const { store } = this.options;
    const record = await store.get(tokenId);
    if (!record || record.project !== project) throw notFound;
    if (!caller.mayRevokeOthers && !(caller.person && samePerson(record, caller.person))) throw notFound;
    if (record.revokedAt !== undefined) return record;
    const revokedAt = new Date(this.options.clock()).toISOString();
    if (await store.revoke(tokenId, revokedAt)) return { ...record, revokedAt };
    // Another request revoked it first: its time is kept.
    return (await store.get(tokenId)) ?? { ...record, revokedAt };
  }

  /** Revokes every token the person holds in the project (their removal). */
  async revokeAllOf(project: string, person: PersonRef): Promise<void> {
    const revokedAt = new Date(this.options.clock()).toISOString();
    for (const record of await this.listOf(project, person)) {
      if (record.revokedAt === undefined) await this.options.store.revoke(record.tokenId, revokedAt);
    }
  }

  private isLive(record: PersonalTokenRecord, nowMs: number): boolean {
    return record.revokedAt === undefined && nowMs < Date.parse(record.expiresAt);
  }
}
