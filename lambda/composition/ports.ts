import type { AuditLog } from '../core/audit';
import type { ConsoleSessionStore } from '../core/console-session';
import type { CustomDomainStore, ProjectTargets } from '../core/custom-domains/custom-domains-ports';
import type { DnsLookup } from '../core/custom-domains/dns-verdict';
import type { TxtLookup } from '../core/custom-domains/domain-ownership';
import type { EdgeTenants } from '../core/custom-domains/edge-tenants';
import type { InvitationStore } from '../core/invitations';
import type { MemberStore, OwnerCountStore } from '../core/members';
import type { IdempotencyStore, ReservedPetWriter } from '../core/idempotency';
import type { PersonalTokenStore } from '../core/personal-tokens';
import type { PetStore } from '../core/pet';
import type { NewProjectStore } from '../core/project-creation';
import type { ProjectKeyCountStore, ProjectKeyStore } from '../core/project-keys';
import type { CounterStore } from '../core/rate-limiter';
import type { UsageWriter } from '../core/usage-counting';
import type { UsageReader } from '../core/usage-history';

/**
 * The outside world as the service's parts use it, each port as the domain declares it: the
 * tables, the edge's tenants, DNS, the edge's origin secrets, and time. A Lambda function passes
 * the AWS ports it uses (lambda/store), local mode its local ones, a test or the bench its own;
 * the composers (this folder) build the same operations, authorizer and console API from either.
 * Each composer asks for the few ports it uses (a `Pick` of these), so each function builds no
 * client it does not use.
 */
export interface ServicePorts {
  /** Milliseconds since the epoch (sunsets, rate-limit windows, caches, sessions). */
  readonly clock: () => number;
  /** The rate limiter's counters, one item per caller per day, and a project's usage on them. */
  readonly counters: CounterStore & UsageReader & UsageWriter;
  readonly pets: PetStore & ReservedPetWriter;
  /** The records of Idempotency-Keys. */
  readonly idempotencyKeys: IdempotencyStore;
  readonly apiKeys: ProjectKeyStore;
  readonly projects: ProjectKeyCountStore & ProjectTargets & OwnerCountStore & NewProjectStore;
  readonly customDomains: CustomDomainStore;
  readonly consoleSessions: ConsoleSessionStore;
  /** Projects' members (issue 26). */
  readonly members: MemberStore;
  /** Invitations to projects (issue 27). */
  readonly invitations: InvitationStore;
  /** The audit log (issue 28): appended to by the console, read by its owners and admins. */
  readonly auditLog: AuditLog;
  /** Members' personal access tokens (issue 28). */
  readonly personalTokens: PersonalTokenStore;
  /** The edge's tenants, one per custom domain (CloudFront SaaS Manager; local mode's HTTPS edge). */
  readonly edgeTenants: EdgeTenants;
  /** DNS as the domains service asks it (the system's resolver; local mode's sandbox). */
  readonly dns: DnsLookup & TxtLookup;
  /**
   * The edge's origin secret values (current, previous), where an edge fronts the service: a
   * request carrying one came through it. None: no request is believed to come through an edge.
   */
  readonly originSecrets?: () => Promise<readonly string[]>;
}
