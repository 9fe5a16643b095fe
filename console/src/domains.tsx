import { useContext, useEffect, useState } from 'preact/hooks';
import { CONFIRM_PARAMETER, REMOVE_CONFIRMATION } from '../../lambda/api/console-routes';
import { api, messageOf } from './api';
import type { DomainView, Usage, Verification } from './contract';
import { AddDomain } from './add-domain';
import { DomainMenu, idOf, menuToggleId, RemoveDialog, shown } from './domain-actions';
import { age, CERTIFICATE_LABELS, ROLE_LABELS, STATE_LABELS, when } from './format';
import { PlanNote } from './overview';
import {
  Announce,
  CopyButton,
  ErrorMessage,
  focusById,
  PageHeading,
  type Refusal,
  RefusalMessage,
  refusalOf,
} from './ui';
import { useCan } from './permissions';

/** While a certificate is on its way the list is asked again this often (each ask also tries it). */
const PENDING_REFRESH_MS = 5_000;

/** A refusal of an action on a domain, and whether it came from its menu or from Verify. */
interface DomainRefusal {
  readonly refusal: Refusal;
  readonly at: 'menu' | 'verify';
}

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

function DomainCard({
  domain,
  verification,
  refused,
  onVerify,
  onPrimary,
  onRedirect,
  onRemove,
}: {
  domain: DomainView;
  verification: Verification | undefined;
  refused: DomainRefusal | undefined;
  onVerify: () => void;
  onPrimary: () => void;
  onRedirect: () => void;
  onRemove: () => void;
}) {
  const can = useCan();
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
          {can('removeDomains') || can('setDomainRoles') ? (
            <DomainMenu domain={domain} onPrimary={onPrimary} onRedirect={onRedirect} onRemove={onRemove} />
          ) : null}
        </div>
        <RefusalMessage refusal={refused?.at === 'menu' ? refused.refusal : undefined} id={`refusal-${id}`} />
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
        {can('manageDomains') ? (
          <div class="actions">
            <button type="button" class="primary" onClick={onVerify}>
              {firstTime ? 'Verify' : 'Re-verify'}
            </button>
          </div>
        ) : null}
        <RefusalMessage
          refusal={refused?.at === 'verify' ? refused.refusal : undefined}
          id={`refusal-${id}`}
        />
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

/**
 * Add domain, then each domain with its record, verification, state, certificate and menu. A
 * refused action shows the service's reason at the domain (or in the dialog it came from), with
 * the focus, and keeps it when the list is read again; a successful one puts the focus back on
 * the domain's Actions button (the card may have moved: the list is ordered by role).
 */
export function Domains({
  usage,
  focus,
  onShown,
}: {
  usage: Usage | undefined;
  focus: boolean;
  /** Called when the page is shown: it reads usage again (the plan decides the Add form). */
  onShown: () => void;
}) {
  const announce = useContext(Announce);
  const [domains, setDomains] = useState<readonly DomainView[]>();
  const [verifications, setVerifications] = useState<Record<string, Verification>>({});
  const [refusals, setRefusals] = useState<Record<string, DomainRefusal>>({});
  /** A refusal for a domain the list no longer has (removed elsewhere): shown above the list. */
  const [listRefusal, setListRefusal] = useState<Refusal>();
  const [error, setError] = useState<string>();
  const [removing, setRemoving] = useState<DomainView>();

  /** Reads the list; the list read, or undefined when it could not be. */
  const load = async (): Promise<readonly DomainView[] | undefined> => {
    try {
      const listed = (await api.call('listDomains')).domains;
      setDomains(listed);
      setError(undefined);
      return listed;
    } catch (failure) {
      setError(messageOf(failure));
      return undefined;
    }
  };
  useEffect(() => {
    onShown();
    void load();
  }, []);
  const waiting = domains?.some(
    (domain) => domain.state === 'certificate-pending' || domain.state === 'verified',
  );
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void load(), PENDING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [waiting]);

  const settle = (domain: DomainView) => {
    setListRefusal(undefined);
    setRefusals((all) => Object.fromEntries(Object.entries(all).filter(([name]) => name !== domain.name)));
  };
  /** Shows a refusal at the domain once the list is read again, or above the list if it is gone. */
  const refuse = async (domain: DomainView, refusal: Refusal, at: DomainRefusal['at']) => {
    const listed = await load();
    if (listed?.some((other) => other.name === domain.name)) {
      setRefusals((all) => ({ ...all, [domain.name]: { refusal, at } }));
    } else {
      setListRefusal(refusal);
    }
  };
  /** Runs an action on a domain; its refusal, if refused (not yet shown). */
  const attempt = async (
    domain: DomainView,
    what: () => Promise<unknown>,
    done: string,
  ): Promise<Refusal | undefined> => {
    settle(domain);
    try {
      await what();
    } catch (failure) {
      return refusalOf(failure);
    }
    announce(done);
    return undefined;
  };
  /** An action from the domain's menu: a refusal at the domain, else the focus back on its menu. */
  const fromMenu = async (domain: DomainView, what: () => Promise<unknown>, done: string) => {
    const refused = await attempt(domain, what, done);
    if (refused) return refuse(domain, refused, 'menu');
    await load();
    focusById(menuToggleId(domain));
  };
  const verify = async (domain: DomainView) => {
    settle(domain);
    try {
      const verification = await api.call('verifyDomain', { path: { name: domain.name } });
      setVerifications((all) => ({ ...all, [domain.name]: verification }));
    } catch (failure) {
      return refuse(domain, refusalOf(failure), 'verify');
    }
    // Asking again moves a pending certificate on.
    await load();
  };
  /** The Remove dialog's actions: a refusal stays in the dialog; else it closes and the list is read again. */
  const remove = async (domain: DomainView) => {
    const refused = await attempt(
      domain,
      () =>
        api.call('removeDomain', {
          path: { name: domain.name },
          query: { [CONFIRM_PARAMETER]: REMOVE_CONFIRMATION },
        }),
      `${shown(domain)} removed: it no longer serves traffic.`,
    );
    if (refused) {
      void load();
      return refused;
    }
    setRemoving(undefined);
    await load();
    focusById('domains-heading');
    return undefined;
  };
  const redirectFirst = async (domain: DomainView) => {
    const refused = await attempt(
      domain,
      () => api.call('makeRedirectDomain', { path: { name: domain.name } }),
      `${shown(domain)} now redirects to the primary domain; remove it once its visitors have moved.`,
    );
    if (refused) {
      void load();
      return refused;
    }
    setRemoving(undefined);
    await load();
    focusById(menuToggleId(domain));
    return undefined;
  };

  const can = useCan();
  const allowed = usage?.customDomains.allowed;
  return (
    <>
      <PageHeading focus={focus}>Domains</PageHeading>
      {usage && !allowed ? <PlanNote usage={usage} /> : null}
      {allowed && can('manageDomains') ? (
        <AddDomain
          onAdded={async (added) => {
            await load();
            focusById(`domain-name-${idOf(added)}`);
          }}
        />
      ) : null}
      <section aria-labelledby="domains-heading">
        <div class="section-head">
          <h2 id="domains-heading" tabIndex={-1}>
            Your domains
          </h2>
          <button type="button" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        <ErrorMessage message={error} />
        <RefusalMessage refusal={listRefusal} id="domains-refusal" />
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
                refused={refusals[domain.name]}
                onVerify={() => void verify(domain)}
                onPrimary={() =>
                  void fromMenu(
                    domain,
                    () => api.call('setPrimaryDomain', { path: { name: domain.name } }),
                    `${shown(domain)} is now the primary domain.`,
                  )
                }
                onRedirect={() =>
                  void fromMenu(
                    domain,
                    () => api.call('makeRedirectDomain', { path: { name: domain.name } }),
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
        <RemoveDialog
          domain={removing}
          onCancel={() => setRemoving(undefined)}
          onRedirectFirst={() => redirectFirst(removing)}
          onRemove={() => remove(removing)}
        />
      ) : null}
    </>
  );
}
