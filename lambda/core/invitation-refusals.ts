import type { Person } from './identity';
import type { InvitationRecord } from './invitations';
import { MemberRefusal } from './members';

/**
 * Why an invitation is refused (issue 27): the acceptor's checks, a link that names nothing, and
 * a stored invitation that cannot be used now. Apart from invitations.ts, which re-exports them.
 */

export type InvitationRefusalKind =
  | 'invitation_not_found'
  | 'invitation_expired'
  | 'invitation_used'
  | 'invitation_revoked'
  | 'invitation_wrong_email'
  | 'invitation_email_unverified'
  | 'invitation_email_not_vouched'
  | 'too_many_invitations'
  | 'invitation_inviter_gone'
  | 'invitation_not_accepted'
  | 'too_many_invitations_today';

/** Why an invitation was refused; each kind is one of the console's error codes. */
export class InvitationRefusal extends Error {
  constructor(
    readonly kind: InvitationRefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'InvitationRefusal';
  }
}

/**
 * Which email domains an enterprise identity provider may vouch for, by its name at the user
 * pool (lib/constructs/enterprise-providers.ts's `emailDomains`). A provider it does not know
 * vouches for none.
 */
export type VouchedDomains = (identityProvider: string) => readonly string[];

/** The domain part of an address, lower-cased. */
function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Whether the signed-in person's email may accept an invitation to `invited`: the same address
 * (case-insensitive), verified by the user pool, or, when an enterprise provider asserted it,
 * within that provider's own email domains (a tenant's IdP cannot accept invitations for others).
 */
export function checkAcceptor(
  person: Pick<Person, 'email' | 'emailVerified' | 'identityProvider'>,
  invited: string,
  vouched: VouchedDomains,
): void {
  if (person.email.toLowerCase() !== invited) {
    throw new InvitationRefusal(
      'invitation_wrong_email',
      `This invitation is for ${invited}, and you signed in as ${person.email}: sign in with the invited address.`,
    );
  }
  // An enterprise provider's address is vouched for by its own domains, not by the pool's
  // `email_verified`: Cognito marks a federated address unverified unless the provider sends a
  // verification claim and it is mapped, which a SAML assertion rarely carries.
  if (person.identityProvider !== undefined) {
    const domains = vouched(person.identityProvider).map((domain) => domain.toLowerCase());
    if (!domains.includes(domainOf(person.email))) {
      throw new InvitationRefusal(
        'invitation_email_not_vouched',
        `Your address was asserted by ${person.identityProvider}, which may vouch only for its own domains (${domains.join(', ') || 'none'}): sign in with an account of the user pool instead.`,
      );
    }
  } else if (!person.emailVerified) {
    throw new InvitationRefusal(
      'invitation_email_unverified',
      `Your address ${person.email} is not verified at the identity provider: verify it, then open the invitation again.`,
    );
  }
}

export function notFound(): InvitationRefusal {
  return new InvitationRefusal(
    'invitation_not_found',
    'No such invitation: the link is incomplete, or the invitation was removed. Ask for a new one.',
  );
}

/** Why a stored invitation cannot be used now. */
export function stateRefusal(record: InvitationRecord, nowMs: number): InvitationRefusal {
  if (record.state === 'accepted') {
    return new InvitationRefusal(
      'invitation_used',
      `This invitation was used at ${record.acceptedAt ?? 'an earlier time'}: an invitation joins one person once. Ask for a new one.`,
    );
  }
  if (record.state === 'revoked') {
    return new InvitationRefusal(
      'invitation_revoked',
      `This invitation was revoked at ${record.revokedAt ?? 'an earlier time'}. Ask an owner or admin of ${record.project} for a new one.`,
    );
  }
  if (Date.parse(record.expiresAt) <= nowMs) {
    return new InvitationRefusal(
      'invitation_expired',
      `This invitation expired at ${record.expiresAt} (invitations last 7 days). Ask an owner or admin of ${record.project} for a new one.`,
    );
  }
  return new InvitationRefusal('invitation_used', 'This invitation changed while the request ran: reload.');
}

/**
 * A refusal of the member rules at accept, as the invitation's (the sign-in's callback shows only
 * those): its project gone is `invitation_not_found`; any other (a person the rules cannot make
 * a member of) `invitation_not_accepted`. Anything else (a store failure) is thrown as it is.
 */
export function memberRefusalAsInvitation(error: unknown): unknown {
  if (!(error instanceof MemberRefusal)) return error;
  return error.kind === 'no_such_project'
    ? notFound()
    : new InvitationRefusal('invitation_not_accepted', error.message);
}
