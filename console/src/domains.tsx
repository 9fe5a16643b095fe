import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from './api';
import type { DomainView, Usage, Verification } from './contract';
import { age, CERTIFICATE_LABELS, ROLE_LABELS, STATE_LABELS, when } from './format';
import { PlanNote } from './overview';
import { Announce, ConfirmDialog, CopyButton, ErrorMessage, PageHeading } from './ui';

/** While a certificate is on its way the list is asked again this often (each ask also tries it). */
const PENDING_REFRESH_MS = 5_000;

const shown = (domain: DomainView) => domain.unicodeName ?? domain.name;
/** A name usable in an id: `shop.example.com` → `shop-example-com`. */
const idOf = (domain: DomainView) => domain.name.replace(/[^a-z0-9-]/g, '-');

function RecordTable({ domain }: { domain: DomainView }) {
  const { record, ownershipRecord: proof } = domain;
  return (
    <div class="record">
      <p>
        At your DNS provider, in the zone <strong>{record.zone}</strong>, create{' '}
        {proof ? 'these records: the second proves the domain is this project’s' : 'this record'}:
      </p>
      <table>
        <caption class="visually-hidden">
          DNS {proof ? 'records' : 'record'} for {shown(domain)}
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Value</th>
            <th scope="col">TTL</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>
              <code class="record-name">{record.name}</code>
              <CopyButton text={record.name} what={`the record name of ${shown(domain)}`} />
            </td>
            <td>
              <code class="record-type">{record.type}</code>
            </td>
            <td>
              <code class="record-value">{record.value}</code>
              <CopyButton text={record.value} what={`the record value of ${shown(domain)}`} />
            </td>
            <td>
              <code class="record-ttl">{record.ttl}</code>
            </td>
          </tr>
          {proof ? (
            <tr class="ownership-record">
              <td>
                <code class="record-name">{proof.name}</code>
                <CopyButton text={proof.name} what={`the TXT record name of ${shown(domain)}`} />
              </td>
              <td>
                <code class="record-type">{proof.type}</code>
              </td>
              <td>
                <code class="record-value">{proof.value}</code>
                <CopyButton text={proof.value} what={`the TXT record value of ${shown(domain)}`} />
              </td>
              <td>
                <code class="record-ttl">{proof.ttl}</code>
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {domain.apexFallback ? <p class="help">{domain.apexFallback}</p> : null}
    </div>
  );
}

/** The per-domain menu: a button that shows the domain's actions (a disclosure, Escape closes it). */
function DomainMenu({
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
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const menuId = `menu-${idOf(domain)}`;
  const choose = (action: () => void) => () => {
    setOpen(false);
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
        id={`menu-toggle-${idOf(domain)}`}
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={`Actions for ${shown(domain)}`}
        onClick={() => setOpen(!open)}
      >
        Actions <span aria-hidden="true">▾</span>
      </button>
      <ul id={menuId} hidden={!open}>
        {domain.role === 'primary' ? null : (
          <li>
            <button type="button" onClick={choose(onPrimary)}>
              Make primary
            </button>
          </li>
        )}
        {domain.role === 'redirect' ? null : (
          <li>
            <button type="button" onClick={choose(onRedirect)}>
              Make it a redirect
            </button>
          </li>
        )}
        <li>
          <button type="button" class="danger" onClick={choose(onRemove)}>
            Remove…
          </button>
        </li>
      </ul>
    </div>
  );
}

function DomainCard({
  domain,
  verification,
  onVerify,
  onPrimary,
  onRedirect,
  onRemove,
}: {
  domain: DomainView;
  verification: Verification | undefined;
  onVerify: () => void;
  onPrimary: () => void;
  onRedirect: () => void;
  onRemove: () => void;
}) {
  const id = idOf(domain);
  const firstTime = domain.state === 'pending-dns' && !verification;
  return (
    <li class="domain" id={`domain-${id}`} data-domain={domain.name}>
      <article aria-labelledby={`domain-name-${id}`}>
        <div class="domain-head">
          <h3 id={`domain-name-${id}`} tabIndex={-1}>
            {shown(domain)}
          </h3>
          <span class={`badge role-${domain.role}`}>{ROLE_LABELS[domain.role]}</span>
          <DomainMenu domain={domain} onPrimary={onPrimary} onRedirect={onRedirect} onRemove={onRemove} />
        </div>
        <dl class="facts">
          <dt>State</dt>
          <dd class="domain-state" data-state={domain.state}>
            {STATE_LABELS[domain.state]}, for {age(domain.secondsInState)} (since {when(domain.since)})
          </dd>
          <dt>Certificate</dt>
          <dd class="domain-certificate" data-certificate={domain.certificate}>
            {CERTIFICATE_LABELS[domain.certificate]}
          </dd>
          {domain.reason ? (
            <>
              <dt>Why</dt>
              <dd>{domain.reason}</dd>
            </>
          ) : null}
        </dl>
        {domain.notices.map((notice) => (
          <p key={notice} class="notice">
            {notice}
          </p>
        ))}
        {domain.troubleshooting ? (
          <div class="note troubleshooting">
            <h4>The certificate has not appeared after 30 minutes</h4>
            <ol>
              {domain.troubleshooting.map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ol>
          </div>
        ) : null}
        <RecordTable domain={domain} />
        <div class="actions">
          <button type="button" class="primary" onClick={onVerify}>
            {firstTime ? 'Verify' : 'Re-verify'}
          </button>
        </div>
        {/* Always there, so that what is put in it is read out. */}
        <div class="verdict" aria-live="polite" id={`verdict-${id}`}>
          {verification ? (
            <>
              <p class={verification.verified ? 'ok' : 'error'}>
                <strong>{verification.summary}</strong>
              </p>
              {verification.fix ? <p>{verification.fix}</p> : null}
            </>
          ) : null}
        </div>
      </article>
    </li>
  );
}

/** Add domain, then each domain with its record, verification, state, certificate and menu. */
export function Domains({ usage, focus }: { usage: Usage | undefined; focus: boolean }) {
  const announce = useContext(Announce);
  const [domains, setDomains] = useState<DomainView[]>();
  const [verifications, setVerifications] = useState<Record<string, Verification>>({});
  const [name, setName] = useState('');
  const [redirect, setRedirect] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [error, setError] = useState<string>();
  const [removing, setRemoving] = useState<DomainView>();
  const listHeading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    try {
      setDomains(await api.domains());
      setError(undefined);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  useEffect(() => void load(), []);
  const waiting = domains?.some(
    (domain) => domain.state === 'certificate-pending' || domain.state === 'verified',
  );
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void load(), PENDING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [waiting]);

  const act = async (what: () => Promise<unknown>, done: string) => {
    setError(undefined);
    try {
      await what();
      announce(done);
    } catch (failure) {
      setError(messageOf(failure));
    }
    await load();
  };
  const add = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    try {
      const added = await api.addDomain(name.trim(), redirect);
      setName('');
      setRedirect(false);
      announce(`${shown(added)} added: create its DNS record, then choose Verify.`);
      await load();
      document.getElementById(`domain-name-${idOf(added)}`)?.focus();
    } catch (failure) {
      setFormError(messageOf(failure));
    }
  };
  const verify = async (domain: DomainView) => {
    setError(undefined);
    try {
      const verification = await api.verifyDomain(domain.name);
      setVerifications((all) => ({ ...all, [domain.name]: verification }));
    } catch (failure) {
      setError(messageOf(failure));
    }
    // Asking again moves a pending certificate on.
    await load();
  };
  const remove = async (domain: DomainView) => {
    setRemoving(undefined);
    await act(() => api.removeDomain(domain.name), `${shown(domain)} removed: it no longer serves traffic.`);
    listHeading.current?.focus();
  };
  const redirectFirst = async (domain: DomainView) => {
    setRemoving(undefined);
    await act(
      () => api.makeRedirect(domain.name),
      `${shown(domain)} now redirects to the primary domain; remove it once its visitors have moved.`,
    );
  };

  const allowed = usage?.customDomains.allowed;
  return (
    <>
      <PageHeading focus={focus}>Domains</PageHeading>
      {usage && !allowed ? <PlanNote usage={usage} /> : null}
      {allowed ? (
        <section aria-labelledby="add-domain-heading">
          <h2 id="add-domain-heading">Add domain</h2>
          <form onSubmit={(event) => void add(event)} novalidate>
            <label for="domain-name">Domain or subdomain</label>
            <input
              id="domain-name"
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
      ) : null}
      <section aria-labelledby="domains-heading">
        <div class="section-head">
          <h2 id="domains-heading" ref={listHeading} tabIndex={-1}>
            Your domains
          </h2>
          <button type="button" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        <ErrorMessage message={error} />
        {domains === undefined ? (
          error ? null : (
            <p>Loading…</p>
          )
        ) : domains.length === 0 ? (
          <p>No custom domains yet.</p>
        ) : (
          <ul class="domains">
            {domains.map((domain) => (
              <DomainCard
                key={domain.name}
                domain={domain}
                verification={verifications[domain.name]}
                onVerify={() => void verify(domain)}
                onPrimary={() =>
                  void act(() => api.makePrimary(domain.name), `${shown(domain)} is now the primary domain.`)
                }
                onRedirect={() =>
                  void act(
                    () => api.makeRedirect(domain.name),
                    `${shown(domain)} now redirects to the primary domain.`,
                  )
                }
                onRemove={() => setRemoving(domain)}
              />
            ))}
          </ul>
        )}
      </section>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${shown(removing)}?`}
          onCancel={() => setRemoving(undefined)}
          actions={[
            ...(removing.role === 'redirect'
              ? []
              : [{ label: 'Make it a redirect first', run: () => void redirectFirst(removing) }]),
            { label: 'Remove domain', danger: true, run: () => void remove(removing) },
          ]}
        >
          <p>
            <strong>Traffic to {shown(removing)} stops immediately:</strong> visitors and API clients using it
            get errors from the moment it is removed.
          </p>
          {removing.role === 'redirect' ? null : (
            <p>
              To move visitors to another domain first, make it a redirect to the primary domain, and remove
              it later.
            </p>
          )}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
