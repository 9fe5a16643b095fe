import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { InvitationView } from '../../lambda/api/console-invitation-routes';
import { ROLES, type Role } from '../../lambda/core/permissions';
import { api, messageOf } from './api';
import { useCan } from './permissions';
import { Announce, CopyButton, ErrorMessage } from './ui';

/**
 * The project's invitations (issue 27), under its members: who may invite gets the form (an
 * address and a role) and, once sent, the link to copy (the email carries it too); the pending
 * invitations are listed with Revoke. The API refuses what the caller may not do (an admin
 * inviting an owner), and the refusal is shown at the form, which takes the focus.
 */
export function Invitations() {
  const can = useCan();
  const announce = useContext(Announce);
  const [pending, setPending] = useState<readonly InvitationView[]>();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState<{ email: string; link: string }>();
  const [busy, setBusy] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);
  const errorBox = useRef<HTMLDivElement>(null);
  const load = async () => {
    try {
      setPending((await api.call('listInvitations')).invitations);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  useEffect(() => void load(), []);
  const invite = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSent(undefined);
    try {
      const answer = await api.call('createInvitation', { body: { email: email.trim(), role } });
      setSent({ email: answer.invitation.email, link: answer.link });
      setEmail('');
      announce(`Invited ${answer.invitation.email} as ${role}.`);
      await load();
    } catch (failure) {
      setError(messageOf(failure));
      emailInput.current?.focus();
    }
    setBusy(false);
  };
  const revoke = async (invitation: InvitationView) => {
    try {
      await api.call('revokeInvitation', { path: { invitationId: invitation.invitationId } });
      announce(`The invitation of ${invitation.email} was revoked.`);
    } catch (failure) {
      setError(messageOf(failure));
      errorBox.current?.focus();
    }
    await load();
  };
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {can('manageMembers') ? (
        <form class="invite" onSubmit={(event) => void invite(event)} novalidate>
          <label for="invite-email">Email address</label>
          <input
            id="invite-email"
            ref={emailInput}
            type="email"
            autocomplete="off"
            required
            value={email}
            aria-describedby={error ? 'invite-error' : undefined}
            aria-invalid={error ? true : undefined}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
          <label for="invite-role">Role</label>
          <select
            id="invite-role"
            value={role}
            onChange={(event) => setRole(event.currentTarget.value as Role)}
          >
            {ROLES.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Inviting…' : 'Invite'}
          </button>
        </form>
      ) : null}
      <div ref={errorBox} tabIndex={-1}>
        <ErrorMessage message={error} id="invite-error" />
      </div>
      {sent ? (
        <div class="issued" id="invitation-link">
          <p>
            Invitation sent to {sent.email}. Its link works once, for 7 days; copy it to send it yourself:
          </p>
          <p>
            <code>{sent.link}</code> <CopyButton text={sent.link} what="the invitation link" />
          </p>
        </div>
      ) : null}
      <h3>Pending</h3>
      {pending === undefined ? (
        <p>Loading…</p>
      ) : pending.length === 0 ? (
        <p>No pending invitations.</p>
      ) : (
        <ul class="members" id="pending-invitations">
          {pending.map((invitation) => (
            <li key={invitation.invitationId} data-invitation={invitation.email}>
              <strong>{invitation.email}</strong> <span class="badge">{invitation.role}</span>{' '}
              <span>expires {new Date(invitation.expiresAt).toUTCString()}</span>
              {can('manageMembers') ? (
                <button
                  type="button"
                  class="danger"
                  aria-label={`Revoke the invitation of ${invitation.email}`}
                  onClick={() => void revoke(invitation)}
                >
                  Revoke
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
