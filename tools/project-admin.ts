import type { ApiKeyRecord } from '../lambda/core/api-key';
import {
  isAgreedPlan,
  type PlanLimits,
  type PlanName,
  planDefinition,
  planNumbersProblems,
} from '../lambda/core/plans';
import {
  newUsageId,
  parseAllowedOrigins,
  type ProjectRecord,
  issueConsoleToken,
} from '../lambda/core/project';
import {
  type CreatedProject,
  createProject,
  type ProjectGateway,
  ProjectCreationRefusal,
  type ProjectRequest,
  undoGatewayKey,
} from '../lambda/core/project-creation';
import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { ProjectRepository } from '../lambda/store/project-repository';
import { reason, Refusal, UsageError } from './failures';

/**
 * The project operations of the projects tool. The projects table is the truth the
 * authorizer reads. On a deployed stage each project also has one API Gateway key (valued
 * by its usage identifier) in the usage plan of its plan; steps run so that a project is
 * never without a working gateway key, and a failure half-way undoes what it did or says
 * what is left to do.
 */

export type { ProjectGateway } from '../lambda/core/project-creation';

/** Counts a project's custom domains (the domains tool's state). */
export type DomainCount = (project: string) => Promise<number>;

/** Removes every member of a project (the members table); the number removed. */
export type MemberRemoval = (project: string) => Promise<number>;

/** Removes every invitation of a project and its counter of places (the invitations table); the number removed. */
export type InvitationRemoval = (project: string) => Promise<number>;

export interface ProjectAdminOptions {
  readonly projects: ProjectRepository;
  readonly keys: ApiKeyRepository;
  /** The gateway of a deployed stage; none in local mode. */
  readonly gateway?: ProjectGateway;
  /** @default no project has domains */
  readonly domainsOf?: DomainCount;
  /** @default no project has members */
  readonly removeMembersOf?: MemberRemoval;
  /** @default no project has invitations */
  readonly removeInvitationsOf?: InvitationRemoval;
  /**
   * Resolves once no authorizer can still hand out a usage identifier replaced just now
   * (their cache time). Only a plan change on a deployed stage waits.
   */
  readonly waitForKeyCaches?: () => Promise<void>;
  readonly clock?: () => Date;
}

export type { CreatedProject } from '../lambda/core/project-creation';

export interface PlanChange {
  readonly name: string;
  readonly from: PlanName;
  readonly to: PlanName;
  readonly agreedLimits?: PlanLimits;
  /** Set when the old gateway key is left behind: what happened and how to finish. */
  readonly incomplete?: string;
}

export interface DeletedProject {
  readonly name: string;
  /** Its members removed with it. */
  readonly members: number;
  /** Its invitations removed with it (every state), and their counter of places. */
  readonly invitations: number;
  /** Set when the project's gateway key or members are left behind: what happened and how to finish. */
  readonly incomplete?: string;
}

/** A project of that name exists already. */
export class ProjectExists extends UsageError {}

/** How to create a project that migration makes, rather than an operator. */
export type CreateOptions = Pick<ProjectRequest, 'adoptFormer'>;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Checks the numbers given with a plan; a wrong one is a wrong invocation. */
function checkPlanNumbers(plan: PlanName, numbers: Partial<PlanLimits> | undefined): PlanLimits | undefined {
  const problems = planNumbersProblems(plan, numbers);
  if (problems.length > 0) throw new UsageError(problems.join(' '));
  return isAgreedPlan(planDefinition(plan)) ? (numbers as PlanLimits) : undefined;
}

/** A project's allowed origins as the tool prints them. */
export function originsText(origins: readonly string[]): string {
  return origins.length === 0 ? 'none' : origins.join(', ');
}

/** The origins given, normalized; a bad one (or too many) is a wrong invocation naming each. */
export function checkOrigins(texts: readonly string[]): string[] {
  const parsed = parseAllowedOrigins(texts);
  if (parsed.problems) throw new UsageError(parsed.problems.join(' '));
  return parsed.origins;
}

export class ProjectAdmin {
  private readonly projects: ProjectRepository;
  private readonly keys: ApiKeyRepository;
  private readonly gateway: ProjectGateway | undefined;
  private readonly domainsOf: DomainCount;
  private readonly removeMembersOf: MemberRemoval;
  private readonly removeInvitationsOf: InvitationRemoval;
  private readonly waitForKeyCaches: () => Promise<void>;
  private readonly clock: () => Date;

  constructor(options: ProjectAdminOptions) {
    this.projects = options.projects;
    this.keys = options.keys;
    this.gateway = options.gateway;
    this.domainsOf = options.domainsOf ?? (async () => 0);
    this.removeMembersOf = options.removeMembersOf ?? (async () => 0);
    this.removeInvitationsOf = options.removeInvitationsOf ?? (async () => 0);
    this.waitForKeyCaches = options.waitForKeyCaches ?? (async () => undefined);
    this.clock = options.clock ?? (() => new Date());
  }

  /** Every project, by name (records hold the console token's hash only). */
  list(): Promise<ProjectRecord[]> {
    return this.projects.list();
  }

  /** A project and its keys (records only: they hold no secret). */
  async show(name: string): Promise<{ project: ProjectRecord; keys: ApiKeyRecord[] }> {
    const project = await this.existing(name);
    return { project, keys: await this.keys.listByProject(name) };
  }

  /**
   * Creates a project on a plan (an agreed plan with its numbers). On a deployed stage its
   * gateway key is made first, so no stored project is ever without one.
   */
  async create(
    name: string,
    plan: PlanName,
    numbers?: Partial<PlanLimits>,
    options: CreateOptions = {},
  ): Promise<CreatedProject> {
    const agreedLimits = checkPlanNumbers(plan, numbers);
    try {
      return await createProject(
        {
          projects: this.projects,
          keys: this.keys,
          gateway: this.gateway,
          clock: this.clock,
          removeFormerMembers: this.removeMembersOf,
        },
        { name, plan, ...(agreedLimits ? { agreedLimits } : {}), adoptFormer: options.adoptFormer === true },
      );
    } catch (error) {
      if (!(error instanceof ProjectCreationRefusal)) throw error;
      switch (error.kind) {
        case 'name_taken':
          throw new ProjectExists(error.message);
        case 'gateway_full':
          throw new Refusal(`Project ${name} was not created: ${error.message}`);
        case 'invalid_name':
        case 'former_name':
          throw new UsageError(error.message);
      }
    }
  }

  /**
   * Moves a project to another plan (an agreed plan with its numbers). On a deployed stage
   * the project gets a new gateway key in the new plan's usage plan first, then its record
   * names it; the old key is deleted once no authorizer can still hand it out.
   */
  async setPlan(name: string, plan: PlanName, numbers?: Partial<PlanLimits>): Promise<PlanChange> {
    const agreedLimits = checkPlanNumbers(plan, numbers);
    const project = await this.existing(name);
    if (!planDefinition(plan).customDomains) {
      const domains = await this.domainsOf(name);
      if (domains > 0) {
        throw new Refusal(
          `Project ${name} has ${plural(domains, 'custom domain')}, which the ${plan} plan does not allow: remove ${domains === 1 ? 'it' : 'them'} first (npm run domains -- remove).`,
        );
      }
    }
    const change: PlanChange = {
      name,
      from: project.plan,
      to: plan,
      ...(agreedLimits ? { agreedLimits } : {}),
    };
    const { gateway } = this;
    // Same usage plan (an agreement's new numbers): the gateway key stays.
    if (!gateway || project.plan === plan) {
      if (!(await this.projects.setPlan(name, plan, agreedLimits))) throw this.noSuchProject(name);
      return change;
    }

    const usageId = newUsageId();
    try {
      await gateway.createKey(name, usageId, plan);
    } catch (error) {
      throw new Error(
        `Could not create a gateway key for project ${name} in the ${plan} usage plan: ${reason(error)}. Its plan is still ${project.plan}.`,
      );
    }
    try {
      if (!(await this.projects.setPlan(name, plan, agreedLimits, usageId)))
        throw new Error('its record is gone');
    } catch (error) {
      // A write that failed on the way back may have landed: only the record can say.
      const after = await this.projects.get(name).catch(() => undefined);
      if (after?.usageId !== usageId) {
        const known = after !== undefined;
        const undone = known
          ? await undoGatewayKey(this.gateway, name, usageId)
          : ` Both gateway keys are kept, since the record could not be read: run set-plan ${name} ${plan} again.`;
        throw new Error(
          `Could not record plan ${plan} for project ${name}: ${reason(error)}.${known ? ` Its plan is still ${project.plan}.` : ''}${undone}`,
        );
      }
    }
    await this.waitForKeyCaches();
    try {
      await gateway.deleteKey(name, project.usageId);
      return change;
    } catch (error) {
      return {
        ...change,
        incomplete:
          `The old gateway key of project ${name} could not be deleted from ${gateway.description} (${reason(error)}): ` +
          `delete the key valued ${project.usageId} there.`,
      };
    }
  }

  /**
   * Replaces the browser origins the project allows (none: no page may call its address),
   * each normalized; a bad origin is a wrong invocation, and nothing is written.
   */
  async setOrigins(name: string, texts: readonly string[]): Promise<string[]> {
    const origins = checkOrigins(texts);
    if (!(await this.projects.setAllowedOrigins(name, origins))) throw this.noSuchProject(name);
    return origins;
  }

  /** A new console token (shown once); the old one stops working at once. */
  async rotateConsoleToken(name: string): Promise<string> {
    await this.existing(name);
    const { token, hash } = issueConsoleToken(name);
    if (!(await this.projects.setConsoleToken(name, hash, this.clock()))) throw this.noSuchProject(name);
    return token;
  }

  /**
   * Deletes a project that has no active keys and no custom domains, its members, and its
   * invitations with their counter of places (no link of it joins a later project of that name,
   * which starts with no place taken). Its pets and revoked keys stay (unreachable: its name
   * cannot be taken again), as do its usage counters and idempotency records until they expire;
   * its sessions end at their next request.
   */
  async delete(name: string): Promise<DeletedProject> {
    const project = await this.existing(name);
    const active = (await this.keys.listByProject(name)).filter((key) => !key.revokedAt);
    const domains = await this.domainsOf(name);
    const blockers = [
      ...(active.length > 0
        ? [
            `${active.length === 1 ? 'an active key' : `${active.length} active keys`} (${active
              .map((key) => (key.name ? `${key.keyId} "${key.name}"` : key.keyId))
              .join(
                ', ',
              )}): revoke ${active.length === 1 ? 'it' : 'them'} with npm run keys -- revoke <id>, or move ${active.length === 1 ? 'it' : 'them'} with npm run keys -- move <id> --project <name>`,
          ]
        : []),
      ...(domains > 0
        ? [`${plural(domains, 'custom domain')}: remove them with npm run domains -- remove`]
        : []),
    ];
    if (blockers.length > 0) {
      throw new Refusal(`Project ${name} was not deleted: it still has ${blockers.join('; and ')}.`);
    }
    if (!(await this.projects.delete(name))) throw this.noSuchProject(name);
    // After the record: from then on no member can be added (the member rules need the project).
    let members = 0;
    const left: string[] = [];
    try {
      members = await this.removeMembersOf(name);
    } catch (error) {
      left.push(
        `its members could not be removed (${reason(error)}): they reach nothing while no project is named ${name}, and creating one removes them`,
      );
    }
    let invitations = 0;
    try {
      invitations = await this.removeInvitationsOf(name);
    } catch (error) {
      left.push(
        `its invitations could not be removed (${reason(error)}): their links join nothing while no project is named ${name}`,
      );
    }
    const { gateway } = this;
    if (gateway) {
      try {
        await gateway.deleteKey(name, project.usageId);
      } catch (error) {
        left.push(
          `its gateway key could not be deleted from ${gateway.description} (${reason(error)}): delete the key valued ${project.usageId} there`,
        );
      }
    }
    return left.length === 0
      ? { name, members, invitations }
      : { name, members, invitations, incomplete: `Project ${name} is deleted, but ${left.join('; and ')}.` };
  }

  private async existing(name: string): Promise<ProjectRecord> {
    const project = await this.projects.get(name);
    if (!project) throw this.noSuchProject(name);
    return project;
  }

  private noSuchProject(name: string): UsageError {
    return new UsageError(`No project is named ${name}: see npm run projects -- list.`);
  }
}
