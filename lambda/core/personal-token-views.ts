import { ROLES, type Role } from './permissions';

/**
 * What the console shows of personal access tokens (issue 28), and their bounds: plain data with
 * no Node, so the page type-checks against it and offers only what the service accepts.
 */

/** Every personal access token's text starts so (console tokens start `pct_`, API keys `ask_`). */
export const PERSONAL_TOKEN_PREFIX = 'pat_';

/** Longest life a token may be given, in days (a year). */
export const MAX_TOKEN_DAYS = 365;

/** Most tokens a member may hold in a project that are neither revoked nor expired. */
export const MAX_LIVE_TOKENS_PER_MEMBER = 20;

/** Longest token name. */
export const MAX_TOKEN_NAME = 100;

/** A personal access token as the console shows it: never its secret or its hash. */
export interface PersonalTokenView {
  readonly tokenId: string;
  readonly name: string;
  /** The role chosen at creation: the token acts with it or its member's current role, whichever is lower. */
  readonly role: Role;
  /** The member it belongs to (their email, as their provider gave it). */
  readonly member: { readonly email: string };
  /** ISO 8601. */
  readonly createdAt: string;
  readonly expiresAt: string;
  /** When it was last used (recorded at most once a minute); absent if never. */
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
}

/** A token just created: its text, shown this once, and its view. */
export interface IssuedPersonalToken {
  readonly token: string;
  readonly personalToken: PersonalTokenView;
}

/** The lower (less trusted) of two roles. */
export function lowerRole(a: Role, b: Role): Role {
  return ROLES.indexOf(a) >= ROLES.indexOf(b) ? a : b;
}

/** The roles a member of `role` may give a token: their own and every lower one. */
export function rolesUpTo(role: Role): Role[] {
  return ROLES.slice(ROLES.indexOf(role));
}
