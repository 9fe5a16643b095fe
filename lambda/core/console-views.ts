import type { ConsoleAction, Role } from './permissions';
import type { PlanLimits, PlanName } from './plans';

/**
 * What the console shows of a project's session, usage and keys: the console API's answers,
 * made by the core (console-session.ts, usage.ts, the key rules) and named by the console's
 * route table. Plain types with no Node, as the domains' views in custom-domain-record.ts: the
 * console page type-checks against them.
 */

/** What a signed-in page learns about its session (`POST`/`GET /session`). */
export interface ConsoleSessionView {
  /** The session's project; absent for a person who has no project yet (issue 27). */
  readonly project?: string;
  readonly csrfToken: string;
  readonly idleTimeoutSeconds: number;
  /** When the session ends at the latest (its maximum lifetime), ISO 8601. */
  readonly expiresAt: string;
  /** The caller's role in the project (a console token's session: `owner`); absent with no project. */
  readonly role?: Role;
  /** What the role may do (lambda/core/permissions.ts): the page hides the rest. */
  readonly permissions: readonly ConsoleAction[];
  /** The signed-in person (a person's session only). */
  readonly person?: { readonly email: string; readonly name?: string };
  /** The person's projects, by name, to switch between (a person's session only). */
  readonly projects?: readonly MembershipView[];
  /** Whether the person may create a project themselves, or how to get one (a person's session only). */
  readonly selfService?: SelfServiceView;
}

/** What a person learns about creating projects themselves (issue 27), and how a plan changes. */
export type SelfServiceView = (
  | { readonly available: true; readonly projectsPerPerson: number }
  | { readonly available: false; readonly message: string }
) & {
  /** How to ask for another plan: plan changes are the platform team's. */
  readonly upgrade: string;
};

/** A project just created by its owner (`POST /projects`): its name, plan and address, and its first key, shown once. */
export interface CreatedProjectView {
  readonly project: { readonly name: string; readonly plan: PlanName; readonly address: string };
  readonly firstKey: IssuedKey;
}

/** One of a person's projects, and their role there. */
export interface MembershipView {
  readonly project: string;
  readonly role: Role;
}

/** A project's member as the console shows it. */
export interface MemberView {
  /** The member's id in the console's paths (`/members/{memberId}`). */
  readonly memberId: string;
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
  readonly name?: string;
  readonly role: Role;
  readonly addedAt: string;
}

/** A window of the rate limiter, as the overview shows it. */
export interface WindowUsage {
  readonly used: number;
  readonly limit: number;
  /** When the window ends, ISO 8601. */
  readonly resetsAt: string;
}

/** A project's overview for its console (`GET /usage`). */
export interface ProjectOverview {
  readonly project: { readonly name: string; readonly plan: PlanName; readonly address: string };
  readonly limits: PlanLimits;
  readonly customDomains: { readonly allowed: true } | { readonly allowed: false; readonly reason: string };
  readonly usage: { readonly minute: WindowUsage; readonly day: WindowUsage };
}

/** An API key as the console shows it: never its secret or its hash. */
export interface ApiKeyView {
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

/** A key just issued: the key itself, shown this once, and its view. */
export interface IssuedKey {
  readonly apiKey: string;
  readonly key: ApiKeyView;
  /** On a rotation: the id of the key it replaces. */
  readonly replaces?: string;
}
