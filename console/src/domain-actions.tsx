import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { DomainView } from './contract';
import { ConfirmDialog, type Refusal } from './ui';
import { useCan } from './permissions';

/** A domain's actions: its menu, and the dialog that removes it. */

export const shown = (domain: DomainView) => domain.unicodeName ?? domain.name;
/** A name usable in an id: `shop.example.com` → `shop-example-com`. */
export const idOf = (domain: DomainView) => domain.name.replace(/[^a-z0-9-]/g, '-');
/** The id of the domain's Actions button, where the focus goes back after its actions. */
export const menuToggleId = (domain: DomainView) => `menu-toggle-${idOf(domain)}`;

/**
 * Whether the domain may become a redirect, now or once it serves: never the primary, which
 * redirects point at (it first has to stop being the primary).
 */
export const canRedirect = (domain: DomainView) => domain.role === 'additional';

/**
 * The per-domain menu: a button that shows the domain's actions (a disclosure; Escape closes
 * it). Only actions that can apply to the domain are offered; choosing one puts the focus back
 * on the button, since the item chosen is hidden with the menu.
 */
export function DomainMenu({
  domain,
  onPrimary,
  onRedirect,
  onRemove,
}: {
  domain: DomainView;
  onPrimary: () => void;
  onRedirect: () => void;
  onRemove: () => void;
}) {
  const can = useCan();
  const [open, setOpen] = useState(false);
  const [alignStart, setAlignStart] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const menuId = `menu-${idOf(domain)}`;
  // The menu hangs from the button's right edge; where that would cross the window's left edge
  // (on a narrow screen the button wraps to the left of the card), it hangs from its left edge.
  useLayoutEffect(() => {
    const toggle = toggleRef.current;
    const list = listRef.current;
    if (!open || !toggle || !list) return;
    setAlignStart(toggle.getBoundingClientRect().right - list.offsetWidth < 0);
  }, [open]);
  const choose = (action: () => void) => () => {
    setOpen(false);
    toggleRef.current?.focus();
    action();
  };
  return (
    <div
      class="menu"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && open) {
          setOpen(false);
          toggleRef.current?.focus();
        }
      }}
    >
      <button
        type="button"
        ref={toggleRef}
        id={menuToggleId(domain)}
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={`Actions for ${shown(domain)}`}
        onClick={() => setOpen(!open)}
      >
        Actions <span aria-hidden="true">▾</span>
      </button>
      <ul id={menuId} ref={listRef} hidden={!open} class={alignStart ? 'align-start' : undefined}>
        {domain.role === 'primary' || !can('setDomainRoles') ? null : (
          <li>
            <button type="button" onClick={choose(onPrimary)}>
              Make primary
            </button>
          </li>
        )}
        {canRedirect(domain) && can('setDomainRoles') ? (
          <li>
            <button type="button" onClick={choose(onRedirect)}>
              Make it a redirect
            </button>
          </li>
        ) : null}
        {can('removeDomains') ? (
          <li>
            <button type="button" class="danger" onClick={choose(onRemove)}>
              Remove…
            </button>
          </li>
        ) : null}
      </ul>
    </div>
  );
}

/**
 * Asks before removing a domain: traffic to it stops at once. Offers to make it a redirect
 * first where it can be one. A refusal stays in the dialog; Cancel goes back to the menu's button
 * (which has the focus when the menu opens the dialog).
 */
export function RemoveDialog({
  domain,
  onCancel,
  onRedirectFirst,
  onRemove,
}: {
  domain: DomainView;
  onCancel: () => void;
  onRedirectFirst: () => Promise<Refusal | undefined>;
  onRemove: () => Promise<Refusal | undefined>;
}) {
  const redirectFirst = canRedirect(domain);
  return (
    <ConfirmDialog
      title={`Remove ${shown(domain)}?`}
      onCancel={onCancel}
      actions={[
        ...(redirectFirst ? [{ label: 'Make it a redirect first', run: onRedirectFirst }] : []),
        { label: 'Remove domain', danger: true, run: onRemove },
      ]}
    >
      <p>
        <strong>Traffic to {shown(domain)} stops immediately:</strong> visitors and API clients using it get
        errors from the moment it is removed.
      </p>
      {redirectFirst ? (
        <p>
          To move visitors to another domain first, make it a redirect to the primary domain, and remove it
          later.
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
