import type { ComponentChildren, RefObject, VNode } from 'preact';
import { useContext, useState } from 'preact/hooks';
import { Announce, ConfirmDialog, ErrorMessage, focusById, type Refusal, refusalOf } from './ui';

/**
 * What the API keys and personal tokens pages share: the name field of the form that makes one,
 * the list of them as cards (never the secrets themselves), and revoking one after asking. `kind`
 * makes the ids (`key-title-…`, `data-token-id`, `token-error`) that focus moves and tests use.
 */

export type SecretKind = 'key' | 'token';

/** The id of a secret's name in the list, where the focus goes once its shown-once box is closed. */
const titleId = (kind: SecretKind, id: string) => `${kind}-title-${id}`;

/** The shown-once box closed: the focus goes to the secret in the list, or to the list's heading. */
export function focusSecret(
  kind: SecretKind,
  id: string,
  heading: RefObject<HTMLHeadingElement | null>,
): void {
  if (!focusById(titleId(kind, id))) heading.current?.focus();
}

/** The new secret's name: a refusal of the form is shown under it, and describes it. */
export function SecretNameField({
  kind,
  value,
  maxLength,
  error,
  inputRef,
  onInput,
  help,
}: {
  kind: SecretKind;
  value: string;
  maxLength: number;
  error: string | undefined;
  inputRef: RefObject<HTMLInputElement | null>;
  onInput: (value: string) => void;
  help: ComponentChildren;
}) {
  const helpId = `${kind}-name-help`;
  const errorId = `${kind}-error`;
  return (
    <>
      <label for={`${kind}-name`}>Name</label>
      <input
        id={`${kind}-name`}
        ref={inputRef}
        name="name"
        type="text"
        autocomplete="off"
        required
        maxLength={maxLength}
        value={value}
        aria-describedby={error ? `${helpId} ${errorId}` : helpId}
        aria-invalid={error ? true : undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <p id={helpId} class="help">
        {help}
      </p>
      <ErrorMessage message={error} id={errorId} />
    </>
  );
}

/**
 * The list of a kind of secret: its heading (where the focus goes after a revocation), why it
 * could not be read, or the cards.
 */
export function SecretList<T>({
  headingId,
  headingRef,
  heading,
  failure,
  failed,
  items,
  empty,
  children,
}: {
  headingId: string;
  headingRef: RefObject<HTMLHeadingElement | null>;
  heading: ComponentChildren;
  /** Why the list could not be read, as the page shows it. */
  failure: ComponentChildren;
  failed: boolean;
  items: readonly T[] | undefined;
  empty: string;
  children: (item: T) => VNode;
}) {
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {heading}
      </h2>
      {failure}
      {items === undefined ? (
        failed ? null : (
          <p>Loading…</p>
        )
      ) : items.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <ul class="cards">{items.map(children)}</ul>
      )}
    </section>
  );
}

/** One secret's card: its name (a focus target), its facts, then what follows (refusals, actions). */
export function SecretCard({
  kind,
  id,
  name,
  inactive,
  facts,
  children,
}: {
  kind: SecretKind;
  id: string;
  name: string;
  /** Revoked or expired: shown apart, with no actions. */
  inactive: boolean;
  facts: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <li class={inactive ? 'revoked' : ''} {...{ [`data-${kind}-id`]: id }}>
      <h3 id={titleId(kind, id)} tabIndex={-1}>
        {name}
      </h3>
      <dl class="facts">{facts}</dl>
      {children}
    </li>
  );
}

/** A card's Revoke button, named with what it revokes. */
export function RevokeButton({
  kind,
  name,
  onClick,
}: {
  kind: SecretKind;
  name: string;
  onClick: () => void;
}) {
  return (
    <button type="button" class="danger" aria-label={`Revoke ${kind} ${name}`} onClick={onClick}>
      Revoke
    </button>
  );
}

/**
 * Revoking a secret after asking: `ask` opens the confirmation, `dialog` is it (or null). A
 * refusal stays in the dialog, and the list is read again; once revoked, the dialog closes, the
 * revocation is announced and the focus goes to the list's heading.
 */
export function useRevocation<T extends { readonly name: string }>({
  kind,
  revoke,
  reload,
  announcement,
  consequence,
  headingRef,
}: {
  kind: SecretKind;
  revoke: (item: T) => Promise<unknown>;
  reload: () => Promise<void>;
  announcement: (item: T) => string;
  /** What revoking it does, said in the dialog. */
  consequence: ComponentChildren;
  headingRef: RefObject<HTMLHeadingElement | null>;
}): { ask: (item: T) => void; dialog: VNode | null } {
  const announce = useContext(Announce);
  const [revoking, setRevoking] = useState<T>();
  const run = async (item: T): Promise<Refusal | undefined> => {
    try {
      await revoke(item);
    } catch (failure) {
      void reload();
      return refusalOf(failure);
    }
    setRevoking(undefined);
    announce(announcement(item));
    await reload();
    headingRef.current?.focus();
    return undefined;
  };
  const dialog = revoking ? (
    <ConfirmDialog
      title={`Revoke ${kind} ${revoking.name}?`}
      onCancel={() => setRevoking(undefined)}
      actions={[{ label: `Revoke ${kind}`, danger: true, run: () => run(revoking) }]}
    >
      {consequence}
    </ConfirmDialog>
  ) : null;
  return { ask: setRevoking, dialog };
}
