import { randomBytes } from 'node:crypto';
import {
  composeMembers,
  composeProjectKeys,
  composeSelfService,
  memberRolesOf,
} from '../../../lambda/composition/console';
import { SelfServiceRefusal } from '../../../lambda/core/self-service';
import { newPerson } from '../../support/console-people';
import { localTablePorts } from '../../../local/local-ports';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The self-service start as the console's composition builds it where it is not set up (issue 27):
 * without its counters (AWS today) or its settings, a person's create is refused
 * `self_service_off` and makes nothing; turned on without counters, the function refuses to start
 * rather than run without its caps. Over the real embedded store's tables.
 */

const START = Date.UTC(2031, 4, 5, 6, 7, 8);

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

function parts() {
  const ports = localTablePorts(store.documents, () => START);
  const members = composeMembers(ports, memberRolesOf(ports));
  // The tables self-service needs, without its counters (as the AWS console function has them).
  const withoutSlots = {
    projects: ports.projects,
    apiKeys: ports.apiKeys,
    members: ports.members,
    clock: ports.clock,
  };
  return { ports, withoutSlots, members, keys: composeProjectKeys(ports) };
}

describe('self-service where the console has no counters for it', () => {
  it.each([
    ['no settings', undefined],
    ['settings that turn it off', { enabled: false, projectCap: 10 }],
  ])(
    'with %s: the page is told it is off, and a create is refused and makes no project',
    async (_, settings) => {
      const { ports, withoutSlots, members, keys } = parts();
      const selfService = composeSelfService(withoutSlots, settings, members, keys);
      expect(selfService.view()).toMatchObject({ available: false, message: expect.any(String) });

      const person = newPerson('owner');
      const name = `ss-${randomBytes(4).toString('hex')}`;
      const refusal = await selfService.create(person, name).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(SelfServiceRefusal);
      expect(refusal).toMatchObject({ kind: 'self_service_off' });
      expect(await ports.projects.get(name)).toBeUndefined();
      expect(await members.projectsOf(person)).toEqual([]);
    },
  );

  it('refuses to compose self-service turned on without its counters (no caps to enforce)', () => {
    const { withoutSlots, members, keys } = parts();
    expect(() => composeSelfService(withoutSlots, { enabled: true, projectCap: 10 }, members, keys)).toThrow(
      /no counters/,
    );
  });

  it('with its counters and turned on, creates the person’s Free project (the same ports, the other answer)', async () => {
    const { ports, members, keys } = parts();
    const selfService = composeSelfService(ports, { enabled: true, projectCap: 1000 }, members, keys);
    const person = newPerson('owner');
    const name = `ss-${randomBytes(4).toString('hex')}`;
    const { project } = await selfService.create(person, name);
    expect(project).toMatchObject({ name, plan: 'free' });
    expect(await ports.projects.get(name)).toMatchObject({ name, plan: 'free' });
  });

  it("removes a deleted project's leftover members before the person's project of that name is made", async () => {
    const { ports, members, keys } = parts();
    const selfService = composeSelfService(ports, { enabled: true, projectCap: 1000 }, members, keys);
    const name = `ss-${randomBytes(4).toString('hex')}`;
    // A member left behind by a deleted project of the same name (its removal failed).
    const leftover = newPerson('admin');
    await ports.members.create({
      project: name,
      ...leftover,
      role: 'admin',
      addedAt: new Date(START).toISOString(),
    });

    const person = newPerson('owner');
    await selfService.create(person, name);
    expect((await members.listOf(name)).map((member) => [member.subject, member.role])).toEqual([
      [person.subject, 'owner'],
    ]);
  });
});
