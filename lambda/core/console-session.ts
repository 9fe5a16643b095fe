import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ConsoleSessionView, MembershipView } from './console-views';
import type { Person } from './identity';
import type { MemberRoles, MemberStore } from './members';
import { permissionsOf, type Role } from './permissions';
import { MAX_LIVE_SESSIONS_PER_PROJECT, SESSION_IDLE_TIMEOUT_MS, SESSION_MAX_LIFETIME_MS } from './limits';
import {
  consoleTokenMatches,
  hasOwners,
  parseConsoleToken,
  type ProjectRecord,
  type ProjectStore,
} from './project';
import { hashSecret, newSecret, SECRET_PATTERN } from './secret';

/**
 * Console sessions: a browser exchanges its project's console token for a session at sign-in,
 * so the token itself never stays in the page. The session's secret travels only in its cookie
 * and is stored only as its SHA-256; its CSRF token is derived from the secret (so it is never
 * stored either, and a leaked table yields neither). A session ends after 30 minutes without a
 * request, 12 hours after sign-in, at sign-out, and when the project's console token is
 * rotated: it keeps a fingerprint of the token hash it was made with, and a mismatch ends it.
 *
 * A person's session (issue 26) is made at an OpenID sign-in instead ({@link
 * ConsoleSessions.startForPerson}): it carries the person and a current project, and each
 * request reads the person's role there (cached at most 30 s, members.ts), so a removed member's
 * sessions end within 30 s. A token's session ends when the project gets its first owner.
 */

/**
 * `lastSeenAt` is written at most this often (one write a minute per busy session, not one per
 * request), so a session may end up to this much before 30 minutes after its last request.
 */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;
export { MAX_LIVE_SESSIONS_PER_PROJECT, SESSION_IDLE_TIMEOUT_MS, SESSION_MAX_LIFETIME_MS };
export type { ConsoleSessionView } from './console-views';

/** The stored form of a session: never its secret, never its CSRF token. */
export interface ConsoleSessionRecord {
  /** SHA-256 of the session secret, hex: the key. */
  readonly sessionHash: string;
  /**
   * The project the session acts for: a person's current project, which they may switch. Absent
   * for a person who has no project yet (issue 27: they may create one, or accept an invitation).
   */
  readonly project?: string;
  /** {@link tokenFingerprint} of the console token hash at sign-in (a token's session only). */
  readonly tokenFingerprint?: string;
  /** The signed-in person (a person's session only). */
  readonly person?: SessionPerson;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds of the last request that was recorded (at most one a minute). */
  readonly lastSeenAt: number;
  /** Epoch seconds when the session ends unless used again: DynamoDB's TTL deletes it after. */
  readonly expiresAt: number;
}

/** Who a person's session belongs to: their provider's issuer and subject, email and name as shown. */
export type SessionPerson = Pick<Person, 'issuer' | 'subject' | 'email' | 'name'>;

/** What session storage must do; every write is keyed by the session's hash. */
export interface ConsoleSessionStore {
  get(sessionHash: string): Promise<ConsoleSessionRecord | undefined>;
  put(record: ConsoleSessionRecord): Promise<void>;
  /** Records a request: the new `lastSeenAt` and `expiresAt` (nothing when the session is gone). */
  touch(sessionHash: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  delete(sessionHash: string): Promise<void>;
  /** Moves a session to another project (nothing when the session is gone). */
  setProject(sessionHash: string, project: string): Promise<void>;
  /** The project's sessions whose `expiresAt` is after `afterSeconds` (ended ones may be among them). */
  listUnexpired(project: string, afterSeconds: number): Promise<ConsoleSessionRecord[]>;
}

/** Why a session is not usable. */
export type SessionEnd =
  | 'unknown'
  | 'idle'
  | 'lifetime'
  | 'token_rotated'
  /** The project has members now: its token's sessions end with the token (the migration). */
  | 'token_retired'
  /** The person is no longer a member of the session's project (or it is gone). */
  | 'membership_ended';

/** A short, non-reversible fingerprint of a project's console token hash. */
export function tokenFingerprint(project: Pick<ProjectRecord, 'consoleTokenHash'>): string {
  return createHash('sha256')
    .update(`console-token:${project.consoleTokenHash}`, 'utf8')
    .digest('hex')
    .slice(0, 32);
}

/** The CSRF token of a session: an HMAC of a fixed label under the session secret. */
export function csrfTokenOf(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('animal-store-console-csrf').digest('base64url');
}

/** True when the presented CSRF token is the session's (constant-time). */
export function csrfTokenMatches(sessionSecret: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const expected = Buffer.from(csrfTokenOf(sessionSecret), 'utf8');
  const given = Buffer.from(presented, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** When a session, as stored, ends unless used again (epoch milliseconds). */
export function sessionEndsAt(record: Pick<ConsoleSessionRecord, 'createdAt' | 'lastSeenAt'>): number {
  return Math.min(record.lastSeenAt + SESSION_IDLE_TIMEOUT_MS, record.createdAt + SESSION_MAX_LIFETIME_MS);
}

/** Why the session cannot be used at `nowMs` for this project record; undefined while it can. */
export function sessionEnd(
  record: ConsoleSessionRecord,
  project: Pick<ProjectRecord, 'consoleTokenHash' | 'owners'> | undefined,
  nowMs: number,
): SessionEnd | undefined {
  if (nowMs >= record.createdAt + SESSION_MAX_LIFETIME_MS) return 'lifetime';
  if (nowMs >= record.lastSeenAt + SESSION_IDLE_TIMEOUT_MS) return 'idle';
  if (record.person) return project ? undefined : 'membership_ended';
  if (!project || tokenFingerprint(project) !== record.tokenFingerprint) return 'token_rotated';
  if (hasOwners(project)) return 'token_retired';
  return undefined;
}

/** Whether a request at `nowMs` should be recorded (the last one recorded is a minute old). */
export function touchDue(record: Pick<ConsoleSessionRecord, 'lastSeenAt'>, nowMs: number): boolean {
  return nowMs - record.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS;
}

/**
 * What the page learns of its session: the project, the caller's role there and what it may do
 * (the page hides the rest), and for a person, who they are and their projects to switch to.
 */
export function sessionView(
  record: ConsoleSessionRecord,
  sessionSecret: string,
  role: Role | undefined,
  memberships?: readonly MembershipView[],
): ConsoleSessionView {
  return {
    ...(record.project === undefined || role === undefined ? {} : { project: record.project, role }),
    csrfToken: csrfTokenOf(sessionSecret),
    idleTimeoutSeconds: SESSION_IDLE_TIMEOUT_MS / 1000,
    expiresAt: new Date(record.createdAt + SESSION_MAX_LIFETIME_MS).toISOString(),
    permissions: role === undefined ? [] : permissionsOf(role),
    ...(record.person
      ? {
          person: {
            email: record.person.email,
            ...(record.person.name === undefined ? {} : { name: record.person.name }),
          },
          projects: memberships ?? [],
        }
      : {}),
  };
}

export type SignIn =
  | { readonly signedIn: true; readonly secret: string; readonly session: ConsoleSessionView }
  | {
      readonly signedIn: false;
      /** `not_a_member`: a person who is no member of the project asked for (or of any). */
      readonly failure:
        'invalid_console_token' | 'console_token_retired' | 'too_many_sessions' | 'not_a_member';
      /** The project refused, where the caller proved one (the audit log records it there). */
      readonly project?: string;
    };

export type Resumed =
  | {
      readonly live: true;
      readonly project: ProjectRecord;
      readonly record: ConsoleSessionRecord;
      readonly secret: string;
      /** The caller's role in the project: a person's as read (cached), a token's `owner`. */
      readonly role: Role;
    }
  /** A person's session with no project yet (issue 27). */
  | {
      readonly live: true;
      readonly project?: undefined;
      readonly record: ConsoleSessionRecord & { readonly person: SessionPerson };
      readonly secret: string;
      readonly role?: undefined;
    }
  | { readonly live: false; readonly end: SessionEnd };

export interface ConsoleSessionsOptions {
  readonly store: ConsoleSessionStore;
  readonly projects: ProjectStore;
  /** People's memberships, read at sign-in and at a switch of project. */
  readonly members: Pick<MemberStore, 'get' | 'projectsOf'>;
  /** People's roles as each request reads them (cached at most 30 s). */
  readonly roles: MemberRoles;
  /** Epoch milliseconds (tests move it). */
  readonly clock: () => number;
}

/** Sign-in, the session of a request, sign-out. Store failures surface as the store's errors. */
export class ConsoleSessions {
  constructor(private readonly options: ConsoleSessionsOptions) {}

  /**
   * Exchanges a console token for a new session; unknown, malformed and wrong tokens fail alike.
   * A project with an owner no longer takes its token (the migration to members).
   */
  async signIn(token: string): Promise<SignIn> {
    const refused = { signedIn: false, failure: 'invalid_console_token' } as const;
    const parsed = parseConsoleToken(token);
    if (!parsed) return refused;
    const project = await this.options.projects.get(parsed.project);
    if (!project || !consoleTokenMatches(project, parsed.secret)) return refused;
    if (hasOwners(project)) {
      return { signedIn: false, failure: 'console_token_retired', project: project.name };
    }
    return this.start(project, { tokenFingerprint: tokenFingerprint(project) }, 'owner');
  }

  /**
   * Starts a session for a person the identity provider vouched for, in `project` (or, without
   * one, the first of their projects by name): the cookie's secret and the session's view, as
   * {@link signIn} answers. A person who is no member there (or of any project) is refused.
   */
  async startForPerson(person: Person, project?: string): Promise<SignIn> {
    const refused = { signedIn: false, failure: 'not_a_member' } as const;
    const ref = { issuer: person.issuer, subject: person.subject };
    const listed = await this.options.members.projectsOf(ref);
    const sessionPerson: SessionPerson = {
      issuer: person.issuer,
      subject: person.subject,
      email: person.email,
      ...(person.name === undefined ? {} : { name: person.name }),
    };
    // A person of no project gets a session in none (issue 27): to create one, or to accept an invitation.
    if (project === undefined && listed.length === 0) return this.start(undefined, { person: sessionPerson });
    // Read by its key: the person's index is eventually consistent, so it may still list a
    // membership just removed, or not yet list one just added (an invitation accepted a moment ago).
    const wanted = project ?? listed[0]?.project;
    const member = wanted === undefined ? undefined : await this.options.members.get(wanted, ref);
    if (!member) return refused;
    const record = await this.options.projects.get(member.project);
    if (!record) return refused;
    this.options.roles.forget(member.project, ref);
    const memberships = listed.some((each) => each.project === member.project)
      ? listed
      : [...listed, member].sort((a, b) => a.project.localeCompare(b.project));
    return this.start(record, { person: sessionPerson }, member.role, memberships);
  }

  private async start(
    project: ProjectRecord | undefined,
    owner: Pick<ConsoleSessionRecord, 'tokenFingerprint' | 'person'>,
    role?: Role,
    memberships?: readonly { readonly project: string; readonly role: Role }[],
  ): Promise<SignIn> {
    const nowMs = this.options.clock();
    const secret = newSecret();
    const record: ConsoleSessionRecord = {
      sessionHash: hashSecret(secret),
      ...(project ? { project: project.name } : {}),
      ...owner,
      createdAt: nowMs,
      lastSeenAt: nowMs,
      expiresAt: Math.ceil(sessionEndsAt({ createdAt: nowMs, lastSeenAt: nowMs }) / 1000),
    };
    const { store } = this.options;
    await store.put(record);
    // A session of no project is in no project's count (sign-ins are counted per client address).
    if (!project) return { signedIn: true, secret, session: sessionView(record, secret, undefined, []) };
    // Counted after the put: see MAX_LIVE_SESSIONS_PER_PROJECT.
    const unexpired = await store.listUnexpired(project.name, Math.floor(nowMs / 1000));
    const live = unexpired.filter((session) => sessionEnd(session, project, nowMs) === undefined);
    if (live.length > MAX_LIVE_SESSIONS_PER_PROJECT) {
      await store.delete(record.sessionHash);
      return { signedIn: false, failure: 'too_many_sessions', project: project.name };
    }
    const views = memberships?.map(({ project: name, role: each }) => ({ project: name, role: each }));
    return { signedIn: true, secret, session: sessionView(record, secret, role, views) };
  }

  /**
   * The live session a cookie's secret names, recorded as used (at most once a minute), with the
   * caller's role; an ended one is deleted at once (DynamoDB's TTL would take its time).
   */
  async resume(secret: string): Promise<Resumed> {
    if (!SECRET_PATTERN.test(secret)) return { live: false, end: 'unknown' };
    const sessionHash = hashSecret(secret);
    const record = await this.options.store.get(sessionHash);
    if (!record) return { live: false, end: 'unknown' };
    const nowMs = this.options.clock();
    if (record.project === undefined) return this.resumeWithoutProject(record, secret, nowMs);
    const project = await this.options.projects.get(record.project);
    const role = record.person ? await this.options.roles.roleOf(record.project, record.person) : 'owner';
    const end = sessionEnd(record, project, nowMs) ?? (role ? undefined : 'membership_ended');
    if (end || !project || !role) {
      await this.options.store.delete(sessionHash);
      return { live: false, end: end ?? 'token_rotated' };
    }
    if (touchDue(record, nowMs)) {
      const touched = {
        lastSeenAt: nowMs,
        expiresAt: Math.ceil(sessionEndsAt({ ...record, lastSeenAt: nowMs }) / 1000),
      };
      await this.options.store.touch(sessionHash, touched.lastSeenAt, touched.expiresAt);
      return { live: true, project, record: { ...record, ...touched }, secret, role };
    }
    return { live: true, project, record, secret, role };
  }

  /** A person's session of no project: live until it is idle or too old (then deleted). */
  private async resumeWithoutProject(
    record: ConsoleSessionRecord,
    secret: string,
    nowMs: number,
  ): Promise<Resumed> {
    const { person } = record;
    const end = person ? sessionEnd(record, undefined, nowMs) : 'unknown';
    if (!person || (end !== undefined && end !== 'membership_ended')) {
      await this.options.store.delete(record.sessionHash);
      return { live: false, end: end ?? 'unknown' };
    }
    if (!touchDue(record, nowMs)) return { live: true, record: { ...record, person }, secret };
    const lastSeenAt = nowMs;
    const expiresAt = Math.ceil(sessionEndsAt({ ...record, lastSeenAt }) / 1000);
    await this.options.store.touch(record.sessionHash, lastSeenAt, expiresAt);
    return { live: true, record: { ...record, person, lastSeenAt, expiresAt }, secret };
  }

  /** A person's projects and roles (by project name), as the page lists them to switch between. */
  async membershipsOf(record: ConsoleSessionRecord): Promise<MembershipView[] | undefined> {
    if (!record.person) return undefined;
    const memberships = await this.options.members.projectsOf(record.person);
    return memberships.map(({ project, role }) => ({ project, role }));
  }

  /**
   * Moves a person's session to another of their projects: their membership there is read
   * afresh. Undefined when they are no member of it (another project stays invisible: the
   * same answer whether or not it exists), or when the session is a token's.
   */
  async switchProject(
    record: ConsoleSessionRecord,
    secret: string,
    project: string,
  ): Promise<ConsoleSessionView | undefined> {
    if (!record.person) return undefined;
    const member = await this.options.members.get(project, record.person);
    if (!member || !(await this.options.projects.get(project))) return undefined;
    await this.options.store.setProject(record.sessionHash, project);
    this.options.roles.forget(project, record.person);
    const moved = { ...record, project };
    return sessionView(moved, secret, member.role, await this.membershipsOf(moved));
  }

  /** Ends a session (signing out twice is fine). */
  async signOut(secret: string): Promise<void> {
    if (!SECRET_PATTERN.test(secret)) return;
    await this.options.store.delete(hashSecret(secret));
  }
}
