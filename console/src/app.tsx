import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { Audit } from './audit';
import { api, ConsoleError, messageOf, whenSignedOut } from './api';
import type { Session } from './contract';
import { Domains } from './domains';
import { Join, type JoinRequest, joinRequestOfLocation } from './join';
import { Keys } from './keys';
import { Members } from './members';
import { Tokens } from './tokens';
import { Permissions } from './permissions';
import { Overview, useUsage } from './overview';
import { SIGN_OUT_PATH } from '../../lambda/api/console-navigation';
import { SignIn } from './sign-in';
import { signInFailureOf, withoutSignInFailure } from './sign-in-failure';
import { StartProject } from './start-project';
import { Announce } from './ui';
import { UsagePage } from './usage';

/** The pages after sign-in, each at its own fragment (`#keys`), so Back and reload keep the place. */
const PAGES = [
  { id: 'overview', label: 'Overview' },
  { id: 'usage', label: 'Usage' },
  { id: 'keys', label: 'API keys' },
  { id: 'domains', label: 'Domains' },
  { id: 'members', label: 'Members' },
  { id: 'tokens', label: 'Tokens' },
  // Owners' and admins' (readAuditLog): the link is hidden from others, the page refuses them.
  { id: 'audit', label: 'Audit', needs: 'readAuditLog' },
] as const;
type PageId = (typeof PAGES)[number]['id'];

function pageOfLocation(): PageId {
  const id = location.hash.replace(/^#/, '');
  return PAGES.find((page) => page.id === id)?.id ?? 'overview';
}

type Phase =
  | { readonly kind: 'loading' }
  | {
      readonly kind: 'signed-out';
      readonly notice?: string;
      /** A sign-in through the provider that was refused, in the page's words. */
      readonly failure?: string;
      readonly focus: boolean;
    }
  | { readonly kind: 'signed-in'; readonly session: Session };

/**
 * Set just before the page leaves for the provider's sign-out (only a flag, never a secret): the
 * provider returns to the page's plain address, where it says the person has signed out.
 */
const SIGNED_OUT_FLAG = 'animal-store-console-signed-out';

/** Why the page was opened signed out: a refused sign-in, or a sign-out that went to the provider. */
function arrival(): { failure?: string; notice?: string } {
  const failure = signInFailureOf(location.search);
  if (failure) history.replaceState(history.state, '', withoutSignInFailure(location.href));
  let signedOut = false;
  try {
    signedOut = sessionStorage.getItem(SIGNED_OUT_FLAG) !== null;
    sessionStorage.removeItem(SIGNED_OUT_FLAG);
  } catch {
    // Storage refused (a privacy setting): the page only says less.
  }
  return { ...(failure ? { failure } : {}), ...(signedOut ? { notice: 'You have signed out.' } : {}) };
}

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const [page, setPage] = useState<PageId>(pageOfLocation);
  /** Whether the shown page was reached by the person's navigation (then its heading takes the focus). */
  const [navigated, setNavigated] = useState(false);
  const usage = useUsage();
  const [message, setMessage] = useState('');
  const [fatal, setFatal] = useState<string>();
  /** An invitation's link (issue 27): its page comes first, signed in or not. */
  const [joining, setJoining] = useState<JoinRequest | undefined>(joinRequestOfLocation);
  const clearTimer = useRef<number | undefined>(undefined);

  /** The live region is emptied first, so the same words twice are read twice. */
  const announce = useCallback((words: string) => {
    setMessage('');
    window.clearTimeout(clearTimer.current);
    clearTimer.current = window.setTimeout(() => setMessage(words), 50);
  }, []);

  useEffect(() => {
    whenSignedOut((error: ConsoleError) => {
      usage.forget();
      // The first refusal says why; reads sent with it may come back after it with another
      // (a removed member's session is ended by the first answer, so the next says it ended).
      setPhase((shown) =>
        shown.kind === 'signed-out' ? shown : { kind: 'signed-out', notice: `${error.message}`, focus: true },
      );
    });
    const { failure, notice } = arrival();
    api.restore().then(
      (session) =>
        setPhase(
          session
            ? { kind: 'signed-in', session }
            : { kind: 'signed-out', failure, notice, focus: notice !== undefined },
        ),
      (failure: unknown) => setFatal(messageOf(failure)),
    );
    const onHash = () => {
      // An invitation's link opened in a console already loaded (only the fragment changes).
      const join = joinRequestOfLocation();
      if (join) setJoining(join);
      setPage(pageOfLocation());
      setNavigated(true);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const session = phase.kind === 'signed-in' ? phase.session : undefined;
  /** Signed in to a project (a person with none yet sees the start page, issue 27). */
  // In a project, with a role there (a person with no project yet has neither: issue 27).
  const signedIn =
    session?.project === undefined || session.role === undefined
      ? undefined
      : { ...session, project: session.project, role: session.role };

  const label = PAGES.find((entry) => entry.id === page)?.label ?? '';
  useEffect(() => {
    document.title = signedIn
      ? `${label} · ${signedIn.project} · Animal Store console`
      : session
        ? 'Create your first project · Animal Store console'
        : 'Sign in · Animal Store console';
  }, [label, signedIn?.project, session]);

  /** Another of the person's projects: the session moves, and the page reads it afresh. */
  const [chosen, setChosen] = useState<string>();
  const switchTo = async (project: string) => {
    try {
      const session = await api.call('switchProject', { body: { project } });
      usage.forget();
      setChosen(undefined);
      setPhase({ kind: 'signed-in', session });
      announce(`Switched to project ${project}.`);
    } catch (failure) {
      announce(messageOf(failure));
    }
  };

  const signOut = async () => {
    try {
      await api.signOut();
      if (signedIn?.person) {
        // The console's session has ended; the provider's ends at its own sign-out, which returns here.
        try {
          sessionStorage.setItem(SIGNED_OUT_FLAG, '1');
        } catch {
          // Storage refused: the page returns without saying so.
        }
        location.assign(SIGN_OUT_PATH);
        return;
      }
      usage.forget();
      setPhase({ kind: 'signed-out', notice: 'You have signed out.', focus: true });
    } catch (failure) {
      announce(messageOf(failure));
    }
  };

  return (
    <Announce.Provider value={announce}>
      <Permissions.Provider value={signedIn?.permissions ?? []}>
        <a
          class="skip"
          href="#main"
          onClick={(event) => {
            event.preventDefault();
            document.getElementById('main')?.focus();
          }}
        >
          Skip to content
        </a>
        <header class="top">
          <p class="brand">Animal Store console</p>
          {signedIn ? (
            <>
              <nav aria-label="Console">
                <ul>
                  {PAGES.filter(
                    (entry) => !('needs' in entry) || signedIn.permissions?.includes(entry.needs),
                  ).map((entry) => (
                    <li key={entry.id}>
                      <a href={`#${entry.id}`} aria-current={entry.id === page ? 'page' : undefined}>
                        {entry.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <div class="who">
                <span>
                  Project <strong id="signed-in-project">{signedIn.project}</strong> ({signedIn.role ?? ''})
                </span>
                {signedIn.projects && signedIn.projects.length > 1 ? (
                  // Choosing is not switching (WCAG 3.2.2): the button moves the session.
                  <form
                    class="switch"
                    onSubmit={(event) => {
                      event.preventDefault();
                      void switchTo(chosen ?? signedIn.project);
                    }}
                  >
                    <label for="switch-project">Your projects</label>
                    <select
                      id="switch-project"
                      value={chosen ?? signedIn.project}
                      onChange={(event) => setChosen(event.currentTarget.value)}
                    >
                      {signedIn.projects.map((each) => (
                        <option key={each.project} value={each.project}>
                          {each.project} ({each.role})
                        </option>
                      ))}
                    </select>
                    <button type="submit">Switch</button>
                  </form>
                ) : null}
                <button type="button" onClick={() => void signOut()}>
                  Sign out
                </button>
              </div>
            </>
          ) : session ? (
            <div class="who">
              <span>{session.person?.email}</span>
              <button type="button" onClick={() => void signOut()}>
                Sign out
              </button>
            </div>
          ) : null}
        </header>
        <main id="main" tabIndex={-1}>
          {fatal ? (
            <p class="error" role="alert">
              {fatal}
            </p>
          ) : joining ? (
            <Join key={JSON.stringify(joining)} request={joining} onDone={() => setJoining(undefined)} />
          ) : phase.kind === 'loading' ? (
            <p>Loading…</p>
          ) : phase.kind === 'signed-out' ? (
            <SignIn
              notice={phase.notice}
              failure={phase.failure}
              focus={phase.focus}
              onSignedIn={(session) => {
                setNavigated(true);
                setPhase({ kind: 'signed-in', session });
              }}
            />
          ) : !signedIn ? (
            <StartProject session={phase.session} onOpen={switchTo} />
          ) : page === 'overview' ? (
            <Overview
              key={`overview-${signedIn?.project}`}
              reading={usage.reading}
              onRead={usage.read}
              focus={navigated}
            />
          ) : page === 'usage' ? (
            <UsagePage key={`usage-${signedIn.project}`} project={signedIn.project} focus={navigated} />
          ) : page === 'keys' ? (
            <Keys key={`keys-${signedIn?.project}`} focus={navigated} />
          ) : page === 'tokens' ? (
            <Tokens key={`tokens-${signedIn?.project}`} focus={navigated} session={signedIn} />
          ) : page === 'audit' ? (
            <Audit key={`audit-${signedIn.project}`} focus={navigated} />
          ) : page === 'members' ? (
            <Members key={`members-${signedIn?.project}`} focus={navigated} />
          ) : (
            <Domains
              key={`domains-${signedIn?.project}`}
              usage={usage.reading.usage}
              onShown={() => void usage.read()}
              focus={navigated}
            />
          )}
        </main>
        <div class="visually-hidden" role="status" aria-live="polite" id="announcer">
          {message}
        </div>
      </Permissions.Provider>
    </Announce.Provider>
  );
}
