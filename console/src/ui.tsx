import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from './api';

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

/**
 * A secret shown this once (an API key, a personal token): focused when it appears, with the
 * warning, a copy button, and what follows (at least the button that closes it).
 */
export function ShownOnce({
  headingId,
  heading,
  warning,
  inputId,
  label,
  value,
  what,
  children,
}: {
  readonly headingId: string;
  readonly heading: string;
  readonly warning: ComponentChildren;
  readonly inputId: string;
  readonly label: string;
  readonly value: string;
  /** What the copy button copies, in words ("the API key"). */
  readonly what: string;
  readonly children: ComponentChildren;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [value]);
  return (
    <section class="secret" ref={ref} tabIndex={-1} aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      <p class="warning">{warning}</p>
      <label for={inputId}>{label}</label>
      <div class="copyable">
        <input id={inputId} type="text" readOnly value={value} spellcheck={false} />
        <CopyButton text={value} what={what} />
      </div>
      {children}
    </section>
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

/**
 * The service's refusal of something the person did. A new object for each refusal, so that
 * the same words twice take the focus twice.
 */
export interface Refusal {
  readonly message: string;
}

export const refusalOf = (failure: unknown): Refusal => ({ message: messageOf(failure) });

/**
 * A refusal shown where the action was. It takes the focus when it appears (unless `focus` is
 * false), so that the person sees and hears at once why nothing happened; `role=alert` reads it
 * where the focus stays elsewhere. `children`, when given, word it instead of its message.
 */
export function RefusalMessage({
  refusal,
  id,
  focus = true,
  children,
}: {
  refusal: Refusal | undefined;
  id: string;
  focus?: boolean;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLParagraphElement>(null);
  // Before the browser paints: it is never seen without the focus.
  useLayoutEffect(() => {
    if (refusal && focus) ref.current?.focus();
  }, [refusal]);
  if (!refusal) return null;
  return (
    <p class="error refusal" role="alert" id={id} ref={ref} tabIndex={-1}>
      {children ?? refusal.message}
    </p>
  );
}

export interface DialogAction {
  readonly label: string;
  /** Runs the action: a refusal keeps the dialog open and shows it; else the page closes the dialog. */
  readonly run: () => Promise<Refusal | undefined>;
  readonly danger?: boolean;
}

/** Focuses the element of that id, if it is there; whether it did. */
export function focusById(id: string): boolean {
  const element = document.getElementById(id);
  element?.focus();
  return element !== null && document.activeElement === element;
}

/**
 * A modal confirmation (`<dialog>` with showModal: focus stays inside, Escape cancels). The
 * safe choice, Cancel, has the focus first. A refused action shows the service's reason in the
 * dialog, with the focus. When the dialog goes, the focus goes back to what had it before,
 * unless the page has moved it on.
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
  const [refusal, setRefusal] = useState<Refusal>();
  const running = useRef(false);
  const mounted = useRef(true);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement;
    if (!dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      mounted.current = false;
      const moved = document.activeElement !== document.body && !dialog.contains(document.activeElement);
      if (dialog.open) dialog.close();
      if (!moved && opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  const run = async (action: DialogAction) => {
    // One action at a time: a second click while the first runs does nothing.
    if (running.current) return;
    running.current = true;
    setRefusal(undefined);
    const refused = await action.run();
    running.current = false;
    if (refused && mounted.current) setRefusal(refused);
  };
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
      <RefusalMessage refusal={refusal} id="dialog-refusal" />
      <div class="actions">
        <button type="button" ref={cancelRef} onClick={onCancel}>
          Cancel
        </button>
        {actions.map((action) => (
          <button
            key={action.label}
            type="button"
            class={action.danger ? 'danger' : ''}
            onClick={() => void run(action)}
          >
            {action.label}
          </button>
        ))}
      </div>
    </dialog>
  );
}
