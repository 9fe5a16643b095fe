import type { Person } from '../../lambda/core/identity';
import { ROLES, type Role } from '../../lambda/core/permissions';
import type { PlanName } from '../../lambda/core/plans';
import { consolePeople, newPerson } from './console-people';
import { type ConsoleAnswer, type ConsoleTestApi, startConsoleTestApi } from './local-console';

/**
 * People calling local mode's console over HTTP, as the console's HTTP tests set them up: the
 * console started with its people, calls made with a person's session, and projects with members
 * signed in to them.
 */

/** A person's session as a browser holds it: the cookie's value and the CSRF token. */
export interface Caller {
  readonly cookie: string;
  readonly csrfToken: string;
}

export type ConsolePeople = ReturnType<typeof consolePeople>;

/** A call with a person's session, from the console's page: Origin and CSRF token on all but GET. */
export type CallAs = (caller: Caller, method: string, path: string, body?: unknown) => Promise<ConsoleAnswer>;

/** A project with a member of each role, each signed in to it. */
export interface TeamProject {
  readonly name: string;
  readonly consoleToken: string;
  readonly team: Record<Role, { readonly person: Person; readonly caller: Caller }>;
}

export interface ConsoleWithPeople {
  readonly t: ConsoleTestApi;
  readonly people: ConsolePeople;
  readonly as: CallAs;
  /** A new person of `role` in the project, signed in to it. */
  memberOf(project: string, role: Role): Promise<Caller>;
  teamProject(plan?: PlanName): Promise<TeamProject>;
  close(): Promise<void>;
}

/** A call to `t` with a person's session, from the console's page (see {@link CallAs}). */
export function callWithSession(
  t: ConsoleTestApi,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
): Promise<ConsoleAnswer> {
  return t.call(path, {
    method,
    cookie: caller.cookie,
    ...(method === 'GET' ? {} : { origin: t.consoleOrigin, csrfToken: caller.csrfToken }),
    ...(body === undefined ? {} : { body }),
  });
}

export async function startConsoleWithPeople(): Promise<ConsoleWithPeople> {
  const t = await startConsoleTestApi();
  const people = consolePeople(t);
  const as: CallAs = (...call) => callWithSession(t, ...call);
  const memberOf = async (project: string, role: Role): Promise<Caller> => {
    const person = newPerson(role);
    await people.add(project, person, role);
    return people.signIn(person, project);
  };
  const teamProject = async (plan: PlanName = 'business'): Promise<TeamProject> => {
    const project = await t.createProject(plan);
    const team = {} as Record<Role, { person: Person; caller: Caller }>;
    for (const role of ROLES) {
      const person = newPerson(role);
      await people.add(project.name, person, role);
      team[role] = { person, caller: await people.signIn(person, project.name) };
    }
    return { ...project, team };
  };
  return {
    t,
    people,
    as,
    memberOf,
    teamProject,
    close: async () => {
      people.close();
      await t.close();
    },
  };
}
