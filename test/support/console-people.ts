import { randomBytes } from 'node:crypto';
import { ConsoleSessions } from '../../lambda/core/console-session';
import type { Person } from '../../lambda/core/identity';
import { MemberRoles, Members } from '../../lambda/core/members';
import type { Role } from '../../lambda/core/permissions';
import { ConsoleSessionRepository } from '../../lambda/store/console-session-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import type { ConsoleTestApi } from './local-console';

/** The issuer the tests' people come from (the sign-in itself is test/e2e's OIDC tests'). */
export const TEST_ISSUER = 'http://127.0.0.1:1/test-issuer';

/** A new person of the test issuer. */
export function newPerson(label: string): Person {
  const subject = `${label}-${randomBytes(4).toString('hex')}`;
  return {
    issuer: TEST_ISSUER,
    subject,
    email: `${subject}@people.test`,
    emailVerified: true,
    name: label,
  };
}

/**
 * People in local mode's console, over its tables: the member rules as the members tool runs
 * them (the platform), and a person's session started as the OpenID sign-in starts it, whose
 * cookie then goes over HTTP like a browser's.
 */
export function consolePeople(t: ConsoleTestApi) {
  const documents = createDocumentClient(t.api.dynamodbEndpoint);
  const store = new MemberRepository(documents, LOCAL_TABLE_NAMES.projectMembers);
  const projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
  const members = new Members({ store, owners: projects, projects, clock: t.now });
  const sessions = new ConsoleSessions({
    store: new ConsoleSessionRepository(documents, LOCAL_TABLE_NAMES.consoleSessions),
    projects,
    members: store,
    roles: new MemberRoles(store, t.now),
    clock: t.now,
  });
  return {
    store,
    projects,
    members,
    /** Adds the person to the project with the role, as the platform. */
    add: (project: string, person: Person, role: Role) => members.add(project, person, role, 'platform'),
    /** Signs the person in to the project: the cookie's value and the CSRF token. */
    signIn: async (person: Person, project?: string) => {
      const started = await sessions.startForPerson(person, project);
      if (!started.signedIn) throw new Error(`sign-in of ${person.subject}: ${started.failure}`);
      return { cookie: started.secret, csrfToken: started.session.csrfToken, session: started.session };
    },
    startForPerson: (person: Person, project?: string) => sessions.startForPerson(person, project),
    close: () => documents.destroy(),
  };
}
