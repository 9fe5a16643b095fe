/**
 * The audit log (issue 28): who changed what in a project, when, from where, and how it ended.
 * One entry per change made through the console (a person's session, a console token, a
 * personal token) or the platform tools. Entries are appended and never changed: the store
 * writes each with a conditional put, and no function may update or delete one (its IAM says
 * so); DynamoDB's TTL removes an entry a year after it was made.
 */

/** What was done: the contract's fixed names (other branches name their routes with them). */
export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-out',
  'sign-in.failed',
  'key.create',
  'key.rotate',
  'key.revoke',
  'domain.add',
  'domain.verify',
  'domain.primary',
  'domain.redirect',
  'domain.remove',
  'domain.contest',
  'domain.release',
  'member.add',
  'member.role',
  'member.remove',
  'invitation.send',
  'invitation.accept',
  'invitation.revoke',
  'token.create',
  'token.revoke',
  'plan.change',
  'origins.change',
  'project.create',
  'project.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** A person as their provider names them, with the email shown. */
export interface AuditPerson {
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
}

/**
 * The rules by which the platform itself changes a project's domain: another project proved
 * control of the name's DNS and took it (`dns-proof`), or a claim stayed unverified past its
 * window (`claim-window`).
 */
export const PLATFORM_RULES = ['dns-proof', 'claim-window'] as const;
export type PlatformRule = (typeof PLATFORM_RULES)[number];

/** Who acted. */
export type AuditActor =
  | { readonly kind: 'person'; readonly person: AuditPerson }
  /** The project's console token, or a session made from one. */
  | { readonly kind: 'console-token' }
  | {
      readonly kind: 'personal-token';
      readonly token: { readonly id: string; readonly name: string };
      /** The member the token acts for. */
      readonly person: AuditPerson;
    }
  /** The platform tools: the AWS caller identity with `--stage`, the OS user locally. */
  | { readonly kind: 'platform-engineer'; readonly identity: string }
  /** The platform itself, by one of its rules (a domain's contest or release): no person acted. */
  | { readonly kind: 'platform'; readonly rule: PlatformRule };

/** How the call ended: done, or refused with the Error body's code. */
export type AuditOutcome =
  | { readonly result: 'success' }
  | { readonly result: 'refused'; readonly code: string; readonly status: number };

/** One entry, as stored and as the API answers it. */
export interface AuditEntry {
  readonly project: string;
  /** `<at>#<suffix>`: the sort key, unique within the project, newest last. */
  readonly entryId: string;
  /** When, ISO 8601 UTC with milliseconds. */
  readonly at: string;
  readonly actor: AuditActor;
  readonly action: AuditAction;
  /** On what: a domain's name, a key's id, a member's id, a token's id, a plan... */
  readonly target?: string;
  readonly outcome: AuditOutcome;
  /** The client's address (the viewer's, through the edge). */
  readonly clientAddress?: string;
  readonly userAgent?: string;
}

/** An entry before the store gives it its key: the project, when, and the rest. */
export type NewAuditEntry = Omit<AuditEntry, 'entryId' | 'at'> & { readonly atMs: number };

/** Entries are kept a year (DynamoDB's TTL, on `expiresAt`). */
export const AUDIT_RETENTION_DAYS = 365;

/** The longest user agent kept: the rest is a caller's to fill the log with. */
export const MAX_USER_AGENT = 256;

/** The longest target kept: a refused call's path parameter is whatever the caller sent. */
export const MAX_TARGET = 256;

/** A read of a project's log: newest first, filtered, one page after `before` (a cursor's entry). */
export interface AuditQuery {
  /** An actor's key ({@link actorKey}) or a person's email. */
  readonly actor?: string;
  readonly action?: AuditAction;
  /** ISO 8601 bounds, inclusive. */
  readonly since?: string;
  readonly until?: string;
  /** The entry id of the last entry of the previous page. */
  readonly after?: string;
  readonly limit: number;
}

export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  /** The entry id to continue after, when there may be more. */
  readonly next?: string;
}

/** The audit log's storage: appends (never overwrites), and reads one project's partition. */
export interface AuditLog {
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  read(project: string, query: AuditQuery): Promise<AuditPage>;
}

/** The shape of an entry id: an ISO time, `#`, and a random suffix. */
export const ENTRY_ID_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[0-9a-f]{16}$/;

/**
 * A short stable name of an actor, the filter's value: `person:<email>`, `console-token`,
 * `token:<id>`, `platform:<identity>`, `rule:<rule>`.
 */
export function actorKey(actor: AuditActor): string {
  switch (actor.kind) {
    case 'person':
      return `person:${actor.person.email}`;
    case 'console-token':
      return 'console-token';
    case 'personal-token':
      return `token:${actor.token.id}`;
    case 'platform-engineer':
      return `platform:${actor.identity}`;
    case 'platform':
      return `rule:${actor.rule}`;
  }
}

const PLATFORM_RULE_TEXT: { readonly [Rule in PlatformRule]: string } = {
  'dns-proof': "the platform: another project proved control of the name's DNS",
  'claim-window': 'the platform: the claim stayed unverified past its window',
};

/** An actor in words, for the page and the tool's text. */
export function actorText(actor: AuditActor): string {
  switch (actor.kind) {
    case 'person':
      return actor.person.email;
    case 'console-token':
      return "the project's console token";
    case 'personal-token':
      return `token ${actor.token.name} (${actor.token.id}) of ${actor.person.email}`;
    case 'platform-engineer':
      return `platform engineer ${actor.identity}`;
    case 'platform':
      return PLATFORM_RULE_TEXT[actor.rule];
  }
}

/** Whether an entry matches an actor filter: its actor's key, or the email of its person. */
export function matchesActor(actor: AuditActor, filter: string): boolean {
  if (actorKey(actor) === filter) return true;
  return (actor.kind === 'person' || actor.kind === 'personal-token') && actor.person.email === filter;
}

/**
 * Who a granted console call acts as. A personal token's variant (branch `tokens`) carries its
 * token and member; any variant without a person (a console token, or a session made from one)
 * is the project's console token. (Read by shape, so this file needs no Node: the page imports it.)
 */
export function actorOfAccess(access: { readonly granted: true; readonly via: string }): AuditActor {
  const widened = access as {
    readonly via: string;
    readonly session?: { readonly person?: AuditPerson };
    readonly person?: AuditPerson;
    readonly token?: { readonly id: string; readonly name: string };
  };
  const personOf = (person: AuditPerson): AuditPerson => ({
    issuer: person.issuer,
    subject: person.subject,
    email: person.email,
  });
  if (widened.via === 'personal-token' && widened.person && widened.token) {
    return {
      kind: 'personal-token',
      token: { id: widened.token.id, name: widened.token.name },
      person: personOf(widened.person),
    };
  }
  const person = widened.session?.person;
  return person ? { kind: 'person', person: personOf(person) } : { kind: 'console-token' };
}
