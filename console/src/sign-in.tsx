import { useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { Session } from './contract';
import { ErrorMessage, PageHeading } from './ui';

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
