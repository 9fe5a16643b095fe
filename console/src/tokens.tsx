import { useEffect, useRef, useState } from 'preact/hooks';
import type { Role } from '../../lambda/core/permissions';
import {
  type IssuedPersonalToken,
  MAX_TOKEN_DAYS,
  MAX_TOKEN_NAME,
  type PersonalTokenView,
  rolesUpTo,
} from '../../lambda/core/personal-token-views';
import { api, messageOf } from './api';
import type { Session } from './contract';
import { when } from './format';
import { ShownOnce, PageHeading, type Refusal, RefusalMessage, refusalOf } from './ui';
import { useCan } from './permissions';
import { focusSecret, RevokeButton, SecretCard, SecretList, SecretNameField, useRevocation } from './secrets';

/**
 * Personal access tokens (issue 28): a member's tokens for tools (`npm run domains` reads one from
 * ANIMAL_STORE_TOKEN), made with a name, a role at most theirs and an expiry; the text shown once;
 * the list with last use; revoke with a confirmation. An owner (manageTokens) sees and revokes
 * everyone's. Every refusal is shown where the action was, with the focus.
 */

const EXPIRIES = [7, 30, 90, MAX_TOKEN_DAYS] as const;

/** A new token's text: shown this once, with a copy button and the warning. */
function NewToken({ issued, onDone }: { issued: IssuedPersonalToken; onDone: () => void }) {
  return (
    <ShownOnce
      headingId="token-secret-heading"
      heading={`Token ${issued.personalToken.name}: copy it now`}
      warning={
        <>
          <strong>This is the only time the token is shown.</strong> The service keeps only its hash: store it
          somewhere safe now, then close this box. Tools read it from <code>ANIMAL_STORE_TOKEN</code>.
        </>
      }
      inputId="new-personal-token"
      label="Personal access token"
      value={issued.token}
      what="the token"
    >
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </ShownOnce>
  );
}

function TokenCard({
  token,
  showMember,
  onRevoke,
}: {
  token: PersonalTokenView;
  showMember: boolean;
  onRevoke: (token: PersonalTokenView) => void;
}) {
  const expired = Date.parse(token.expiresAt) <= Date.now();
  const status = token.revokedAt
    ? `Revoked ${when(token.revokedAt)}`
    : expired
      ? `Expired ${when(token.expiresAt)}`
      : `Active until ${when(token.expiresAt)}`;
  return (
    <SecretCard
      kind="token"
      id={token.tokenId}
      name={token.name}
      inactive={Boolean(token.revokedAt) || expired}
      facts={
        <>
          {showMember ? (
            <>
              <dt>Member</dt>
              <dd>{token.member.email}</dd>
            </>
          ) : null}
          <dt>Role</dt>
          <dd>{token.role}</dd>
          <dt>Created</dt>
          <dd>{when(token.createdAt)}</dd>
          <dt>Last used</dt>
          <dd>{token.lastUsedAt ? when(token.lastUsedAt) : 'Never'}</dd>
          <dt>Status</dt>
          <dd>{status}</dd>
        </>
      }
    >
      {token.revokedAt || expired ? null : (
        <div class="actions">
          <RevokeButton kind="token" name={token.name} onClick={() => onRevoke(token)} />
        </div>
      )}
    </SecretCard>
  );
}

export function Tokens({ focus, session }: { focus: boolean; session: Session & { readonly role: Role } }) {
  const can = useCan();
  const everyone = can('manageTokens');
  const [tokens, setTokens] = useState<readonly PersonalTokenView[]>();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>(session.role);
  const [days, setDays] = useState<number>(30);
  const [issued, setIssued] = useState<IssuedPersonalToken>();
  const [error, setError] = useState<Refusal>();
  const [formError, setFormError] = useState<string>();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  const load = async () => {
    try {
      const query = everyone ? { scope: 'project' } : {};
      setTokens((await api.call('listTokens', { query })).tokens);
      setError(undefined);
    } catch (failure) {
      setError(refusalOf(failure));
    }
  };
  useEffect(() => void (session.person ? load() : undefined), []);
  const revocation = useRevocation<PersonalTokenView>({
    kind: 'token',
    revoke: (token) => api.call('revokeToken', { path: { tokenId: token.tokenId } }),
    reload: load,
    announcement: (token) => `Token ${token.name} revoked: tools using it are refused at once.`,
    consequence: <p>Tools using this token are refused (401) from now on. This cannot be undone.</p>,
    headingRef,
  });

  if (!session.person) {
    return (
      <>
        <PageHeading focus={focus}>Tokens</PageHeading>
        <p>
          Personal access tokens belong to people: sign in as a member of the project to make one. (This
          session was opened with the project's console token.)
        </p>
      </>
    );
  }

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(undefined);
    try {
      const created = await api.call('createToken', {
        body: { name: name.trim(), role, expiresInDays: days },
      });
      setName('');
      await load();
      setIssued(created);
    } catch (failure) {
      setFormError(messageOf(failure));
      nameInput.current?.focus();
    }
  };
  const stored = (tokenId: string) => {
    focusSecret('token', tokenId, headingRef);
    setIssued(undefined);
  };

  return (
    <>
      <PageHeading focus={focus}>Tokens</PageHeading>
      <section aria-labelledby="create-token-heading">
        <h2 id="create-token-heading">Create a personal access token</h2>
        <p class="help">
          For tools such as <code>npm run domains</code>: the token acts for you in project {session.project},
          with the role you choose or your own, whichever is lower at the time.
        </p>
        <form onSubmit={(event) => void create(event)} novalidate>
          <SecretNameField
            kind="token"
            value={name}
            maxLength={MAX_TOKEN_NAME}
            error={formError}
            inputRef={nameInput}
            onInput={setName}
            help={
              <>
                What uses it, e.g. <code>laptop</code> or <code>deploy script</code>.
              </>
            }
          />
          <label for="token-role">Role</label>
          <select
            id="token-role"
            class="field"
            value={role}
            onChange={(event) => setRole(event.currentTarget.value as Role)}
          >
            {rolesUpTo(session.role).map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
          <label for="token-expiry">Expires after</label>
          <select
            id="token-expiry"
            class="field"
            value={String(days)}
            onChange={(event) => setDays(Number(event.currentTarget.value))}
          >
            {EXPIRIES.map((each) => (
              <option key={each} value={String(each)}>
                {each === MAX_TOKEN_DAYS ? '1 year' : `${each} days`}
              </option>
            ))}
          </select>
          <button type="submit" class="primary">
            Create token
          </button>
        </form>
      </section>
      {issued ? <NewToken issued={issued} onDone={() => stored(issued.personalToken.tokenId)} /> : null}
      <SecretList
        headingId="tokens-heading"
        headingRef={headingRef}
        heading={everyone ? "The project's tokens" : 'Your tokens'}
        failure={<RefusalMessage refusal={error} id="tokens-refusal" />}
        failed={error !== undefined}
        items={tokens}
        empty="No tokens yet."
      >
        {(token) => (
          <TokenCard key={token.tokenId} token={token} showMember={everyone} onRevoke={revocation.ask} />
        )}
      </SecretList>
      {revocation.dialog}
    </>
  );
}
