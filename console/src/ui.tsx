import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';

/** Small parts every page uses: the announcer, copy buttons, the confirmation dialog, headings that take focus. */

/** Says something to screen readers through the page's one polite live region. */
export const Announce = createContext<(message: string) => void>(() => undefined);

/** The page's heading: it takes the focus when the page was reached by navigation, so a reader starts there. */
export function PageHeading({ children, focus }: { children: ComponentChildren; focus: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Copies `text`; says whether it worked (the clipboard can be refused: then the text is there to select). */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const announce = useContext(Announce);
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      announce(`Copied ${what}.`);
    } catch {
      announce(`Could not copy ${what}: select it and copy it yourself.`);
    }
  };
  return (
    // The visible word starts the accessible name (a speech-input user says what they see).
    <button type="button" class="copy" onClick={() => void copy()}>
      {done ? 'Copied' : 'Copy'}
      <span class="visually-hidden"> {what}</span>
    </button>
  );
}

/** A readable error next to what caused it; `role=alert` so it is read at once. */
export function ErrorMessage({ message, id }: { message: string | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p class="error" role="alert" id={id}>
      {message}
    </p>
  );
}

export interface DialogAction {
  readonly label: string;
  readonly run: () => void;
  readonly danger?: boolean;
}

/**
 * A modal confirmation (`<dialog>` with showModal: focus stays inside, Escape cancels). The
 * safe choice, Cancel, has the focus first.
 */
export function ConfirmDialog({
  title,
  children,
  actions,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  actions: readonly DialogAction[];
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // Where the focus goes back to when the dialog goes, if the page did not move it on.
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby="dialog-title"
      aria-describedby="dialog-body"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      <div id="dialog-body">{children}</div>
      <div class="actions">
        <button type="button" ref={cancelRef} onClick={onCancel}>
          Cancel
        </button>
        {actions.map((action) => (
          <button key={action.label} type="button" class={action.danger ? 'danger' : ''} onClick={action.run}>
            {action.label}
          </button>
        ))}
      </div>
    </dialog>
  );
}
