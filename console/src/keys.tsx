import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { ApiKey, IssuedKey } from './contract';
import { when } from './format';
import { Announce, ConfirmDialog, CopyButton, ErrorMessage, PageHeading } from './ui';

/** A new key's secret: shown this once, with a copy button and the warning. */
function NewSecret({ issued, onDone }: { issued: IssuedKey; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [issued.apiKey]);
  return (
    <section class="secret" ref={ref} tabIndex={-1} aria-labelledby="secret-heading">
      <h2 id="secret-heading">Key {issued.key.name}: copy it now</h2>
      <p class="warning">
        <strong>This is the only time the key is shown.</strong> The service keeps only its hash: store it
        somewhere safe now (a secret manager), then close this box.
        {issued.replaces
          ? ` It replaces key ${issued.replaces}, now revoked: calls with the old key are refused within a minute.`
          : ''}
      </p>
      <label for="new-api-key">API key</label>
      <div class="copyable">
        <input id="new-api-key" type="text" readOnly value={issued.apiKey} spellcheck={false} />
        <CopyButton text={issued.apiKey} what="the API key" />
      </div>
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

/** The project's keys: the list (never secrets), create, rotate, revoke. */
export function Keys({ focus }: { focus: boolean }) {
  const announce = useContext(Announce);
  const [keys, setKeys] = useState<ApiKey[]>();
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<IssuedKey>();
  const [error, setError] = useState<string>();
  const [formError, setFormError] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey>();
  const headingRef = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    try {
      setKeys(await api.keys());
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    try {
      const created = await api.createKey(name.trim());
      setName('');
      setIssued(created);
      await load();
    } catch (failure) {
      setFormError(messageOf(failure));
    }
  };
  const rotate = async (key: ApiKey) => {
    setError(undefined);
    try {
      setIssued(await api.rotateKey(key.keyId));
      await load();
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const revoke = async (key: ApiKey) => {
    setRevoking(undefined);
    setError(undefined);
    try {
      await api.revokeKey(key.keyId);
      announce(`Key ${key.name} revoked: calls with it are refused within a minute.`);
      await load();
    } catch (failure) {
      setError(messageOf(failure));
    }
    headingRef.current?.focus();
  };

  return (
    <>
      <PageHeading focus={focus}>API keys</PageHeading>
      <section aria-labelledby="create-key-heading">
        <h2 id="create-key-heading">Create a key</h2>
        <form onSubmit={(event) => void create(event)} novalidate>
          <label for="key-name">Name</label>
          <input
            id="key-name"
            name="name"
            type="text"
            autocomplete="off"
            required
            maxLength={64}
            value={name}
            aria-describedby={formError ? 'key-name-help key-error' : 'key-name-help'}
            aria-invalid={formError ? true : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <p id="key-name-help" class="help">
            What uses it, e.g. <code>ci</code> or <code>shop-frontend</code>.
          </p>
          <ErrorMessage message={formError} id="key-error" />
          <button type="submit" class="primary">
            Create key
          </button>
        </form>
      </section>
      {issued ? <NewSecret issued={issued} onDone={() => setIssued(undefined)} /> : null}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading" ref={headingRef} tabIndex={-1}>
          Keys
        </h2>
        <ErrorMessage message={error} />
        {keys === undefined ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <ul class="cards">
            {keys.map((key) => (
              <li key={key.keyId} class={key.revokedAt ? 'revoked' : ''} data-key-id={key.keyId}>
                <h3>{key.name}</h3>
                <dl class="facts">
                  <dt>Key id</dt>
                  <dd>
                    <code>{key.keyId}</code>
                  </dd>
                  <dt>Created</dt>
                  <dd>{when(key.createdAt)}</dd>
                  <dt>Status</dt>
                  <dd>{key.revokedAt ? `Revoked ${when(key.revokedAt)}` : 'Active'}</dd>
                </dl>
                {key.revokedAt ? null : (
                  <div class="actions">
                    <button
                      type="button"
                      aria-label={`Rotate key ${key.name}`}
                      onClick={() => void rotate(key)}
                    >
                      Rotate
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke key ${key.name}`}
                      onClick={() => setRevoking(key)}
                    >
                      Revoke
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      {revoking ? (
        <ConfirmDialog
          title={`Revoke key ${revoking.name}?`}
          onCancel={() => setRevoking(undefined)}
          actions={[{ label: 'Revoke key', danger: true, run: () => void revoke(revoking) }]}
        >
          <p>
            Calls with this key are refused (401) within a minute at most: the service keeps keys in its
            caches briefly. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
