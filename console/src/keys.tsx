import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { ApiKey, IssuedKey } from './contract';
import { when } from './format';
import { ShownOnce, ErrorMessage, PageHeading, type Refusal, RefusalMessage, refusalOf } from './ui';
import { useCan } from './permissions';
import { focusSecret, RevokeButton, SecretCard, SecretList, SecretNameField, useRevocation } from './secrets';

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
  const [keys, setKeys] = useState<readonly ApiKey[]>();
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<IssuedKey>();
  const [error, setError] = useState<string>();
  const [formError, setFormError] = useState<string>();
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
  const revocation = useRevocation<ApiKey>({
    kind: 'key',
    revoke: (key) => {
      setRefused(undefined);
      return api.call('revokeKey', { path: { keyId: key.keyId } });
    },
    reload: load,
    announcement: (key) => `Key ${key.name} revoked: calls with it are refused within a minute.`,
    consequence: (
      <p>
        Calls with this key are refused (401) within a minute at most: the service keeps keys in its caches
        briefly. This cannot be undone.
      </p>
    ),
    headingRef,
  });
  /** The shown-once box closed: the focus goes to the key in the list, which the box was about. */
  const stored = (keyId: string) => {
    focusSecret('key', keyId, headingRef);
    setIssued(undefined);
  };

  return (
    <>
      <PageHeading focus={focus}>API keys</PageHeading>
      {can('manageKeys') ? (
        <section aria-labelledby="create-key-heading">
          <h2 id="create-key-heading">Create a key</h2>
          <form onSubmit={(event) => void create(event)} novalidate>
            <SecretNameField
              kind="key"
              value={name}
              maxLength={64}
              error={formError}
              inputRef={nameInput}
              onInput={setName}
              help={
                <>
                  What uses it, e.g. <code>ci</code> or <code>shop-frontend</code>.
                </>
              }
            />
            <button type="submit" class="primary">
              Create key
            </button>
          </form>
        </section>
      ) : null}
      {issued ? <NewSecret issued={issued} onDone={() => stored(issued.key.keyId)} /> : null}
      <SecretList
        headingId="keys-heading"
        headingRef={headingRef}
        heading="Keys"
        failure={<ErrorMessage message={error} />}
        failed={error !== undefined}
        items={keys}
        empty="No keys yet."
      >
        {(key) => (
          <SecretCard
            key={key.keyId}
            kind="key"
            id={key.keyId}
            name={key.name}
            inactive={Boolean(key.revokedAt)}
            facts={
              <>
                <dt>Key id</dt>
                <dd>
                  <code>{key.keyId}</code>
                </dd>
                <dt>Created</dt>
                <dd>{when(key.createdAt)}</dd>
                <dt>Status</dt>
                <dd>{key.revokedAt ? `Revoked ${when(key.revokedAt)}` : 'Active'}</dd>
              </>
            }
          >
            <RefusalMessage
              refusal={refused?.keyId === key.keyId ? refused.refusal : undefined}
              id={`refusal-key-${key.keyId}`}
            />
            {key.revokedAt || !can('manageKeys') ? null : (
              <div class="actions">
                <button type="button" aria-label={`Rotate key ${key.name}`} onClick={() => void rotate(key)}>
                  Rotate
                </button>
                <RevokeButton kind="key" name={key.name} onClick={() => revocation.ask(key)} />
              </div>
            )}
          </SecretCard>
        )}
      </SecretList>
      {revocation.dialog}
    </>
  );
}
