import { useContext, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { DomainView } from './contract';
import { shown } from './domain-actions';
import { Announce, ErrorMessage } from './ui';

/**
 * The Add domain form. A refusal is shown under the field, which takes the focus back and is
 * described by it: the field is where it gets fixed.
 */
export function AddDomain({ onAdded }: { onAdded: (added: DomainView) => Promise<void> }) {
  const announce = useContext(Announce);
  const [name, setName] = useState('');
  const [redirect, setRedirect] = useState(false);
  const [formError, setFormError] = useState<string>();
  const nameInput = useRef<HTMLInputElement>(null);

  const add = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    let added: DomainView;
    try {
      added = await api.call('addDomain', {
        body: redirect ? { name: name.trim(), redirect } : { name: name.trim() },
      });
    } catch (failure) {
      setFormError(messageOf(failure));
      nameInput.current?.focus();
      return;
    }
    setName('');
    setRedirect(false);
    announce(`${shown(added)} added: create its DNS record, then choose Verify.`);
    await onAdded(added);
  };

  return (
    <section aria-labelledby="add-domain-heading">
      <h2 id="add-domain-heading">Add domain</h2>
      <form onSubmit={(event) => void add(event)} novalidate>
        <label for="domain-name">Domain or subdomain</label>
        <input
          id="domain-name"
          ref={nameInput}
          name="name"
          type="text"
          inputMode="url"
          autocomplete="off"
          autocapitalize="none"
          spellcheck={false}
          required
          value={name}
          aria-describedby={formError ? 'domain-name-help domain-error' : 'domain-name-help'}
          aria-invalid={formError ? true : undefined}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <p id="domain-name-help" class="help">
          e.g. <code>shop.example.com</code>. The page then shows the DNS record to create.
        </p>
        <div class="check">
          <input
            id="domain-redirect"
            type="checkbox"
            checked={redirect}
            onChange={(event) => setRedirect(event.currentTarget.checked)}
          />
          <label for="domain-redirect">Redirect it to the primary domain (301)</label>
        </div>
        <ErrorMessage message={formError} id="domain-error" />
        <button type="submit" class="primary">
          Add domain
        </button>
      </form>
    </section>
  );
}
