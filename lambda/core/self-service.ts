import { createHash } from 'node:crypto';
import type { SelfServiceView } from './console-views';
import type { Person } from './identity';
import { type Members, personKey, type PersonRef } from './members';
import {
  createProject,
  type ProjectCreationPorts,
  ProjectCreationRefusal,
  undoGatewayKey,
} from './project-creation';
import type { IssuedKey, ProjectKeys } from './project-keys';
import type { ProjectRecord } from './project';
import {
  MAX_PROJECTS_PER_PERSON,
  SELF_SERVICE_OFF_MESSAGE,
  SELF_SERVICE_PLAN,
  FIRST_KEY_NAME,
  type SelfServiceSettings,
  UPGRADE_MESSAGE,
  warningThreshold,
} from './self-service-settings';

/**
 * The self-service start (issue 27): a signed-in person creates a project on the Free plan,
 * becomes its owner and gets its first API key, without a platform engineer. Two caps hold under
 * concurrency, each a counter taken with a conditional write before anything is made and given
 * back when the create then fails: at most {@link MAX_PROJECTS_PER_PERSON} per person, and a
 * platform-wide cap, because every project takes one of API Gateway's 10,000 API keys per account
 * and region. A platform setting turns it off. Plan changes stay with platform engineers.
 */

/**
 * Counters of places taken, each changed by one conditional write, so creates at the same moment
 * never take more places than there are.
 */
export interface SelfServiceSlots {
  /** Takes a place of `counter` if fewer than `cap` are taken: the count after, or undefined when full. */
  take(counter: string, cap: number): Promise<number | undefined>;
  /** Gives a place back (never below zero). */
  giveBack(counter: string): Promise<void>;
  /** The places taken. */
  count(counter: string): Promise<number>;
}

/** The counter of every self-service project of the platform. */
export const PLATFORM_COUNTER = 'self-service#projects';

/** The counter of one person's self-service projects (their provider's issuer and subject, hashed). */
export function personCounter(person: PersonRef): string {
  return `self-service#person#${createHash('sha256').update(personKey(person), 'utf8').digest('hex')}`;
}

export type SelfServiceRefusalKind =
  'self_service_off' | 'too_many_projects' | 'self_service_full' | ProjectCreationRefusal['kind'];

/** Why no project was made; nothing was left behind. */
export class SelfServiceRefusal extends Error {
  constructor(
    readonly kind: SelfServiceRefusalKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SelfServiceOptions {
  readonly settings: SelfServiceSettings;
  readonly slots: SelfServiceSlots;
  readonly creation: ProjectCreationPorts;
  readonly members: Pick<Members, 'add'>;
  readonly keys: Pick<ProjectKeys, 'create'>;
  /** Told of every create at or past {@link warningThreshold} (a log line and a metric). */
  readonly nearCap?: (count: number, cap: number) => void;
}

export interface SelfServiceProject {
  readonly project: ProjectRecord;
  /** The project's first API key, shown once. */
  readonly firstKey: IssuedKey;
}

/** A person's self-service start. */
/** What the console offers a person about creating a project: the page's view and the create. */
export interface SelfServiceDoor {
  view(): SelfServiceView;
  create(
    person: Pick<Person, 'issuer' | 'subject' | 'email' | 'name'>,
    name: string,
  ): Promise<SelfServiceProject>;
}

/**
 * Self-service where no composition sets it up (a console composed without it): the page says how
 * to get a project, and a create is refused.
 */
export const SELF_SERVICE_CLOSED: SelfServiceDoor = {
  view: () => ({ available: false, message: SELF_SERVICE_OFF_MESSAGE, upgrade: UPGRADE_MESSAGE }),
  create: async () => {
    throw new SelfServiceRefusal('self_service_off', SELF_SERVICE_OFF_MESSAGE);
  },
};

export class SelfService implements SelfServiceDoor {
  constructor(private readonly options: SelfServiceOptions) {}

  /** What the page shows a person about creating a project. */
  view(): SelfServiceView {
    const { enabled } = this.options.settings;
    return enabled
      ? { available: true, projectsPerPerson: MAX_PROJECTS_PER_PERSON, upgrade: UPGRADE_MESSAGE }
      : { available: false, message: SELF_SERVICE_OFF_MESSAGE, upgrade: UPGRADE_MESSAGE };
  }

  /**
   * Creates a Free project named `name` with `person` as its owner, and its first API key. The
   * person's place and the platform's are taken first (conditional writes), then the project is
   * made as the projects tool makes one; a refusal or failure after that gives both places back.
   */
  async create(
    person: Pick<Person, 'issuer' | 'subject' | 'email' | 'name'>,
    name: string,
  ): Promise<SelfServiceProject> {
    const { settings, slots, creation } = this.options;
    if (!settings.enabled) throw new SelfServiceRefusal('self_service_off', SELF_SERVICE_OFF_MESSAGE);
    const mine = personCounter(person);
    if ((await slots.take(mine, MAX_PROJECTS_PER_PERSON)) === undefined) {
      throw new SelfServiceRefusal(
        'too_many_projects',
        `You have created ${MAX_PROJECTS_PER_PERSON} projects, the most one person may create: use one of them, or ask the platform team for another.`,
      );
    }
    let taken: number | undefined;
    try {
      taken = await slots.take(PLATFORM_COUNTER, settings.projectCap);
    } catch (error) {
      await slots.giveBack(mine);
      throw error;
    }
    if (taken === undefined) {
      await slots.giveBack(mine);
      this.options.nearCap?.(settings.projectCap, settings.projectCap);
      throw new SelfServiceRefusal(
        'self_service_full',
        'This platform holds the most self-service projects it may (every project takes one of its API Gateway keys): ask the platform team to create your project.',
      );
    }
    if (taken >= warningThreshold(settings.projectCap)) this.options.nearCap?.(taken, settings.projectCap);
    let project: ProjectRecord;
    try {
      ({ record: project } = await createProject(creation, { name, plan: SELF_SERVICE_PLAN }));
    } catch (error) {
      await Promise.all([slots.giveBack(mine), slots.giveBack(PLATFORM_COUNTER)]);
      if (error instanceof ProjectCreationRefusal) throw new SelfServiceRefusal(error.kind, error.message);
      throw error;
    }
    const owner = {
      issuer: person.issuer,
      subject: person.subject,
      email: person.email,
      ...(person.name === undefined ? {} : { name: person.name }),
    };
    try {
      await this.options.members.add(project.name, owner, 'owner', 'platform');
    } catch (error) {
      // A project nobody owns is one nobody can reach: it is taken back whole, its places given back.
      await this.undo(project, mine);
      throw error;
    }
    const firstKey = await this.options.keys.create(project.name, FIRST_KEY_NAME);
    return { project, firstKey };
  }

  /** Deletes a project whose owner could not be added, its gateway key, and gives its places back. */
  private async undo(project: ProjectRecord, personPlace: string): Promise<void> {
    const { creation, slots } = this.options;
    await creation.projects.delete(project.name);
    await undoGatewayKey(creation.gateway, project.name, project.usageId);
    await Promise.all([slots.giveBack(personPlace), slots.giveBack(PLATFORM_COUNTER)]);
  }

  /** Places taken on the platform, and the cap (the projects tool shows it). */
  async platformCount(): Promise<{ readonly count: number; readonly cap: number }> {
    return { count: await this.options.slots.count(PLATFORM_COUNTER), cap: this.options.settings.projectCap };
  }
}

export * from './self-service-settings';
