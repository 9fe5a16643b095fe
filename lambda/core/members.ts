import type { Person } from './identity';
import { isRole, mayManageMember, type Role } from './permissions';
import type { ProjectStore } from './project';

/**
 * A project's members (issue 26): each is a person, as their OpenID provider names them
 * (issuer and subject), with one role. A project always keeps an owner: the projects table
 * holds each project's count of owners, changed by conditional writes in an order that keeps it
 * at or below the true number (an owner is counted after it is written, uncounted before it is
 * demoted or removed), so a demotion or removal that would take it below one is refused, two
 * concurrent ones included, without transactions.
 */

/** Who a member is, at their provider: the key of their membership. */
export type PersonRef = Pick<Person, 'issuer' | 'subject'>;

/** A member as stored and as shown (email and name as the provider gave them). */
export interface MemberRecord {
  readonly project: string;
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
  readonly name?: string;
  readonly role: Role;
  /** ISO 8601. */
  readonly addedAt: string;
}

/** One string per person: an issuer is a URL without a fragment, so it holds no `#`. */
export function personKey({ issuer, subject }: PersonRef): string {
  return `${issuer}#${subject}`;
}

/** A member's id in the console's paths: their person key, base64url (an issuer holds `/`). */
export function memberId(person: PersonRef): string {
  return Buffer.from(personKey(person), 'utf8').toString('base64url');
}

/** The person a member id names; undefined for anything that is not one. */
export function personOfMemberId(id: string): PersonRef | undefined {
  if (!/^[A-Za-z0-9_-]{1,700}$/.test(id)) return undefined;
  const key = Buffer.from(id, 'base64url').toString('utf8');
  const split = key.indexOf('#');
  if (split < 1 || split === key.length - 1) return undefined;
  return { issuer: key.slice(0, split), subject: key.slice(split + 1) };
}

/** What member storage must do; every change is conditional on the member's current role. */
export interface MemberStore {
  get(project: string, person: PersonRef): Promise<MemberRecord | undefined>;
  /** The project's members. */
  listOf(project: string): Promise<MemberRecord[]>;
  /** The person's memberships, by project name. */
  projectsOf(person: PersonRef): Promise<MemberRecord[]>;
  /** Stores a new member; false when the person is one already. */
  create(record: MemberRecord): Promise<boolean>;
  /** Changes the member's role if it is still `from`; false otherwise. */
  setRole(project: string, person: PersonRef, from: Role, to: Role): Promise<boolean>;
  /** Removes the member if their role is still `from`; false otherwise. */
  delete(project: string, person: PersonRef, from: Role): Promise<boolean>;
}

/** The count of a project's owners, on its item (ProjectRecord.owners). */
export interface OwnerCountStore {
  /** Counts one more owner; false when there is no such project. */
  addOwner(project: string): Promise<boolean>;
  /** Counts one owner fewer, only while at least two are counted; false otherwise. */
  takeOwner(project: string): Promise<boolean>;
}

export type MemberRefusalKind =
  | 'no_such_project'
  | 'already_member'
  | 'not_a_member'
  | 'last_owner'
  | 'member_changed'
  | 'not_permitted'
  | 'invalid_member';

/** Why a change of members was refused, in words an operator can act on. */
export class MemberRefusal extends Error {
  constructor(
    readonly kind: MemberRefusalKind,
    message: string,
  ) {
    super(message);
    this.name = 'MemberRefusal';
  }
}

/** Longest subject (OpenID Connect Core §2: 255 ASCII characters) and issuer we keep. */
const MAX_SUBJECT = 255;
const MAX_ISSUER = 300;

/** A person as a member may be made of; refused with a reason otherwise. */
export function checkPerson(person: PersonRef & { readonly email: string }): void {
  const { issuer, subject, email } = person;
  if (!/^https?:\/\/[^\s#]+$/.test(issuer) || issuer.length > MAX_ISSUER) {
    throw new MemberRefusal(
      'invalid_member',
      `Issuer ${JSON.stringify(issuer)} is not an OpenID issuer: a URL (at most ${MAX_ISSUER} characters, no fragment).`,
    );
  }
  if (subject.length === 0 || subject.length > MAX_SUBJECT || /[^\x21-\x7e]/.test(subject)) {
    throw new MemberRefusal(
      'invalid_member',
      `Subject ${JSON.stringify(subject)} is not a provider's subject: 1 to ${MAX_SUBJECT} printable ASCII characters.`,
    );
  }
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    throw new MemberRefusal('invalid_member', `${JSON.stringify(email)} is not an email address.`);
  }
}

/** Most entries the role cache keeps; the oldest goes first. */
const MAX_CACHED_ROLES = 10_000;

/** How long a member's role is believed without reading it again: a removal ends access within this. */
export const ROLE_CACHE_MS = 30_000;

/**
 * Members' roles as each request reads them, cached at most {@link ROLE_CACHE_MS} (a member and
 * a non-member alike), so a removed member's sessions end within 30 s. A change made through
 * this process forgets its entry at once.
 */
export class MemberRoles {
  private readonly entries = new Map<
    string,
    { membership: Pick<MemberRecord, 'role' | 'addedAt'> | undefined; expiresAt: number }
  >();

  constructor(
    private readonly store: Pick<MemberStore, 'get'>,
    private readonly clock: () => number,
  ) {}

  async roleOf(project: string, person: PersonRef): Promise<Role | undefined> {
    return (await this.membershipOf(project, person))?.role;
  }

  /** The member's role and since when they are one (a token made before a removal and re-adding is not theirs now). */
  async membershipOf(
    project: string,
    person: PersonRef,
  ): Promise<Pick<MemberRecord, 'role' | 'addedAt'> | undefined> {
    const key = `${project}\n${personKey(person)}`;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.clock()) return cached.membership;
    const member = await this.store.get(project, person);
    const membership = member && { role: member.role, addedAt: member.addedAt };
    this.entries.delete(key);
    if (this.entries.size >= MAX_CACHED_ROLES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { membership, expiresAt: this.clock() + ROLE_CACHE_MS });
    return membership;
  }

  forget(project: string, person: PersonRef): void {
    this.entries.delete(`${project}\n${personKey(person)}`);
  }
}

export interface MembersOptions {
  readonly store: MemberStore;
  readonly owners: OwnerCountStore;
  readonly projects: ProjectStore;
  readonly clock: () => number;
  /** The cache to forget a changed member in. */
  readonly roles?: MemberRoles;
  /** The member's personal access tokens, revoked with their removal (issue 28). */
  readonly tokens?: { revokeAllOf(project: string, person: PersonRef): Promise<void> };
}

/** Who asks for a change: a member with a role, or the platform (the members tool) with every right. */
export type MemberActor = { readonly role: Role; readonly person?: PersonRef } | 'platform';

/** Adding, changing and removing members, keeping an owner in every project. */
export class Members {
  constructor(private readonly options: MembersOptions) {}

  listOf(project: string): Promise<MemberRecord[]> {
    return this.options.store.listOf(project);
  }

  projectsOf(person: PersonRef): Promise<MemberRecord[]> {
    return this.options.store.projectsOf(person);
  }

  async add(
    project: string,
    person: PersonRef & { readonly email: string; readonly name?: string },
    role: Role,
    actor: MemberActor,
  ): Promise<MemberRecord> {
    checkPerson(person);
    if (!isRole(role)) throw new MemberRefusal('invalid_member', `${JSON.stringify(role)} is not a role.`);
    this.permit(actor, 'manageMembers', [role], `add ${role === 'owner' ? 'an owner' : 'a member'}`);
    if (!(await this.options.projects.get(project))) {
      throw new MemberRefusal('no_such_project', `There is no project ${project}.`);
    }
    const record: MemberRecord = {
      project,
      issuer: person.issuer,
      subject: person.subject,
      email: person.email,
      ...(person.name ? { name: person.name } : {}),
      role,
      addedAt: new Date(this.options.clock()).toISOString(),
    };
    if (!(await this.options.store.create(record))) {
      throw new MemberRefusal(
        'already_member',
        `${person.email} is a member of ${project} already: change their role instead.`,
      );
    }
    // Counted after it is written: the count never exceeds the owners there are.
    if (role === 'owner') await this.options.owners.addOwner(project);
    this.options.roles?.forget(project, person);
    return record;
  }

  async setRole(project: string, person: PersonRef, to: Role, actor: MemberActor): Promise<MemberRecord> {
    if (!isRole(to)) throw new MemberRefusal('invalid_member', `${JSON.stringify(to)} is not a role.`);
    const current = await this.memberOf(project, person);
    this.permit(
      actor,
      'changeRoles',
      [current.role, to],
      `make ${current.role === 'owner' ? 'an owner' : 'a member'} ${to}`,
    );
    if (current.role === to) return current;
    const { store, owners } = this.options;
    if (current.role === 'owner') await this.uncountOwner(project, current);
    if (!(await store.setRole(project, person, current.role, to))) {
      if (current.role === 'owner') await owners.addOwner(project);
      throw changed(current);
    }
    if (to === 'owner') await owners.addOwner(project);
    this.options.roles?.forget(project, person);
    return { ...current, role: to };
  }

  async remove(project: string, person: PersonRef, actor: MemberActor): Promise<MemberRecord> {
    const current = await this.memberOf(project, person);
    const leaving = actor !== 'platform' && actor.person && personKey(actor.person) === personKey(person);
    // Anyone may leave; removing another takes the right to.
    if (!leaving)
      this.permit(
        actor,
        'manageMembers',
        [current.role],
        `remove ${current.role === 'owner' ? 'an owner' : 'a member'}`,
      );
    if (current.role === 'owner') await this.uncountOwner(project, current);
    if (!(await this.options.store.delete(project, person, current.role))) {
      if (current.role === 'owner') await this.options.owners.addOwner(project);
      throw changed(current);
    }
    this.options.roles?.forget(project, person);
    await this.options.tokens?.revokeAllOf(project, person);
    return current;
  }

  /** The person's membership as stored now (a consistent read by key), or undefined. */
  current(project: string, person: PersonRef): Promise<MemberRecord | undefined> {
    return this.options.store.get(project, person);
  }

  private async memberOf(project: string, person: PersonRef): Promise<MemberRecord> {
    const current = await this.options.store.get(project, person);
    if (!current) {
      throw new MemberRefusal('not_a_member', `Project ${project} has no such member (${person.subject}).`);
    }
    return current;
  }

  /** Uncounts an owner before it is demoted or removed; refused when it is the last one counted. */
  private async uncountOwner(project: string, member: MemberRecord): Promise<void> {
    if (!(await this.options.owners.takeOwner(project))) {
      throw new MemberRefusal(
        'last_owner',
        `${member.email} is the last owner of ${project}: make another member an owner first.`,
      );
    }
  }

  private permit(
    actor: MemberActor,
    action: 'manageMembers' | 'changeRoles',
    roles: readonly Role[],
    what: string,
  ): void {
    if (actor === 'platform' || mayManageMember(actor.role, action, roles)) return;
    throw new MemberRefusal('not_permitted', `A member with the role ${actor.role} may not ${what}.`);
  }
}

function changed(member: MemberRecord): MemberRefusal {
  return new MemberRefusal(
    'member_changed',
    `${member.email}'s membership changed while the request ran (another request won): reload and retry.`,
  );
}
