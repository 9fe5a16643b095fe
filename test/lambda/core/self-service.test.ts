import { ProjectKeys } from '../../../lambda/core/project-keys';
import {
  PLATFORM_COUNTER,
  personCounter,
  SelfService,
  selfServiceSettingsFrom,
  warningThreshold,
} from '../../../lambda/core/self-service';
import { Members } from '../../../lambda/core/members';
import { StoreUnavailableError } from '../../../lambda/core/errors';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { SelfServiceSlotStore } from '../../../lambda/store/self-service-slots';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { newPerson } from '../../support/console-people';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The self-service rules over the embedded store: the setting read from the environment, the
 * warning from 80 % of the cap, and a create whose owner cannot be stored taken back whole.
 */

let t: TestStore;
let projects: ProjectRepository;
let keys: ApiKeyRepository;
let slots: SelfServiceSlotStore;
let members: Members;

beforeAll(async () => {
  t = await startTestStore();
  projects = new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects);
  keys = new ApiKeyRepository(t.documents, LOCAL_TABLE_NAMES.apiKeys);
  slots = new SelfServiceSlotStore(t.documents, LOCAL_TABLE_NAMES.rateLimits);
  const store = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
  members = new Members({ store, owners: projects, projects, clock: Date.now });
});

afterAll(() => t.close());

function selfService(options: { cap: number; members?: Pick<Members, 'add'>; warned?: number[] }) {
  return new SelfService({
    settings: { enabled: true, projectCap: options.cap },
    slots,
    creation: { projects, keys, clock: () => new Date() },
    members: options.members ?? members,
    keys: new ProjectKeys({ keys, projects, clock: () => new Date() }),
    nearCap: (count) => options.warned?.push(count),
  });
}

async function resetPlatformCount(): Promise<void> {
  while ((await slots.count(PLATFORM_COUNTER)) > 0) await slots.giveBack(PLATFORM_COUNTER);
}

beforeEach(resetPlatformCount);

describe('the setting', () => {
  test('is on with a cap of 2,000 by default, off when asked, and fails on a bad value naming it', () => {
    expect(selfServiceSettingsFrom({})).toEqual({ enabled: true, projectCap: 2_000 });
    expect(selfServiceSettingsFrom({ SELF_SERVICE_PROJECTS: 'off' }).enabled).toBe(false);
    expect(selfServiceSettingsFrom({ SELF_SERVICE_PROJECT_CAP: '5' }).projectCap).toBe(5);
    expect(() => selfServiceSettingsFrom({ SELF_SERVICE_PROJECTS: 'yes' })).toThrow(
      /SELF_SERVICE_PROJECTS="yes": set it to on or off/,
    );
    expect(() => selfServiceSettingsFrom({ SELF_SERVICE_PROJECT_CAP: '20000' })).toThrow(
      /SELF_SERVICE_PROJECT_CAP/,
    );
  });
});

test('warns at every create from 80 % of the cap on', async () => {
  expect(warningThreshold(10)).toBe(8);
  const warned: number[] = [];
  const rules = selfService({ cap: 10, warned });
  for (let i = 0; i < 4; i += 1) {
    await rules.create(newPerson(`warn${i}`), `warn-${process.pid}-${i}`);
  }
  expect(warned).toEqual([]);
  // Three places taken by others: the next create is the 8th of 10.
  for (let i = 0; i < 3; i += 1) await slots.take(PLATFORM_COUNTER, 10);
  await rules.create(newPerson('warn8'), `warn-${process.pid}-8`);
  expect(warned).toEqual([8]);
});

test('a project whose owner cannot be stored is taken back whole, its places given back', async () => {
  const person = newPerson('orphan');
  const failing = { add: async () => Promise.reject(new StoreUnavailableError(new Error('down'))) };
  const name = `orphan-${process.pid}`;
  await expect(selfService({ cap: 10, members: failing }).create(person, name)).rejects.toThrow(
    StoreUnavailableError,
  );
  expect(await projects.get(name)).toBeUndefined();
  expect(await slots.count(personCounter(person))).toBe(0);
  expect(await slots.count(PLATFORM_COUNTER)).toBe(0);
  // The name is free again.
  expect((await selfService({ cap: 10 }).create(person, name)).project.name).toBe(name);
});
