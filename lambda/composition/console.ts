import { ConsoleSessions } from '../core/console-session';
import { type InvitationMailer, Invitations, type VouchedDomains } from '../core/invitations';
import { MemberRoles, Members } from '../core/members';
import { PersonalTokens } from '../core/personal-tokens';
import type { CustomDomains } from '../core/custom-domains/custom-domains';
import { ProjectKeys } from '../core/project-keys';
import type { ProjectGateway } from '../core/project-creation';
import {
  SELF_SERVICE_CLOSED,
  SelfService,
  type SelfServiceDoor,
  type SelfServiceSettings,
  type SelfServiceSlots,
} from '../core/self-service';
import { warnNearSelfServiceCap } from '../operations/console-projects';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import type { ConsoleStackDependencies } from '../middleware/console-handler';
import { consoleApi } from '../operations/console';
import {
  consoleSignIn,
  type ConsoleSignInDependencies,
  personSessionStarter,
} from '../operations/console-sign-in';
import { composeLimiter, type SharedParts } from './api';
import type { ServicePorts } from './ports';

/** What every console stack reads: the projects, the sessions, the counters, the clock, the edge's secrets. */
export interface ConsoleStackPorts extends Pick<
  ServicePorts,
  'projects' | 'consoleSessions' | 'members' | 'counters' | 'clock' | 'originSecrets'
> {
  /** The sessions' clock (local mode's tests move it to end sessions). @default the ports' clock */
  readonly sessionClock?: () => number;
  /** Members' personal access tokens (issue 28): without them a `pat_` bearer is refused. */
  readonly personalTokens?: ServicePorts['personalTokens'];
}

/**
 * The console's ports: its stack's, the keys, invitations and personal tokens tables, the audit log, and the self-service
 * start's counters (issue 27; without them self-service is off).
 */
export type ConsolePorts = ConsoleStackPorts &
  Pick<ServicePorts, 'apiKeys' | 'invitations' | 'personalTokens' | 'auditLog'> & {
    readonly selfServiceSlots?: SelfServiceSlots;
    /** Where a self-service project's API Gateway key is made: AWS's; none in local mode. */
    readonly selfServiceGateway?: ProjectGateway;
  };

/** How invitations reach people (issue 27): the mailer, the link's address, the vouched domains. */
export interface InvitationSettings {
  /** SES in AWS, the outbox in local mode. */
  readonly mailer: InvitationMailer;
  /** The link of a token: the console page with `#invitation=<token>`. */
  readonly linkOf: (token: string) => string;
  /** The email domains each enterprise identity provider may vouch for. @default none */
  readonly vouched?: VouchedDomains;
}

export interface ConsoleSettings {
  /**
   * The console page's origins (`https://console.<platform domain>`; local mode's
   * `http://localhost:<port>` and `http://127.0.0.1:<port>`): a change made with the session
   * cookie must carry one of them as its `Origin`.
   */
  readonly consoleOrigins: readonly string[];
  /** The hosts the console's API answers at (`console-api.<platform domain>`; locally the page's). */
  readonly consoleHosts: readonly string[];
  /** The address of a project's API (`https://<name>.<platform domain>/v1`). */
  readonly projectAddress: (project: string) => string;
  /** Sign-in through an OpenID provider (issue 26); without it the console takes console tokens only. */
  readonly signIn?: ConsoleSignInSettings;
  /** Invitations' delivery (issue 27). */
  readonly invitations: InvitationSettings;
  /** People's own projects (issue 27). @default off */
  readonly selfService?: SelfServiceSettings;
}

/** The console's OpenID sign-in: the provider (the port), the sealing key and the exact callback. */
export type ConsoleSignInSettings = Pick<
  ConsoleSignInDependencies,
  'identity' | 'pendingKey' | 'callbackUrl' | 'movedHosts'
>;

/** The parts the console uses that are composed apart: the domains service, and a shared limiter. */
export interface ConsoleParts extends SharedParts {
  readonly domains: CustomDomains;
  /**
   * Self-service project creation over the console's members and keys (issue 27), composed by
   * {@link composeSelfService} (local mode, and the AWS console function where the stack turns it on).
   * @default closed
   */
  readonly selfService?: (members: Members, keys: ProjectKeys) => SelfServiceDoor;
}

/**
 * What every console stack shares: the projects, the sessions, the console's origins and the
 * limiter (a caller without a valid token is counted per client IP with anonymous API calls).
 * Local mode's sandbox records endpoint runs on it too.
 */
export function composeConsoleStack(
  ports: ConsoleStackPorts,
  settings: Pick<ConsoleSettings, 'consoleOrigins'>,
  shared: SharedParts = {},
  roles: MemberRoles = memberRolesOf(ports),
): ConsoleStackDependencies {
  const { projects, clock, originSecrets } = ports;
  const personalTokens =
    ports.personalTokens && composePersonalTokens({ ...ports, personalTokens: ports.personalTokens }, roles);
  return {
    projects,
    ...(personalTokens ? { personalTokens } : {}),
    limiter: shared.limiter ?? composeLimiter({ counters: ports.counters, clock }),
    sessions: new ConsoleSessions({
      store: ports.consoleSessions,
      projects,
      members: ports.members,
      roles,
      clock: ports.sessionClock ?? clock,
    }),
    consoleOrigins: settings.consoleOrigins,
    ...(originSecrets ? { originSecrets } : {}),
  };
}

/** Members' roles as requests read them, cached on the sessions' clock (30 s at most). */
export function memberRolesOf(
  ports: Pick<ConsoleStackPorts, 'members' | 'clock' | 'sessionClock'>,
): MemberRoles {
  return new MemberRoles(ports.members, ports.sessionClock ?? ports.clock);
}

/** The member rules over the members table and the projects' owner counts (and tokens, revoked with a removal). */
export function composeMembers(
  ports: Pick<ServicePorts, 'members' | 'projects' | 'clock'>,
  roles: MemberRoles,
  tokens?: PersonalTokens,
): Members {
  return new Members({
    store: ports.members,
    owners: ports.projects,
    projects: ports.projects,
    clock: ports.clock,
    roles,
    ...(tokens ? { tokens } : {}),
  });
}

/** The personal access token rules over their table, the projects and members' roles (issue 28). */
export function composePersonalTokens(
  ports: Pick<ConsoleStackPorts, 'projects' | 'clock' | 'sessionClock'> &
    Pick<ServicePorts, 'personalTokens'>,
  roles: MemberRoles,
): PersonalTokens {
  return new PersonalTokens({
    store: ports.personalTokens,
    projects: ports.projects,
    roles,
    // The sessions' clock: local mode's tests move it to expire sessions and tokens alike.
    clock: ports.sessionClock ?? ports.clock,
  });
}

/** The key rules (a project's count of active keys, the cap, rotation) over the keys and projects tables. */
export function composeProjectKeys(ports: Pick<ServicePorts, 'apiKeys' | 'projects' | 'clock'>): ProjectKeys {
  return new ProjectKeys({
    keys: ports.apiKeys,
    projects: ports.projects,
    clock: () => new Date(ports.clock()),
  });
}

/**
 * The self-service start (issue 27) over the projects, keys and members tables and its counters;
 * on only when the settings say so, and then its counters are required.
 */
export function composeSelfService(
  ports: Pick<
    ConsolePorts,
    'projects' | 'apiKeys' | 'members' | 'clock' | 'selfServiceSlots' | 'selfServiceGateway'
  >,
  settings: SelfServiceSettings | undefined,
  members: Members,
  keys: ProjectKeys,
): SelfService {
  const off = { enabled: false, projectCap: 0 };
  const { selfServiceSlots: slots } = ports;
  if (settings?.enabled && !slots)
    throw new Error('Self-service projects are on, but the console has no counters for their caps.');
  return new SelfService({
    settings: slots ? (settings ?? off) : off,
    slots: slots ?? { take: async () => undefined, giveBack: async () => undefined, count: async () => 0 },
    creation: {
      projects: ports.projects,
      keys: ports.apiKeys,
      ...(ports.selfServiceGateway ? { gateway: ports.selfServiceGateway } : {}),
      clock: () => new Date(ports.clock()),
      // As the projects tool's: a deleted project's leftover members are not the new one's.
      removeFormerMembers: async (name) => {
        for (const member of await ports.members.listOf(name)) {
          await ports.members.delete(name, member, member.role);
        }
      },
    },
    members,
    keys,
    nearCap: warnNearSelfServiceCap,
  });
}

/** The console's API (`/console/api/…`): sessions, usage, keys and the domains service given. */
export function composeConsole(
  ports: ConsolePorts,
  settings: ConsoleSettings,
  parts: ConsoleParts,
): ApiLambdaHandler {
  const roles = memberRolesOf(ports);
  const tokens = composePersonalTokens(ports, roles);
  const stack = { ...composeConsoleStack(ports, settings, parts, roles), personalTokens: tokens };
  const members = composeMembers(ports, roles, tokens);
  const invitations = new Invitations({
    store: ports.invitations,
    members,
    projects: ports.projects,
    mailer: settings.invitations.mailer,
    linkOf: settings.invitations.linkOf,
    vouched: settings.invitations.vouched ?? (() => []),
    clock: ports.clock,
  });
  const keys = composeProjectKeys(ports);
  return consoleApi({
    ...stack,
    members,
    tokens,
    invitations,
    selfService: parts.selfService?.(members, keys) ?? SELF_SERVICE_CLOSED,
    ...(settings.signIn
      ? {
          signIn: consoleSignIn({
            ...settings.signIn,
            limiter: stack.limiter,
            ...(stack.originSecrets ? { originSecrets: stack.originSecrets } : {}),
            clock: ports.clock,
            startPersonSession: personSessionStarter(stack.sessions, ports.auditLog, ports.clock),
            acceptInvitation: async (token, person) => (await invitations.accept(token, person)).project,
          }),
        }
      : {}),
    consoleHosts: settings.consoleHosts,
    auditLog: ports.auditLog,
    keys,
    counters: ports.counters,
    projectAddress: settings.projectAddress,
    // The limiter's clock: usage is read in the windows it counts in.
    clock: ports.clock,
    domains: parts.domains,
  });
}
