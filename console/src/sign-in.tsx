import { useEffect, useRef, useState } from 'preact/hooks';
import { RETURN_TO_PARAMETER, SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import { api, messageOf } from './api';
import type { Session } from './contract';
import { ErrorMessage, PageHeading } from './ui';

/** Where the identity provider's sign-in starts, returning to the console's page. */
const PROVIDER_SIGN_IN = `${SIGN_IN_START_PATH}?${RETURN_TO_PARAMETER}=${encodeURIComponent('/console/')}`;

/**
 * Sign-in: through the identity provider where one is set up (the page asks first, and offers
 * only what works), or with the project's console token, exchanged for a session; the token is
 * kept nowhere. A refused sign-in through the provider lands here with `failure`: the page says
 * what happened and puts the focus on signing in again.
 */
export function SignIn({
  onSignedIn,
  notice,
  failure,
  focus,
}: {
  onSignedIn: (session: Session) => void;
  /** Why the page is here, e.g. a session that ended. */
  notice?: string;
  /** What went wrong with a sign-in through the provider, in the page's words. */
  failure?: string;
  focus: boolean;
}) {
  const [provider, setProvider] = useState<boolean>();
  const again = useRef<HTMLAnchorElement>(null);
  useEffect(() => {
    void api.identityProvider().then(setProvider);
  }, []);
  useEffect(() => {
    if (failure) again.current?.focus();
  }, []);
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const tokenInput = useRef<HTMLInputElement>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await api.signIn(token.trim());
      setToken('');
      onSignedIn(session);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
      // The field, described by the reason, is where it gets fixed (the button was disabled meanwhile).
      tokenInput.current?.focus();
    }
  };
  return (
    <section class="sign-in" aria-labelledby="sign-in-heading">
      <PageHeading focus={focus && !failure}>
        <span id="sign-in-heading">Sign in to the console</span>
      </PageHeading>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {failure ? (
        <div class="sign-in-failed" role="alert">
          <h2>The sign-in did not finish</h2>
          <p id="sign-in-failure">{failure}</p>
          {/* A navigation, not a call: the console sends the browser to the identity provider. */}
          <a
            class="button-link primary"
            href={PROVIDER_SIGN_IN}
            ref={again}
            aria-describedby="sign-in-failure"
          >
            Sign in again
          </a>
        </div>
      ) : provider ? (
        <p class="sign-in-provider">
          <a class="button-link primary" href={PROVIDER_SIGN_IN}>
            Sign in with the identity provider
          </a>
        </p>
      ) : null}
      <p class="help">
        {provider || failure
          ? 'Or, until your project has an owner, with its console token:'
          : "Sign in with your project's console token:"}
      </p>
      <form onSubmit={(event) => void submit(event)} novalidate>
        <label for="console-token">Console token</label>
        <input
          id="console-token"
          ref={tokenInput}
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={token}
          aria-describedby={error ? 'console-token-help sign-in-error' : 'console-token-help'}
          aria-invalid={error ? true : undefined}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p id="console-token-help" class="help">
          The project's console token (<code>pct_…</code>): <code>npm start</code> prints the one of project{' '}
          <code>dev</code>, <code>npm run projects -- create</code> a new project's. It is used once, to start
          a session, and never kept by this page.
        </p>
        <ErrorMessage message={error} id="sign-in-error" />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
