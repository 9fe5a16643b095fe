import { randomBytes, randomInt } from 'node:crypto';
import type { Person } from './identity';
import {
  checkAcceptor,
  InvitationRefusal,
  memberRefusalAsInvitation,
  notFound,
  stateRefusal,
  type VouchedDomains,
} from './invitation-refusals';
import { type MemberRecord, MemberRefusal, type Members, type PersonRef } from './members';
import { checkDailyCap, checkInviter, checkSameProject, type InviterRef } from './invitation-validity';
import { isRole, mayManageMember, type Role } from './permissions';
import type { ProjectRecord, ProjectStore } from './project';
import { hashSecret, newSecret, secretMatches } from './secret';

/**
 * Invitations (issue 27): an owner or admin invites an email address with a role; the person
 * who signs in with that address, verified, joins the project with that role. An invitation
 * expires after 7 days, is used once (a conditional write: of two concurrent accepts one wins),
 * can be revoked, and is listed as pending until then. Its link carries a secret that is stored
 * only as its SHA-256; the link's id names the stored invitation, so accepting is one read by key.
 *
 * The cap of {@link MAX_PENDING_INVITATIONS} holds under concurrency: each invitation takes a place
 * of its project's counter with one conditional write before it is stored, and gives it back when
 * it is revoked, accepted or found expired, or when its create then fails. An expired invitation
 * is found when its link is opened, and, when the cap is reached, before the cap refuses: its
 * place is reclaimed then, so the places of unused links come back without waiting for a TTL.
 */

/** How long an invitation may be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

/** How long an invitation's item stays once it holds no place (DynamoDB's TTL then deletes it). */
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
  /** Who invited, whose right to is checked again at accept; none on invitations made before it was kept. */
  readonly inviter?: InviterRef;
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
  /**
   * Whether it holds one of its project's places under the cap: from its create until it is
   * accepted, revoked or its place is reclaimed past its expiry. None before the cap was a counter.
   */
  readonly holdsPlace?: boolean;
}

/** A change of state that was made, and whether it gave up the invitation's place (to give back). */
export interface InvitationChange {
  readonly freedPlace: boolean;
}

/** What invitation storage must do; every change is conditional on the invitation's state. */
export interface InvitationStore {
  get(invitationId: string): Promise<InvitationRecord | undefined>;
  /** The project's invitations, every state, newest first. */
  listOf(project: string): Promise<InvitationRecord[]>;
  /** Stores a new invitation; false when its id is taken (never, in practice). */
  create(record: InvitationRecord): Promise<boolean>;
  /** Marks it accepted if it is still pending, of this project and not expired at `nowIso`; undefined otherwise. */
  accept(
    invitationId: string,
    project: string,
    nowIso: string,
    acceptedBy: string,
  ): Promise<InvitationChange | undefined>;
  /** Marks it revoked if it is still pending and of this project; undefined otherwise. */
  revoke(invitationId: string, project: string, nowIso: string): Promise<InvitationChange | undefined>;
  /**
   * Puts back to pending an invitation accepted at `acceptedAt` by `acceptedBy` whose joining then
   * failed (holding a place again if its accept freed one); nothing when it changed since.
   */
  reopen(invitationId: string, acceptedAt: string, acceptedBy: string, holdsPlace: boolean): Promise<void>;
  /** Gives up the place of an invitation still pending and expired at `nowIso`: true when it held one. */
  releaseExpired(invitationId: string, project: string, nowIso: string): Promise<boolean>;
  /** Takes one of the project's places if fewer than `cap` are taken, with one conditional write. */
  takePlace(project: string, cap: number): Promise<boolean>;
  /** Gives one of the project's places back (never below zero). */
  givePlaceBack(project: string): Promise<void>;
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

export {
  checkAcceptor,
  InvitationRefusal,
  type InvitationRefusalKind,
  type VouchedDomains,
} from './invitation-refusals';

/** The id and secret a link's token carries; undefined for anything that is not one. */
export function parseInvitationToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(token);
  return match?.[1] && match[2] ? { id: match[1], secret: match[2] } : undefined;
}

export interface InvitationsOptions {
  readonly store: InvitationStore;
  readonly members: Members;
  /** The projects: an invitation joins only the project it was made in, and checks its inviter there. */
  readonly projects: ProjectStore;
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
  /** Who they are, checked again at accept (invitation-validity.ts). */
  readonly ref: InviterRef;
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
    checkDailyCap(project, await this.options.store.listOf(project), this.options.clock());
    await this.takePlace(project);
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
      inviter:
        inviter.ref === 'console-token'
          ? inviter.ref
          : { issuer: inviter.ref.issuer, subject: inviter.ref.subject },
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + INVITATION_TTL_MS).toISOString(),
      state: 'pending',
      holdsPlace: true,
    };
    let stored: boolean;
    try {
      stored = await this.options.store.create(record);
    } catch (error) {
      await this.takeBack(record);
      throw error;
    }
    if (!stored) {
      await this.options.store.givePlaceBack(project);
      throw new Error('invitation id collision');
    }
    const link = this.options.linkOf(`${INVITATION_TOKEN_PREFIX}${invitationId}_${secret}`);
    try {
      await this.options.mailer.send({
        to: address,
        project,
        role,
        ...(record.invitedBy === undefined ? {} : { invitedBy: record.invitedBy }),
        link,
        expiresAt: record.expiresAt,
      });
    } catch (error) {
      // The inviter gets no link: nobody could use it, so it is taken back with its place.
      await this.takeBack(record);
      throw error;
    }
    return { record, link };
  }

  /**
   * Takes one of the project's places under the cap. When the cap is reached, the places of its
   * expired invitations are reclaimed first, each by a conditional write (of two reclaimers, one
   * frees it), and the place is asked for again after each one freed. Many invites at once at the
   * cap each try the expired ones in an order of their own, so they seldom race for the same one.
   */
  private async takePlace(project: string): Promise<void> {
    const { store } = this.options;
    if (await store.takePlace(project, MAX_PENDING_INVITATIONS)) return;
    const now = this.options.clock();
    const expired = (await store.listOf(project)).filter(
      (each) => each.holdsPlace && each.state === 'pending' && Date.parse(each.expiresAt) <= now,
    );
    for (const each of shuffled(expired)) {
      if ((await this.reclaim(each, now)) && (await store.takePlace(project, MAX_PENDING_INVITATIONS)))
        return;
    }
    throw new InvitationRefusal(
      'too_many_invitations',
      `Project ${project} has ${MAX_PENDING_INVITATIONS} pending invitations, the most it may have: revoke some first.`,
    );
  }

  /**
   * Takes back a create that failed after its place was taken: revoked if it was stored after all
   * (a put may fail to answer and still be made), its place given back either way, once.
   */
  private async takeBack(record: InvitationRecord): Promise<void> {
    const nowIso = new Date(this.options.clock()).toISOString();
    const change = await this.options.store.revoke(record.invitationId, record.project, nowIso);
    if (!change || change.freedPlace) await this.options.store.givePlaceBack(record.project);
  }

  /** Gives back the place of an invitation found pending past its expiry: true when it held one. */
  private async reclaim(record: InvitationRecord, nowMs: number): Promise<boolean> {
    const nowIso = new Date(nowMs).toISOString();
    const released = await this.options.store.releaseExpired(record.invitationId, record.project, nowIso);
    if (released) await this.options.store.givePlaceBack(record.project);
    return released;
  }

  /** Gives the project's place back when a change freed one; the change, or undefined when refused. */
  private async freed(
    project: string,
    change: InvitationChange | undefined,
  ): Promise<InvitationChange | undefined> {
    if (change?.freedPlace) await this.options.store.givePlaceBack(project);
    return change;
  }

  /** Revokes a pending invitation of the project; another project's is not found. */
  async revoke(project: string, invitationId: string): Promise<InvitationRecord> {
    const record = await this.options.store.get(invitationId);
    if (!record || record.project !== project) throw notFound();
    const nowIso = new Date(this.options.clock()).toISOString();
    if (!(await this.freed(project, await this.options.store.revoke(invitationId, project, nowIso)))) {
      throw stateRefusal((await this.options.store.get(invitationId)) ?? record, this.options.clock());
    }
    return { ...record, state: 'revoked', revokedAt: nowIso, holdsPlace: false };
  }

  /**
   * The invitation a token names, as its holder may see it (the project, the role, the invited
   * address); refused when it is unknown, used, revoked or expired (an expired one's place is
   * given back then).
   */
  async open(token: string): Promise<InvitationRecord> {
    return (await this.opened(token)).record;
  }

  /** {@link open}'s invitation, and its project as read then. */
  private async opened(token: string): Promise<{ record: InvitationRecord; project: ProjectRecord }> {
    const parsed = parseInvitationToken(token);
    const record = parsed && (await this.options.store.get(parsed.id));
    if (!parsed || !record || !secretMatches(record.secretHash, parsed.secret)) throw notFound();
    const project = await this.options.projects.get(record.project);
    checkSameProject(record, project);
    const now = this.options.clock();
    if (record.state !== 'pending' || Date.parse(record.expiresAt) <= now) {
      if (record.state === 'pending' && record.holdsPlace) await this.reclaim(record, now);
      throw stateRefusal(record, now);
    }
    return { record, project: project as ProjectRecord };
  }

  /**
   * Accepts the invitation for the signed-in person: the checks of {@link checkAcceptor}, then
   * one conditional write marks it accepted (a second, concurrent or later, is refused as used),
   * then the person becomes a member with its role. Already a member: the invitation is used
   * and their membership stays as it is.
   */
  async accept(token: string, person: Person): Promise<MemberRecord> {
    const { record, project } = await this.opened(token);
    checkAcceptor(person, record.email, this.options.vouched);
    await this.checkInviterNow(record, project);
    const nowIso = new Date(this.options.clock()).toISOString();
    const accepted = await this.options.store.accept(
      record.invitationId,
      record.project,
      nowIso,
      person.email,
    );
    if (!accepted) {
      throw stateRefusal((await this.options.store.get(record.invitationId)) ?? record, this.options.clock());
    }
    let member: MemberRecord;
    try {
      member = await this.join(record, person);
    } catch (error) {
      // Not burnt by a failure: pending again, with its place, so a retry may join.
      await this.options.store.reopen(record.invitationId, nowIso, person.email, accepted.freedPlace);
      throw memberRefusalAsInvitation(error);
    }
    await this.freed(record.project, accepted);
    return member;
  }

  /** Makes the person a member with the invitation's role; already one, their membership stays. */
  private async join(record: InvitationRecord, person: Person): Promise<MemberRecord> {
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
      const member = await this.options.members.current(record.project, ref);
      if (!member) throw error;
      return member;
    }
  }

  /** The inviter's right, read now: their membership by key (consistent), the project's owners. */
  private async checkInviterNow(record: InvitationRecord, project: ProjectRecord): Promise<void> {
    const { inviter } = record;
    const role =
      inviter === undefined || inviter === 'console-token'
        ? undefined
        : (await this.options.members.current(record.project, inviter))?.role;
    checkInviter(record, project, role);
  }
}

/** The items in a random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = randomInt(i + 1);
    [order[i], order[j]] = [order[j] as T, order[i] as T];
  }
  return order;
}
