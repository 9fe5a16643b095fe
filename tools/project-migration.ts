import { type PlanLimits, type PlanName, PLAN_NAMES } from '../lambda/core/plans';
import { LEGACY_PROJECT, type ProjectRecord, projectLimits } from '../lambda/core/project';
import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { PetRepository } from '../lambda/store/pet-repository';
import type { ProjectRepository } from '../lambda/store/project-repository';
import { ProjectAdmin, ProjectExists, type ProjectGateway } from './project-admin';

/**
 * The upgrade to projects. The release before them kept a plan on each API key and no
 * owner on pets; a pet does not record which key created it, so every pet from before
 * goes to one project, `legacy`, and every key from before joins it. `legacy` gets the
 * highest plan among those keys that still work. Running it again does nothing: it only touches keys and
 * pets that have no project yet, each with a conditional write. On a deployed stage
 * `legacy` gets its gateway key as any project does (through {@link ProjectAdmin}).
 */

export { LEGACY_PROJECT };

/**
 * The Enterprise agreements the release before projects had in its source, as
 * `enterprise:<agreement>` plans on keys; their numbers move onto the project.
 */
const FORMER_AGREEMENTS: Readonly<Record<string, PlanLimits>> = {
  'example-corp': { perMinute: 5_000, perDay: 5_000_000 },
};

interface LegacyPlan {
  readonly plan: PlanName;
  readonly agreedLimits?: PlanLimits;
}

/** A key's former plan in today's terms; a plan that no longer exists counts as free, as the limiter treated it. */
function planOfFormerKey(formerPlan: string | undefined): LegacyPlan {
  if (formerPlan?.startsWith('enterprise:')) {
    const agreedLimits = FORMER_AGREEMENTS[formerPlan.slice('enterprise:'.length)];
    return agreedLimits ? { plan: 'enterprise', agreedLimits } : { plan: 'free' };
  }
  const known = PLAN_NAMES.find((plan) => plan === formerPlan);
  return known && known !== 'enterprise' ? { plan: known } : { plan: 'free' };
}

/** The higher of two plans: later in the plan table, and between agreements the larger per-minute number. */
function higher(a: LegacyPlan, b: LegacyPlan): LegacyPlan {
  const rank = (plan: LegacyPlan) => PLAN_NAMES.indexOf(plan.plan);
  if (rank(a) !== rank(b)) return rank(a) > rank(b) ? a : b;
  return (a.agreedLimits?.perMinute ?? 0) >= (b.agreedLimits?.perMinute ?? 0) ? a : b;
}

export interface MigrationStores {
  readonly projects: ProjectRepository;
  readonly keys: ApiKeyRepository;
  readonly pets: PetRepository;
  /** The gateway of a deployed stage; none in local mode. */
  readonly gateway?: ProjectGateway;
  /** See {@link ProjectAdmin}: a plan change of `legacy` on a deployed stage waits for it. */
  readonly waitForKeyCaches?: () => Promise<void>;
}

export interface MigrationResult {
  /** The project that received them, or undefined when nothing needed moving. */
  readonly project?: ProjectRecord;
  /** The console token of `legacy` when this run created it (shown once). */
  readonly consoleToken?: string;
  /** Set when this run created `legacy` (a deployed stage then needs its gateway key). */
  readonly createdProject: boolean;
  readonly keysMoved: number;
  readonly petsMoved: number;
  /** Set when raising the plan of `legacy` left its old gateway key behind: what to finish. */
  readonly incomplete?: string;
}

/** Moves every key and pet without a project to `legacy`, creating it when needed. */
export async function migrateToProjects(
  stores: MigrationStores,
  clock: () => Date = () => new Date(),
): Promise<MigrationResult> {
  const keys = await stores.keys.listUnassigned();
  const petIds = await stores.pets.listUnassigned();
  if (keys.length === 0 && petIds.length === 0) return { createdProject: false, keysMoved: 0, petsMoved: 0 };

  // A revoked key acts for no one: only the keys that still work set the plan.
  const plan = keys
    .filter((key) => !key.revokedAt)
    .map((key) => planOfFormerKey(key.formerPlan))
    .reduce(higher, { plan: 'free' } as LegacyPlan);
  const admin = new ProjectAdmin({ ...stores, clock });
  let project = await stores.projects.get(LEGACY_PROJECT);
  let consoleToken: string | undefined;
  if (!project) {
    try {
      ({ record: project, consoleToken } = await admin.create(LEGACY_PROJECT, plan.plan, plan.agreedLimits, {
        adoptFormer: true,
      }));
    } catch (error) {
      // Another run (npm start, the tool) created it meanwhile.
      if (!(error instanceof ProjectExists)) throw error;
      project = await stores.projects.get(LEGACY_PROJECT);
    }
  }
  if (!project) throw new Error(`Project ${LEGACY_PROJECT} could neither be created nor read.`);
  const current: LegacyPlan = {
    plan: project.plan,
    ...(project.agreedLimits ? { agreedLimits: project.agreedLimits } : {}),
  };
  let incomplete: string | undefined;
  if (higher(current, plan) !== current) {
    ({ incomplete } = await admin.setPlan(LEGACY_PROJECT, plan.plan, plan.agreedLimits));
    project = {
      ...project,
      plan: plan.plan,
      ...(plan.agreedLimits ? { agreedLimits: plan.agreedLimits } : {}),
    };
  }

  let keysMoved = 0;
  for (const key of keys) if (await stores.keys.assignProject(key.keyId, LEGACY_PROJECT)) keysMoved++;
  let petsMoved = 0;
  for (const id of petIds) if (await stores.pets.assignProject(id, LEGACY_PROJECT)) petsMoved++;
  return {
    project,
    ...(consoleToken ? { consoleToken } : {}),
    createdProject: consoleToken !== undefined,
    keysMoved,
    petsMoved,
    ...(incomplete ? { incomplete } : {}),
  };
}

/** One line saying what a migration did, for npm start and the projects tool; undefined when it did nothing. */
export function describeMigration(result: MigrationResult): string | undefined {
  if (!result.project) return undefined;
  const { name, plan } = result.project;
  const { perMinute, perDay } = projectLimits(result.project);
  const moved =
    `${result.keysMoved} API key${result.keysMoved === 1 ? '' : 's'} and ` +
    `${result.petsMoved} pet${result.petsMoved === 1 ? '' : 's'} from before projects`;
  const created = result.createdProject ? ` Project ${name} was created for them.` : '';
  return `Upgrade to projects: moved ${moved} into project ${name} (plan ${plan}: ${perMinute} per minute, ${perDay} per day).${created}`;
}

/** What `projects migrate` prints: one JSON line, or the summary and the token shown once. */
export function migrationReport(result: MigrationResult, json: boolean): string[] {
  if (json) {
    return [
      JSON.stringify({
        project: result.project?.name ?? null,
        plan: result.project?.plan ?? null,
        createdProject: result.createdProject,
        keysMoved: result.keysMoved,
        petsMoved: result.petsMoved,
        ...(result.consoleToken ? { consoleToken: result.consoleToken } : {}),
      }),
    ];
  }
  const lines = [describeMigration(result) ?? 'Nothing to migrate: every key and pet belongs to a project.'];
  if (result.consoleToken) {
    lines.push(
      `Console token of project ${result.project?.name} (shown once, store it now): ${result.consoleToken}`,
    );
  }
  return lines;
}
