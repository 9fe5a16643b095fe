import { useRef, useState } from 'preact/hooks';
import { RETURN_TO_PARAMETER, SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import { api, messageOf } from './api';
import type { Session } from './contract';
import { ErrorMessage, PageHeading } from './ui';

/** Where the identity provider's sign-in starts, returning to the console's page. */
const PROVIDER_SIGN_IN = `${SIGN_IN_START_PATH}?${RETURN_TO_PARAMETER}=${encodeURIComponent('/console/')}`;

/** Sign-in with the project's console token, exchanged for a session; the token is kept nowhere. */
export function SignIn({
  onSignedIn,
  notice,
  focus,
}: {
  onSignedIn: (session: Session) => void;
  /** Why the page is here, e.g. a session that ended. */
  notice?: string;
  focus: boolean;
}) {
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
      <PageHeading focus={focus}>
        <span id="sign-in-heading">Sign in to the console</span>
      </PageHeading>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <p class="sign-in-provider">
        {/* A navigation, not a call: the console sends the browser to the identity provider. */}
        <a class="button-link primary" href={PROVIDER_SIGN_IN}>
          Sign in with the identity provider
        </a>
      </p>
      <p class="help">Or, until your project has an owner, with its console token:</p>
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
