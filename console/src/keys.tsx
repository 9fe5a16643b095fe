import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { ApiKey, IssuedKey } from './contract';
import { when } from './format';
import {
  Announce,
  ConfirmDialog,
  ShownOnce,
  ErrorMessage,
  focusById,
  PageHeading,
  type Refusal,
  RefusalMessage,
  refusalOf,
} from './ui';
import { useCan } from './permissions';

/** The id of a key's name in the list, where the focus goes once its shown-once box is closed. */
const keyNameId = (keyId: string) => `key-title-${keyId}`;

/** A new key's secret: shown this once, with a copy button and the warning. */
function NewSecret({ issued, onDone }: { issued: IssuedKey; onDone: () => void }) {
  return (
    <ShownOnce
      headingId="secret-heading"
      heading={`Key ${issued.key.name}: copy it now`}
      warning={
        <>
          <strong>This is the only time the key is shown.</strong> The service keeps only its hash: store it
          somewhere safe now (a secret manager), then close this box.
          {issued.replaces
            ? ` It replaces key ${issued.replaces}, now revoked: calls with the old key are refused within a minute.`
            : ''}
        </>
      }
      inputId="new-api-key"
      label="API key"
      value={issued.apiKey}
      what="the API key"
    >
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </ShownOnce>
  );
}

/**
 * The project's keys: the list (never secrets), create, rotate, revoke. A refusal is shown where
 * the action was (under the field, at the key, in the dialog), with the focus.
 */
export function Keys({ focus }: { focus: boolean }) {
  const can = useCan();
  const announce = useContext(Announce);
  const [keys, setKeys] = useState<readonly ApiKey[]>();
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<IssuedKey>();
  const [error, setError] = useState<string>();
  const [formError, setFormError] = useState<string>();
  const [revoking, setRevoking] = useState<ApiKey>();
  /** The refusal of an action on a key, by key id. */
  const [refused, setRefused] = useState<{ keyId: string; refusal: Refusal }>();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  const load = async () => {
    try {
      setKeys((await api.call('listKeys')).keys);
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    try {
      const created = await api.call('createKey', { body: { name: name.trim() } });
      setName('');
      // The list first, so that the key is in it when its box is closed.
      await load();
      setIssued(created);
    } catch (failure) {
      setFormError(messageOf(failure));
      // The field, described by the reason, is where it gets fixed.
      nameInput.current?.focus();
    }
  };
  const rotate = async (key: ApiKey) => {
    setRefused(undefined);
    let rotated: IssuedKey;
    try {
      rotated = await api.call('rotateKey', { path: { keyId: key.keyId } });
    } catch (failure) {
      const refusal = refusalOf(failure);
      await load();
      setRefused({ keyId: key.keyId, refusal });
      return;
    }
    await load();
    setIssued(rotated);
  };
  /** The Revoke dialog's action: a refusal stays in the dialog. */
  const revoke = async (key: ApiKey): Promise<Refusal | undefined> => {
    setRefused(undefined);
    try {
      await api.call('revokeKey', { path: { keyId: key.keyId } });
    } catch (failure) {
      void load();
      return refusalOf(failure);
    }
    setRevoking(undefined);
    announce(`Key ${key.name} revoked: calls with it are refused within a minute.`);
    await load();
    headingRef.current?.focus();
    return undefined;
  };
  /** The shown-once box closed: the focus goes to the key in the list, which the box was about. */
  const stored = (keyId: string) => {
    if (!focusById(keyNameId(keyId))) headingRef.current?.focus();
    setIssued(undefined);
  };

  return (
    <>
      <PageHeading focus={focus}>API keys</PageHeading>
      {can('manageKeys') ? (
        <section aria-labelledby="create-key-heading">
          <h2 id="create-key-heading">Create a key</h2>
          <form onSubmit={(event) => void create(event)} novalidate>
            <label for="key-name">Name</label>
            <input
              id="key-name"
              ref={nameInput}
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
      ) : null}
      {issued ? <NewSecret issued={issued} onDone={() => stored(issued.key.keyId)} /> : null}
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
                <h3 id={keyNameId(key.keyId)} tabIndex={-1}>
                  {key.name}
                </h3>
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
                <RefusalMessage
                  refusal={refused?.keyId === key.keyId ? refused.refusal : undefined}
                  id={`refusal-key-${key.keyId}`}
                />
                {key.revokedAt || !can('manageKeys') ? null : (
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
          actions={[{ label: 'Revoke key', danger: true, run: () => revoke(revoking) }]}
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
