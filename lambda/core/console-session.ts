import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ConsoleSessionView } from './console-views';
import { MAX_LIVE_SESSIONS_PER_PROJECT, SESSION_IDLE_TIMEOUT_MS, SESSION_MAX_LIFETIME_MS } from './limits';
import { consoleTokenMatches, parseConsoleToken, type ProjectRecord, type ProjectStore } from './project';
import { hashSecret, newSecret, SECRET_PATTERN } from './secret';

/**
 * Console sessions: a browser exchanges its project's console token for a session at sign-in,
 * so the token itself never stays in the page. The session's secret travels only in its cookie
 * and is stored only as its SHA-256; its CSRF token is derived from the secret (so it is never
 * stored either, and a leaked table yields neither). A session ends after 30 minutes without a
 * request, 12 hours after sign-in, at sign-out, and when the project's console token is
 * rotated: it keeps a fingerprint of the token hash it was made with, and a mismatch ends it.
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
  readonly project: string;
  /** {@link tokenFingerprint} of the console token hash at sign-in. */
  readonly tokenFingerprint: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds of the last request that was recorded (at most one a minute). */
  readonly lastSeenAt: number;
  /** Epoch seconds when the session ends unless used again: DynamoDB's TTL deletes it after. */
  readonly expiresAt: number;
}

/** What session storage must do; every write is keyed by the session's hash. */
export interface ConsoleSessionStore {
  get(sessionHash: string): Promise<ConsoleSessionRecord | undefined>;
  put(record: ConsoleSessionRecord): Promise<void>;
  /** Records a request: the new `lastSeenAt` and `expiresAt` (nothing when the session is gone). */
  touch(sessionHash: string, lastSeenAt: number, expiresAt: number): Promise<void>;
  delete(sessionHash: string): Promise<void>;
  /** The project's sessions whose `expiresAt` is after `afterSeconds` (ended ones may be among them). */
  listUnexpired(project: string, afterSeconds: number): Promise<ConsoleSessionRecord[]>;
}

/** Why a session is not usable. */
export type SessionEnd = 'unknown' | 'idle' | 'lifetime' | 'token_rotated';

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
  project: Pick<ProjectRecord, 'consoleTokenHash'> | undefined,
  nowMs: number,
): SessionEnd | undefined {
  if (nowMs >= record.createdAt + SESSION_MAX_LIFETIME_MS) return 'lifetime';
  if (nowMs >= record.lastSeenAt + SESSION_IDLE_TIMEOUT_MS) return 'idle';
  if (!project || tokenFingerprint(project) !== record.tokenFingerprint) return 'token_rotated';
  return undefined;
}

/** Whether a request at `nowMs` should be recorded (the last one recorded is a minute old). */
export function touchDue(record: Pick<ConsoleSessionRecord, 'lastSeenAt'>, nowMs: number): boolean {
  return nowMs - record.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS;
}

export function sessionView(record: ConsoleSessionRecord, sessionSecret: string): ConsoleSessionView {
  return {
    project: record.project,
    csrfToken: csrfTokenOf(sessionSecret),
    idleTimeoutSeconds: SESSION_IDLE_TIMEOUT_MS / 1000,
    expiresAt: new Date(record.createdAt + SESSION_MAX_LIFETIME_MS).toISOString(),
  };
}

export type SignIn =
  | { readonly signedIn: true; readonly secret: string; readonly session: ConsoleSessionView }
  | { readonly signedIn: false; readonly failure: 'invalid_console_token' | 'too_many_sessions' };

export type Resumed =
  | {
      readonly live: true;
      readonly project: ProjectRecord;
      readonly record: ConsoleSessionRecord;
      readonly secret: string;
    }
  | { readonly live: false; readonly end: SessionEnd };

export interface ConsoleSessionsOptions {
  readonly store: ConsoleSessionStore;
  readonly projects: ProjectStore;
  /** Epoch milliseconds (tests move it). */
  readonly clock: () => number;
}

/** Sign-in, the session of a request, sign-out. Store failures surface as the store's errors. */
export class ConsoleSessions {
  constructor(private readonly options: ConsoleSessionsOptions) {}

  /** Exchanges a console token for a new session; unknown, malformed and wrong tokens fail alike. */
  async signIn(token: string): Promise<SignIn> {
    const refused = { signedIn: false, failure: 'invalid_console_token' } as const;
    const parsed = parseConsoleToken(token);
    if (!parsed) return refused;
    const project = await this.options.projects.get(parsed.project);
    if (!project || !consoleTokenMatches(project, parsed.secret)) return refused;
    const nowMs = this.options.clock();
    const secret = newSecret();
    const record: ConsoleSessionRecord = {
      sessionHash: hashSecret(secret),
      project: project.name,
      tokenFingerprint: tokenFingerprint(project),
      createdAt: nowMs,
      lastSeenAt: nowMs,
      expiresAt: Math.ceil(sessionEndsAt({ createdAt: nowMs, lastSeenAt: nowMs }) / 1000),
    };
    const { store } = this.options;
    await store.put(record);
    // Counted after the put: see MAX_LIVE_SESSIONS_PER_PROJECT.
    const unexpired = await store.listUnexpired(project.name, Math.floor(nowMs / 1000));
    const live = unexpired.filter((session) => sessionEnd(session, project, nowMs) === undefined);
    if (live.length > MAX_LIVE_SESSIONS_PER_PROJECT) {
      await store.delete(record.sessionHash);
      return { signedIn: false, failure: 'too_many_sessions' };
    }
    return { signedIn: true, secret, session: sessionView(record, secret) };
  }

  /**
   * The live session a cookie's secret names, recorded as used (at most once a minute); an
   * ended one is deleted at once (DynamoDB's TTL would take its time).
   */
  async resume(secret: string): Promise<Resumed> {
    if (!SECRET_PATTERN.test(secret)) return { live: false, end: 'unknown' };
    const sessionHash = hashSecret(secret);
    const record = await this.options.store.get(sessionHash);
    if (!record) return { live: false, end: 'unknown' };
    const nowMs = this.options.clock();
    const project = await this.options.projects.get(record.project);
    const end = sessionEnd(record, project, nowMs);
    if (end || !project) {
      await this.options.store.delete(sessionHash);
      return { live: false, end: end ?? 'token_rotated' };
    }
    if (touchDue(record, nowMs)) {
      const touched = {
        lastSeenAt: nowMs,
        expiresAt: Math.ceil(sessionEndsAt({ ...record, lastSeenAt: nowMs }) / 1000),
      };
      await this.options.store.touch(sessionHash, touched.lastSeenAt, touched.expiresAt);
      return { live: true, project, record: { ...record, ...touched }, secret };
    }
    return { live: true, project, record, secret };
  }

  /** Ends a session (signing out twice is fine). */
  async signOut(secret: string): Promise<void> {
    if (!SECRET_PATTERN.test(secret)) return;
    await this.options.store.delete(hashSecret(secret));
  }
}
