import { newTargetId } from './custom-domains/project-target';
import type { PlanLimits, PlanName } from './plans';
import {
  issueConsoleToken,
  newUsageId,
  type ProjectRecord,
  type ProjectStore,
  projectNameProblem,
  RESERVED_PROJECT_NAMES,
} from './project';

/**
 * Making a project, stated once: the projects tool (a platform engineer) and the console's
 * self-service start (a signed-in person) both call {@link createProject}. On a deployed stage
 * each project also has one API Gateway key (valued by its usage identifier) in the usage plan of
 * its plan; it is made first, so no stored project is ever without one, and taken back when the
 * project cannot be stored.
 */

/** What creating a project needs of the gateway of a deployed stage. */
export interface ProjectGateway {
  /** Where the gateway keys live, for messages, e.g. `API Gateway of AnimalStore-staging`. */
  readonly description: string;
  /**
   * Creates a project's gateway key (valued `usageId`) in the usage plan of `plan`; leaves
   * nothing behind when it fails. {@link GatewayKeysExhausted} when the account holds its most keys.
   */
  createKey(project: string, usageId: string, plan: PlanName): Promise<void>;
  /** Deletes the project's gateway key valued `usageId` (none is fine). */
  deleteKey(project: string, usageId: string): Promise<void>;
}

/** The account holds API Gateway's most API keys (10,000 per account and region): the message says what to do. */
export class GatewayKeysExhausted extends Error {}

/** What creating a project needs of the projects table. */
export interface NewProjectStore extends ProjectStore {
  /** Stores a new project; false when one of that name exists already. */
  create(record: ProjectRecord): Promise<boolean>;
  /** Deletes a project (one whose making failed half-way); false when there is none. */
  delete(name: string): Promise<boolean>;
}

/** What creating a project needs of the keys table: keys are never deleted, so they outlive a project. */
export interface FormerProjectKeys {
  listByProject(project: string): Promise<readonly unknown[]>;
}

export type ProjectCreationRefusalKind =
  /** Not a name a project may have (projectNameProblem). */
  | 'invalid_name'
  /** A project of that name exists. */
  | 'name_taken'
  /** A deleted project's keys (and so perhaps its pets) remain under the name. */
  | 'former_name'
  /** API Gateway holds its most keys. */
  | 'gateway_full';

/** Why a project was not created, in words an operator or a person can act on. Nothing was left behind. */
export class ProjectCreationRefusal extends Error {
  constructor(
    readonly kind: ProjectCreationRefusalKind,
    message: string,
  ) {
    super(message);
  }
}

export interface ProjectCreationPorts {
  readonly projects: NewProjectStore;
  readonly keys: FormerProjectKeys;
  /** The gateway of a deployed stage; none in local mode. */
  readonly gateway?: ProjectGateway;
  readonly clock: () => Date;
  /**
   * Removes the members a deleted project of this name left (a removal that failed, or a member
   * added while it was deleted): they would be members of the new one. Run once the name is free.
   */
  readonly removeFormerMembers?: (name: string) => Promise<unknown>;
}

export interface ProjectRequest {
  readonly name: string;
  readonly plan: PlanName;
  /** The numbers agreed with the customer, on an agreed plan only (checked by the caller). */
  readonly agreedLimits?: PlanLimits;
  /**
   * Take a name that a deleted project left keys behind under (its revoked keys and its
   * pets then belong to the new project). Only the upgrade does, for `legacy`.
   */
  readonly adoptFormer?: boolean;
}

/** A new project: `consoleToken` is shown once and never stored. */
export interface CreatedProject {
  readonly record: ProjectRecord;
  readonly consoleToken: string;
}

/** One line saying why something failed, with its cause (as the tools word failures). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${reasonOf(error.cause)})` : '';
  return `${error.message || error.name}${cause}`.replace(/\s*\n\s*/g, ' ');
}

/**
 * Why a name cannot be a new project's (a {@link ProjectCreationRefusal}), read before anything
 * is written: a bad name, one taken, one a deleted project's keys remain under.
 */
export async function checkNewProjectName(
  { projects, keys }: Pick<ProjectCreationPorts, 'projects' | 'keys'>,
  name: string,
  adoptFormer = false,
): Promise<void> {
  const problem = projectNameProblem(name, RESERVED_PROJECT_NAMES);
  if (problem) throw new ProjectCreationRefusal('invalid_name', problem);
  if (await projects.get(name))
    throw new ProjectCreationRefusal('name_taken', `Project ${name} exists already.`);
  // Keys are never deleted, so a deleted project that had keys (and so perhaps pets) left
  // them under its name: a new project of that name would see its pets.
  if (!adoptFormer && (await keys.listByProject(name)).length > 0) {
    throw new ProjectCreationRefusal(
      'former_name',
      `Project name ${name} belonged to a deleted project whose keys and pets remain under it: choose another name.`,
    );
  }
}

/**
 * Creates a project: checks its name, makes its gateway key on a deployed stage, stores it with a
 * new console token (its hash only), a usage identifier and a custom-domain target id. Two
 * creates of one name at once: one stores it, the other is refused `name_taken`, its gateway key
 * taken back. A failure that is no refusal is an Error saying what was undone.
 */
export async function createProject(
  ports: ProjectCreationPorts,
  request: ProjectRequest,
): Promise<CreatedProject> {
  const { name, plan, agreedLimits } = request;
  await checkNewProjectName(ports, name, request.adoptFormer);
  await ports.removeFormerMembers?.(name);
  const { token, hash } = issueConsoleToken(name);
  const now = ports.clock().toISOString();
  const record: ProjectRecord = {
    name,
    plan,
    ...(agreedLimits ? { agreedLimits } : {}),
    createdAt: now,
    consoleTokenHash: hash,
    consoleTokenIssuedAt: now,
    usageId: newUsageId(),
    targetId: newTargetId(),
  };
  const { gateway } = ports;
  if (gateway) {
    try {
      await gateway.createKey(name, record.usageId, plan);
    } catch (error) {
      if (error instanceof GatewayKeysExhausted)
        throw new ProjectCreationRefusal('gateway_full', error.message);
      throw new Error(
        `Could not create the gateway key of project ${name} in ${gateway.description}: ${reasonOf(error)}. No project was created.`,
      );
    }
  }
  let failure: unknown;
  try {
    if (await ports.projects.create(record)) return { record, consoleToken: token };
  } catch (error) {
    failure = error;
  }
  const undone = await undoGatewayKey(gateway, name, record.usageId);
  if (failure === undefined)
    throw new ProjectCreationRefusal('name_taken', `Project ${name} exists already.${undone}`);
  throw new Error(`Could not store project ${name}: ${reasonOf(failure)}. No project was created.${undone}`);
}

/** Deletes a gateway key that no project uses (one this run made); says how that went. */
export async function undoGatewayKey(
  gateway: ProjectGateway | undefined,
  name: string,
  usageId: string,
): Promise<string> {
  if (!gateway) return '';
  try {
    await gateway.deleteKey(name, usageId);
    return ' Its new gateway key was deleted again.';
  } catch (error) {
    return ` Its new gateway key (valued ${usageId}) is left in ${gateway.description} (${reasonOf(error)}): delete it there.`;
  }
}
