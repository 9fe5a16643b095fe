import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ConsoleError, messageOf, whenSignedOut } from './api';
import type { Session } from './contract';
import { Domains } from './domains';
import { Keys } from './keys';
import { Members } from './members';
import { Tokens } from './tokens';
import { Permissions } from './permissions';
import { Overview, useUsage } from './overview';
import { SignIn } from './sign-in';
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
] as const;
type PageId = (typeof PAGES)[number]['id'];

function pageOfLocation(): PageId {
  const id = location.hash.replace(/^#/, '');
  return PAGES.find((page) => page.id === id)?.id ?? 'overview';
}

type Phase =
  | { readonly kind: 'loading' }
  | { readonly kind: 'signed-out'; readonly notice?: string; readonly focus: boolean }
  | { readonly kind: 'signed-in'; readonly session: Session };

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });
  const [page, setPage] = useState<PageId>(pageOfLocation);
  /** Whether the shown page was reached by the person's navigation (then its heading takes the focus). */
  const [navigated, setNavigated] = useState(false);
  const usage = useUsage();
  const [message, setMessage] = useState('');
  const [fatal, setFatal] = useState<string>();
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
      setPhase({ kind: 'signed-out', notice: `${error.message}`, focus: true });
    });
    api.restore().then(
      (session) => setPhase(session ? { kind: 'signed-in', session } : { kind: 'signed-out', focus: false }),
      (failure: unknown) => setFatal(messageOf(failure)),
    );
    const onHash = () => {
      setPage(pageOfLocation());
      setNavigated(true);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const signedIn = phase.kind === 'signed-in' ? phase.session : undefined;

  const label = PAGES.find((entry) => entry.id === page)?.label ?? '';
  useEffect(() => {
    document.title = signedIn
      ? `${label} · ${signedIn.project} · Animal Store console`
      : 'Sign in · Animal Store console';
  }, [label, signedIn?.project]);

  /** Another of the person's projects: the session moves, and the page reads it afresh. */
  const switchTo = async (project: string) => {
    try {
      const session = await api.call('switchProject', { body: { project } });
      usage.forget();
      setPhase({ kind: 'signed-in', session });
      announce(`Switched to project ${project}.`);
    } catch (failure) {
      announce(messageOf(failure));
    }
  };

  const signOut = async () => {
    try {
      await api.signOut();
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
                  {PAGES.map((entry) => (
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
                  Project <strong id="signed-in-project">{signedIn.project}</strong> ({signedIn.role})
                </span>
                {signedIn.projects && signedIn.projects.length > 1 ? (
                  <>
                    <label for="switch-project">Switch project</label>
                    <select
                      id="switch-project"
                      value={signedIn.project}
                      onChange={(event) => void switchTo(event.currentTarget.value)}
                    >
                      {signedIn.projects.map((each) => (
                        <option key={each.project} value={each.project}>
                          {each.project} ({each.role})
                        </option>
                      ))}
                    </select>
                  </>
                ) : null}
                <button type="button" onClick={() => void signOut()}>
                  Sign out
                </button>
              </div>
            </>
          ) : null}
        </header>
        <main id="main" tabIndex={-1}>
          {fatal ? (
            <p class="error" role="alert">
              {fatal}
            </p>
          ) : phase.kind === 'loading' ? (
            <p>Loading…</p>
          ) : phase.kind === 'signed-out' ? (
            <SignIn
              notice={phase.notice}
              focus={phase.focus}
              onSignedIn={(session) => {
                setNavigated(true);
                setPhase({ kind: 'signed-in', session });
              }}
            />
          ) : page === 'overview' ? (
            <Overview key="overview" reading={usage.reading} onRead={usage.read} focus={navigated} />
          ) : page === 'usage' ? (
            <UsagePage key={`usage-${signedIn?.project}`} project={phase.session.project} focus={navigated} />
          ) : page === 'keys' ? (
            <Keys key={`keys-${signedIn?.project}`} focus={navigated} />
          ) : page === 'tokens' ? (
            <Tokens key={`tokens-${signedIn?.project}`} focus={navigated} session={phase.session} />
          ) : page === 'members' ? (
            <Members key={`members-${signedIn?.project}`} focus={navigated} />
          ) : (
            <Domains
              key="domains"
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
