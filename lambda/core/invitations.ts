import { randomBytes } from 'node:crypto';
import type { Person } from './identity';
import { type MemberRecord, MemberRefusal, type Members, type PersonRef } from './members';
import { isRole, mayManageMember, type Role } from './permissions';
import { hashSecret, newSecret, secretMatches } from './secret';

/**
 * Invitations (issue 27): an owner or admin invites an email address with a role; the person
 * who signs in with that address, verified, joins the project with that role. An invitation
 * expires after 7 days, is used once (a conditional write: of two concurrent accepts one wins),
 * can be revoked, and is listed as pending until then. Its link carries a secret that is stored
 * only as its SHA-256; the link's id names the stored invitation, so accepting is one read by key.
 */

/** How long an invitation may be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

/** How long after its expiry an invitation's item stays (DynamoDB's TTL then deletes it). */
export const INVITATION_KEPT_MS = 30 * 24 * 60 * 60_000;

/** Most pending invitations a project may have: each may send an email on the platform's account. */
export const MAX_PENDING_INVITATIONS = 50;

/** The token's prefix: `inv_<id>_<secret>`, the id 16 hex characters, the secret 43 base64url. */
export const INVITATION_TOKEN_PREFIX = 'inv_';

const TOKEN_PATTERN = /^inv_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export type InvitationState = 'pending' | 'accepted' | 'revoked';

/** An invitation as stored: never its secret. */
export interface InvitationRecord {
  /** Public: names the invitation in the console's paths and in its link. */
  readonly invitationId: string;
  readonly project: string;
  /** SHA-256 of the link's secret, hex. */
  readonly secretHash: string;
  /** The invited address, lower-cased. */
  readonly email: string;
  readonly role: Role;
  /** The inviter's email as their provider gave it (none for a console token's holder). */
  readonly invitedBy?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly expiresAt: string;
  readonly state: InvitationState;
  /** ISO 8601, with `acceptedBy` (the person's email) once accepted. */
  readonly acceptedAt?: string;
  readonly acceptedBy?: string;
  /** ISO 8601, once revoked. */
  readonly revokedAt?: string;
}

/** What invitation storage must do; every change is conditional on the invitation's state. */
export interface InvitationStore {
  get(invitationId: string): Promise<InvitationRecord | undefined>;
  /** The project's invitations, every state, newest first. */
  listOf(project: string): Promise<InvitationRecord[]>;
  /** Stores a new invitation; false when its id is taken (never, in practice). */
  create(record: InvitationRecord): Promise<boolean>;
  /** Marks it accepted if it is still pending, of this project and not expired at `nowIso`; false otherwise. */
  accept(invitationId: string, project: string, nowIso: string, acceptedBy: string): Promise<boolean>;
  /** Marks it revoked if it is still pending and of this project; false otherwise. */
  revoke(invitationId: string, project: string, nowIso: string): Promise<boolean>;
}

/** What an invitation's email says, sent by the platform's mailer (SES in AWS, the outbox locally). */
export interface InvitationMessage {
  readonly to: string;
  readonly project: string;
  readonly role: Role;
  readonly invitedBy?: string;
  /** The link to open: it carries the secret. */
  readonly link: string;
  readonly expiresAt: string;
}

/** Delivers invitation messages. */
export interface InvitationMailer {
  send(message: InvitationMessage): Promise<void>;
}

export type InvitationRefusalKind =
  | 'invitation_not_found'
  | 'invitation_expired'
  | 'invitation_used'
  | 'invitation_revoked'
  | 'invitation_wrong_email'
  | 'invitation_email_unverified'
  | 'invitation_email_not_vouched'
  | 'too_many_invitations';

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

/** The id and secret a link's token carries; undefined for anything that is not one. */
export function parseInvitationToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(token);
  return match?.[1] && match[2] ? { id: match[1], secret: match[2] } : undefined;
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

export interface InvitationsOptions {
  readonly store: InvitationStore;
  readonly members: Members;
  readonly mailer: InvitationMailer;
  /** The link of a token: `https://console.<platform domain>/console/#invitation=<token>`. */
  readonly linkOf: (token: string) => string;
  readonly vouched: VouchedDomains;
  /** Epoch milliseconds. */
  readonly clock: () => number;
}

/** Who invites: a member with a role (and their email), or a console token's holder (an owner). */
export interface Inviter {
  readonly role: Role;
  readonly email?: string;
}

/** Sending, listing, revoking and accepting invitations. */
export class Invitations {
  constructor(private readonly options: InvitationsOptions) {}

  /** The project's pending invitations (neither used, revoked nor expired), newest first. */
  async pendingOf(project: string): Promise<InvitationRecord[]> {
    const now = this.options.clock();
    const all = await this.options.store.listOf(project);
    return all.filter((each) => each.state === 'pending' && Date.parse(each.expiresAt) > now);
  }

  /** Invites `email` with `role`, sends the message, and answers the invitation and its link (once). */
  async send(
    project: string,
    email: string,
    role: Role,
    inviter: Inviter,
  ): Promise<{ record: InvitationRecord; link: string }> {
    const address = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) || address.length > 254) {
      throw new MemberRefusal('invalid_member', `${JSON.stringify(email)} is not an email address.`);
    }
    if (!isRole(role)) throw new MemberRefusal('invalid_member', `${JSON.stringify(role)} is not a role.`);
    if (!mayManageMember(inviter.role, 'manageMembers', [role])) {
      throw new MemberRefusal(
        'not_permitted',
        `A member with the role ${inviter.role} may not invite ${role === 'owner' ? 'an owner' : 'a member'}.`,
      );
    }
    // A soft cap (a count, then a put): concurrent invitations may pass it by a few.
    if ((await this.pendingOf(project)).length >= MAX_PENDING_INVITATIONS) {
      throw new InvitationRefusal(
        'too_many_invitations',
        `Project ${project} has ${MAX_PENDING_INVITATIONS} pending invitations, the most it may have: revoke some first.`,
      );
    }
    const now = this.options.clock();
    const invitationId = randomBytes(8).toString('hex');
    const secret = newSecret();
    const record: InvitationRecord = {
      invitationId,
      project,
      secretHash: hashSecret(secret),
      email: address,
      role,
      ...(inviter.email === undefined ? {} : { invitedBy: inviter.email }),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + INVITATION_TTL_MS).toISOString(),
      state: 'pending',
    };
    if (!(await this.options.store.create(record))) throw new Error('invitation id collision');
    const link = this.options.linkOf(`${INVITATION_TOKEN_PREFIX}${invitationId}_${secret}`);
    await this.options.mailer.send({
      to: address,
      project,
      role,
      ...(record.invitedBy === undefined ? {} : { invitedBy: record.invitedBy }),
      link,
      expiresAt: record.expiresAt,
    });
    return { record, link };
  }

  /** Revokes a pending invitation of the project; another project's is not found. */
  async revoke(project: string, invitationId: string): Promise<InvitationRecord> {
    const record = await this.options.store.get(invitationId);
    if (!record || record.project !== project) throw notFound();
    const nowIso = new Date(this.options.clock()).toISOString();
    if (!(await this.options.store.revoke(invitationId, project, nowIso))) {
      throw stateRefusal((await this.options.store.get(invitationId)) ?? record, this.options.clock());
    }
    return { ...record, state: 'revoked', revokedAt: nowIso };
  }

  /**
   * The invitation a token names, as its holder may see it (the project, the role, the invited
   * address); refused when it is unknown, used, revoked or expired.
   */
  async open(token: string): Promise<InvitationRecord> {
    const parsed = parseInvitationToken(token);
    const record = parsed && (await this.options.store.get(parsed.id));
    if (!parsed || !record || !secretMatches(record.secretHash, parsed.secret)) throw notFound();
    if (record.state !== 'pending' || Date.parse(record.expiresAt) <= this.options.clock()) {
      throw stateRefusal(record, this.options.clock());
    }
    return record;
  }

  /**
   * Accepts the invitation for the signed-in person: the checks of {@link checkAcceptor}, then
   * one conditional write marks it accepted (a second, concurrent or later, is refused as used),
   * then the person becomes a member with its role. Already a member: the invitation is used
   * and their membership stays as it is.
   */
  async accept(token: string, person: Person): Promise<MemberRecord> {
    const record = await this.open(token);
    checkAcceptor(person, record.email, this.options.vouched);
    const nowIso = new Date(this.options.clock()).toISOString();
    if (!(await this.options.store.accept(record.invitationId, record.project, nowIso, person.email))) {
      throw stateRefusal((await this.options.store.get(record.invitationId)) ?? record, this.options.clock());
    }
    const ref: PersonRef = { issuer: person.issuer, subject: person.subject };
    try {
      return await this.options.members.add(
        record.project,
        { ...ref, email: person.email, ...(person.name === undefined ? {} : { name: person.name }) },
        record.role,
        'platform',
      );
    } catch (error) {
      if (!(error instanceof MemberRefusal) || error.kind !== 'already_member') throw error;
      const member = (await this.options.members.listOf(record.project)).find(
        (each) => each.issuer === ref.issuer && each.subject === ref.subject,
      );
      if (!member) throw error;
      return member;
    }
  }
}

function notFound(): InvitationRefusal {
  return new InvitationRefusal(
    'invitation_not_found',
    'No such invitation: the link is incomplete, or the invitation was removed. Ask for a new one.',
  );
}

/** Why a stored invitation cannot be used now. */
function stateRefusal(record: InvitationRecord, nowMs: number): InvitationRefusal {
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
