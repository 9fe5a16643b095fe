import {
  type ConsoleSessionRecord,
  type ConsoleSessionStore,
  ConsoleSessions,
  csrfTokenMatches,
  csrfTokenOf,
  SESSION_IDLE_TIMEOUT_MS,
  SESSION_MAX_LIFETIME_MS,
  SESSION_TOUCH_INTERVAL_MS,
  sessionEnd,
  tokenFingerprint,
} from '../../../lambda/core/console-session';
import { type MemberRecord, MemberRoles, type MemberStore } from '../../../lambda/core/members';
import { hashSecret } from '../../../lambda/core/secret';
import { issueConsoleToken, type ProjectRecord } from '../../../lambda/core/project';

/** The session rules with an in-memory store and a clock the test moves. */
function setup(
  // Token sessions unless a test gives people: test/e2e/console-members.test.ts has more of them.
  members: Pick<MemberStore, 'get' | 'projectsOf'> = {
    get: async () => undefined,
    projectsOf: async () => [],
  },
) {
  let nowMs = Date.parse('2031-01-01T00:00:00Z');
  const issued = issueConsoleToken('acme');
  let project: ProjectRecord = {
    name: 'acme',
    plan: 'pro',
    createdAt: '2031-01-01T00:00:00Z',
    consoleTokenHash: issued.hash,
    consoleTokenIssuedAt: '2031-01-01T00:00:00Z',
    usageId: 'u',
  };
  const items = new Map<string, ConsoleSessionRecord>();
  const writes: string[] = [];
  const store: ConsoleSessionStore = {
    get: async (hash) => items.get(hash),
    put: async (record) => {
      writes.push('put');
      items.set(record.sessionHash, record);
    },
    touch: async (hash, lastSeenAt, expiresAt) => {
      writes.push('touch');
      const item = items.get(hash);
      if (item) items.set(hash, { ...item, lastSeenAt, expiresAt });
    },
    delete: async (hash) => {
      writes.push('delete');
      items.delete(hash);
    },
    listUnexpired: async (name, afterSeconds) =>
      [...items.values()].filter((item) => item.project === name && item.expiresAt > afterSeconds),
    setProject: async (hash, name) => {
      const item = items.get(hash);
      if (item) items.set(hash, { ...item, project: name });
    },
  };
  const sessions = new ConsoleSessions({
    store,
    projects: { get: async (name) => (name === project.name ? project : undefined) },
    members,
    roles: new MemberRoles(members, () => nowMs),
    clock: () => nowMs,
  });
  return {
    sessions,
    items,
    writes,
    token: issued.token,
    advance: (ms: number) => {
      nowMs += ms;
    },
    rotate: () => {
      project = { ...project, consoleTokenHash: issueConsoleToken('acme').hash };
    },
  };
}

async function signedIn(t: ReturnType<typeof setup>) {
  const signIn = await t.sessions.signIn(t.token);
  if (!signIn.signedIn) throw new Error('not signed in');
  return signIn;
}

describe('console sessions', () => {
  it('stores only the hash of the secret, and neither the secret nor the CSRF token', async () => {
    const t = setup();
    const { secret, session } = await signedIn(t);
    const [stored] = [...t.items.values()];
    expect(stored?.sessionHash).toBe(hashSecret(secret));
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(session.csrfToken);
    expect(session.csrfToken).toBe(csrfTokenOf(secret));
    expect(stored?.expiresAt).toBe(Math.ceil((stored!.createdAt + SESSION_IDLE_TIMEOUT_MS) / 1000));
  });

  it('refuses wrong, malformed and unknown-project tokens alike', async () => {
    const t = setup();
    for (const token of [issueConsoleToken('acme').token, 'pct_nope', issueConsoleToken('globex').token]) {
      expect(await t.sessions.signIn(token)).toEqual({ signedIn: false, failure: 'invalid_console_token' });
    }
    expect(t.writes).toEqual([]);
  });

  it('records use at most once a minute', async () => {
    const t = setup();
    const { secret } = await signedIn(t);
    t.advance(SESSION_TOUCH_INTERVAL_MS - 1);
    await t.sessions.resume(secret);
    t.advance(1);
    await t.sessions.resume(secret);
    await t.sessions.resume(secret);
    expect(t.writes).toEqual(['put', 'touch']);
  });

  it('ends after the idle timeout, and deletes the session', async () => {
    const t = setup();
    const { secret } = await signedIn(t);
    t.advance(SESSION_IDLE_TIMEOUT_MS - 1);
    expect((await t.sessions.resume(secret)).live).toBe(true);
    t.advance(SESSION_IDLE_TIMEOUT_MS);
    expect(await t.sessions.resume(secret)).toEqual({ live: false, end: 'idle' });
    expect(t.items.size).toBe(0);
  });

  it('ends at the maximum lifetime however busy', async () => {
    const t = setup();
    const { secret } = await signedIn(t);
    for (let elapsed = 0; elapsed + 10 * 60_000 < SESSION_MAX_LIFETIME_MS; elapsed += 10 * 60_000) {
      t.advance(10 * 60_000);
      expect((await t.sessions.resume(secret)).live).toBe(true);
    }
    t.advance(10 * 60_000);
    expect(await t.sessions.resume(secret)).toEqual({ live: false, end: 'lifetime' });
  });

  it('ends when the console token is rotated (the fingerprint no longer matches)', async () => {
    const t = setup();
    const { secret } = await signedIn(t);
    t.rotate();
    expect(await t.sessions.resume(secret)).toEqual({ live: false, end: 'token_rotated' });
  });

  it('ends at sign-out; unknown and malformed secrets are unknown sessions', async () => {
    const t = setup();
    const { secret } = await signedIn(t);
    await t.sessions.signOut(secret);
    expect(await t.sessions.resume(secret)).toEqual({ live: false, end: 'unknown' });
    expect(await t.sessions.resume('short')).toEqual({ live: false, end: 'unknown' });
  });

  it('compares CSRF tokens exactly', () => {
    const secret = 'A'.repeat(43);
    expect(csrfTokenMatches(secret, csrfTokenOf(secret))).toBe(true);
    expect(csrfTokenMatches(secret, csrfTokenOf('B'.repeat(43)))).toBe(false);
    expect(csrfTokenMatches(secret, `${csrfTokenOf(secret)}x`)).toBe(false);
    expect(csrfTokenMatches(secret, undefined)).toBe(false);
  });

  it('sessionEnd checks lifetime, idle time and the fingerprint', () => {
    const project = { consoleTokenHash: 'ab'.repeat(32) };
    const record: ConsoleSessionRecord = {
      sessionHash: 'h',
      project: 'acme',
      tokenFingerprint: tokenFingerprint(project),
      createdAt: 0,
      lastSeenAt: 0,
      expiresAt: 0,
    };
    expect(sessionEnd(record, project, SESSION_IDLE_TIMEOUT_MS - 1)).toBeUndefined();
    expect(sessionEnd(record, undefined, 1)).toBe('token_rotated');
    expect(
      sessionEnd({ ...record, lastSeenAt: SESSION_MAX_LIFETIME_MS - 1 }, project, SESSION_MAX_LIFETIME_MS),
    ).toBe('lifetime');
  });

  describe("a person's membership read at sign-in", () => {
    const person = {
      issuer: 'https://id.example',
      subject: 'ana',
      email: 'ana@example.com',
      emailVerified: true,
    };
    const joined: MemberRecord = {
      ...person,
      project: 'acme',
      role: 'developer',
      addedAt: '2031-01-01T00:00:00Z',
    };

    it("is read by its key: a membership the person's index does not list yet still starts the session", async () => {
      // The index is eventually consistent: an invitation accepted a moment ago is not in it yet.
      const t = setup({
        get: async (project, ref) => (project === 'acme' && ref.subject === 'ana' ? joined : undefined),
        projectsOf: async () => [],
      });
      const started = await t.sessions.startForPerson(person, 'acme');
      if (!started.signedIn) throw new Error(`refused: ${started.failure}`);
      expect(started.session).toMatchObject({ project: 'acme', role: 'developer' });
      expect(started.session.projects).toEqual([{ project: 'acme', role: 'developer' }]);
    });

    it('is refused when the index still lists a membership that its key no longer holds', async () => {
      const t = setup({ get: async () => undefined, projectsOf: async () => [joined] });
      expect(await t.sessions.startForPerson(person, 'acme')).toEqual({
        signedIn: false,
        failure: 'not_a_member',
      });
      expect(await t.sessions.startForPerson(person)).toEqual({ signedIn: false, failure: 'not_a_member' });
      expect(t.writes).toEqual([]);
    });
  });
});
