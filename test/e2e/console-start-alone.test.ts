import { MAX_PROJECTS_PER_PERSON } from '../../lambda/core/self-service-settings';
import { PLATFORM_COUNTER, personCounter } from '../../lambda/core/self-service';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { SelfServiceSlotStore } from '../../lambda/store/self-service-slots';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import type { Person } from '../../lambda/core/identity';
import { consolePeople, newPerson } from '../support/console-people';
import {
  type ConsoleAnswer,
  type ConsoleTestApi,
  expectError,
  startConsoleTestApi,
} from '../support/local-console';

/**
 * The self-service start over HTTP against local mode's console (issue 27): a person of no
 * project creates one and its first key answers 200; the per-person and platform caps hold under
 * 10 simultaneous creates; the setting turns it off; a keyless caller and a console token create
 * nothing; a name taken is refused.
 */

const PLATFORM_CAP = 5;

let t: ConsoleTestApi;
let people: ReturnType<typeof consolePeople>;
let slots: SelfServiceSlotStore;
let documents: ReturnType<typeof createDocumentClient>;

beforeAll(async () => {
  t = await startConsoleTestApi({ selfService: { enabled: true, projectCap: PLATFORM_CAP } });
  people = consolePeople(t);
  documents = createDocumentClient(t.api.dynamodbEndpoint);
  slots = new SelfServiceSlotStore(documents, LOCAL_TABLE_NAMES.rateLimits);
});

afterAll(async () => {
  documents.destroy();
  people.close();
  await t.close();
});

interface Caller {
  readonly cookie: string;
  readonly csrfToken: string;
}

async function signedIn(person: Person): Promise<Caller> {
  const { cookie, csrfToken } = await people.signIn(person);
  return { cookie, csrfToken };
}

function create(caller: Caller, name: string): Promise<ConsoleAnswer> {
  return t.call('/projects', {
    method: 'POST',
    cookie: caller.cookie,
    origin: t.consoleOrigin,
    csrfToken: caller.csrfToken,
    body: { name },
  });
}

let names = 0;
const newName = (label: string) => `${label}-${process.pid}-${(names += 1)}`;

/** Empties the platform's counter, so each test starts with the whole cap. */
async function resetPlatformCount(): Promise<void> {
  while ((await slots.count(PLATFORM_COUNTER)) > 0) await slots.giveBack(PLATFORM_COUNTER);
}

beforeEach(resetPlatformCount);

describe('a person of no project', () => {
  test('is told they may create one, creates it, owns it, and its first key answers 200', async () => {
    const person = newPerson('alone');
    const caller = await signedIn(person);
    const session = await t.call('/session', { cookie: caller.cookie });
    expect(session.status).toBe(200);
    expect(session.body.project).toBeUndefined();
    expect(session.body.selfService).toMatchObject({
      available: true,
      projectsPerPerson: MAX_PROJECTS_PER_PERSON,
    });

    const name = newName('first');
    const created = await create(caller, name);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      project: { name, plan: 'free', address: `http://${name}.localhost:${t.port}/v1` },
      firstKey: { key: { name: 'first key' } },
    });
    const apiKey = (created.body.firstKey as { apiKey: string }).apiKey;
    const pets = await fetch(`${t.apiBase}/pets`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(pets.status).toBe(200);

    expect((await people.store.get(name, person))?.role).toBe('owner');
    const switched = await t.call('/session/project', {
      method: 'POST',
      cookie: caller.cookie,
      origin: t.consoleOrigin,
      csrfToken: caller.csrfToken,
      body: { project: name },
    });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ project: name, role: 'owner' });
    const keys = await t.call('/keys', { cookie: caller.cookie });
    expect(keys.status).toBe(200);
    expect(keys.body.keys).toHaveLength(1);
  });

  test('reaches no project route until it has one', async () => {
    const caller = await signedIn(newPerson('nowhere'));
    expectError(await t.call('/keys', { cookie: caller.cookie }), 403, 'no_project_yet');
    expectError(await t.call('/usage', { cookie: caller.cookie }), 403, 'no_project_yet');
  });
});

describe('refusals', () => {
  test('a name taken, or not a name, is refused and takes no place', async () => {
    const person = newPerson('taken');
    const caller = await signedIn(person);
    const other = await t.createProject('pro');
    expectError(await create(caller, other.name), 409, 'project_name_taken');
    expectError(await create(caller, 'Not A Label'), 400, 'invalid_project_name');
    expectError(await create(caller, 'console'), 400, 'invalid_project_name');
    expect(await slots.count(personCounter(person))).toBe(0);
    expect(await slots.count(PLATFORM_COUNTER)).toBe(0);
    expect(await people.store.get(other.name, person)).toBeUndefined();
  });

  test('a keyless caller, a forged request and a console token create nothing', async () => {
    const name = newName('keyless');
    expectError(
      await t.call('/projects', { method: 'POST', origin: t.consoleOrigin, body: { name } }),
      401,
      'not_signed_in',
    );
    const caller = await signedIn(newPerson('forged'));
    expectError(
      await t.call('/projects', { method: 'POST', cookie: caller.cookie, body: { name } }),
      403,
      'csrf_origin_refused',
    );
    expectError(
      await t.call('/projects', {
        method: 'POST',
        cookie: caller.cookie,
        origin: t.consoleOrigin,
        body: { name },
      }),
      403,
      'csrf_token_invalid',
    );
    const token = await t.createProject('free');
    // The route takes the session cookie alone: a bearer token is no session.
    expectError(
      await t.call('/projects', { method: 'POST', bearer: token.consoleToken, body: { name } }),
      401,
      'not_signed_in',
    );
    const tokenSession = await t.signIn(token.consoleToken);
    expectError(await create(tokenSession, name), 403, 'action_not_permitted');
    expect(await t.projects.get(name)).toBeUndefined();
  });
});

describe('caps under concurrency', () => {
  test(`10 simultaneous creates by one person make ${MAX_PROJECTS_PER_PERSON}, the rest refused`, async () => {
    const person = newPerson('eager');
    const caller = await signedIn(person);
    const label = newName('mine');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(caller, `${label}-${i}`)));
    const made = answers.filter((answer) => answer.status === 201);
    expect(made).toHaveLength(MAX_PROJECTS_PER_PERSON);
    for (const answer of answers.filter((each) => each.status !== 201)) {
      expectError(answer, 409, 'too_many_projects');
    }
    expect(await people.store.projectsOf(person)).toHaveLength(MAX_PROJECTS_PER_PERSON);
    expect(await slots.count(personCounter(person))).toBe(MAX_PROJECTS_PER_PERSON);
  });

  test(`10 people creating at once make ${PLATFORM_CAP}, the platform's cap, the rest refused`, async () => {
    const crowd = await Promise.all(Array.from({ length: 10 }, (_, i) => signedIn(newPerson(`crowd${i}`))));
    const label = newName('crowd');
    const answers = await Promise.all(crowd.map((caller, i) => create(caller, `${label}-${i}`)));
    const made = answers.filter((answer) => answer.status === 201);
    expect(made).toHaveLength(PLATFORM_CAP);
    for (const answer of answers.filter((each) => each.status !== 201)) {
      expectError(answer, 409, 'self_service_full');
    }
    const stored = await Promise.all(answers.map((_, i) => t.projects.get(`${label}-${i}`)));
    expect(stored.filter(Boolean)).toHaveLength(PLATFORM_CAP);
    expect(await slots.count(PLATFORM_COUNTER)).toBe(PLATFORM_CAP);
  });

  test('a create refused after taking its places gives them back', async () => {
    const person = newPerson('giveback');
    const caller = await signedIn(person);
    const name = newName('race');
    const answers = await Promise.all(Array.from({ length: 3 }, () => create(caller, name)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(await slots.count(personCounter(person))).toBe(1);
    expect(await slots.count(PLATFORM_COUNTER)).toBe(1);
  });
});

describe('turned off', () => {
  let off: ConsoleTestApi;
  let offPeople: ReturnType<typeof consolePeople>;

  beforeAll(async () => {
    off = await startConsoleTestApi({ selfService: { enabled: false, projectCap: PLATFORM_CAP } });
    offPeople = consolePeople(off);
  });

  afterAll(async () => {
    offPeople.close();
    await off.close();
  });

  test('the session says how to get a project, and a create is refused', async () => {
    const { cookie, csrfToken } = await offPeople.signIn(newPerson('off'));
    const session = await off.call('/session', { cookie });
    expect(session.body.selfService).toMatchObject({ available: false });
    expect(String((session.body.selfService as { message: string }).message)).toContain('platform team');
    const name = newName('off');
    expectError(
      await off.call('/projects', {
        method: 'POST',
        cookie,
        origin: off.consoleOrigin,
        csrfToken,
        body: { name },
      }),
      403,
      'self_service_off',
    );
    expect(await off.projects.get(name)).toBeUndefined();
  });
});
