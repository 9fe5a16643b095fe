import { ApiError } from '../../../lambda/api/errors';
import { StoreUnavailableError } from '../../../lambda/core/errors';
import { Members, MemberRoles } from '../../../lambda/core/members';
import { PersonalTokens } from '../../../lambda/core/personal-tokens';
import { issueConsoleToken, newUsageId, type ProjectRecord } from '../../../lambda/core/project';
import { ProjectKeys } from '../../../lambda/core/project-keys';
import { SelfService } from '../../../lambda/core/self-service';
import type { ConsoleEvent, SessionEvent } from '../../../lambda/middleware/console-handler';
import { projectOperations } from '../../../lambda/operations/console-projects';
import { tokenOperations } from '../../../lambda/operations/console-tokens';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { PersonalTokenRepository } from '../../../lambda/store/personal-token-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { SelfServiceSlotStore } from '../../../lambda/store/self-service-slots';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { newPerson } from '../../support/console-people';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The console's token and self-service operations where the core rules do not refuse: a failure
 * of the store passes through as it is (the Error body's 5xx, logged), never dressed as a refusal;
 * and the token rules' refusals the HTTP tests leave (an expiry out of range, a revoke of no
 * token, a tool's token managing tokens), each in its code. Over the embedded store; the failing
 * store is a table that does not exist.
 */

const NOW = Date.parse('2031-03-04T05:06:00.000Z');
const MISSING_TABLE = 'no-such-table';

let store: TestStore;
let projects: ProjectRepository;
let memberStore: MemberRepository;
let project: ProjectRecord;
let projectCount = 0;

beforeAll(async () => {
  store = await startTestStore();
  projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  memberStore = new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers);
  project = await newProject();
});

afterAll(() => store.close());

async function newProject(): Promise<ProjectRecord> {
  const name = `fail-${process.pid}-${(projectCount += 1)}`;
  const at = new Date(NOW).toISOString();
  const record = {
    name,
    plan: 'pro' as const,
    createdAt: at,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  };
  await projects.create(record);
  return record;
}

function tokensOver(table: string) {
  return tokenOperations(
    new PersonalTokens({
      store: new PersonalTokenRepository(store.documents, table),
      projects,
      roles: new MemberRoles(memberStore, () => NOW),
      clock: () => NOW,
    }),
  );
}

/** A console event of a person's session in the project, with the role. */
function sessionEvent<Body>(
  person: ReturnType<typeof newPerson>,
  request: { jsonBody?: Body; pathParameters?: Record<string, string> } = {},
): ConsoleEvent<Body> {
  return {
    project,
    role: 'owner',
    session: { record: { person }, secret: 'not-used' },
    query: {},
    jsonBody: request.jsonBody,
    pathParameters: request.pathParameters ?? null,
  } as unknown as ConsoleEvent<Body>;
}

async function refusalOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('token operations', () => {
  test("a store that fails passes through as the store's failure, not a refusal", async () => {
    const owner = newPerson('owner');
    const failure = await refusalOf(
      tokensOver(MISSING_TABLE).createToken(
        sessionEvent(owner, { jsonBody: { name: 'ci', role: 'viewer', expiresInDays: 30 } }),
      ),
    );
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).not.toBeInstanceOf(ApiError);
  });

  test('an expiry out of range is refused as an invalid body, naming the range', async () => {
    const failure = await refusalOf(
      tokensOver(LOCAL_TABLE_NAMES.personalTokens).createToken(
        sessionEvent(newPerson('owner'), { jsonBody: { name: 'ci', role: 'viewer', expiresInDays: 0 } }),
      ),
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe('invalid_body');
    expect((failure as ApiError).message).toMatch(/1 to \d+ days, not 0/);
  });

  test('a revoke that names no token is refused token_not_found', async () => {
    const failure = await refusalOf(
      tokensOver(LOCAL_TABLE_NAMES.personalTokens).revokeToken(sessionEvent(newPerson('owner'))),
    );
    expect((failure as ApiError).code).toBe('token_not_found');
  });

  test("a tool's personal token may not manage tokens: told to sign in as a person", async () => {
    const event = {
      ...sessionEvent(newPerson('owner')),
      session: undefined,
      personalToken: { via: 'personal-token' },
    } as unknown as ConsoleEvent<unknown>;
    const failure = await refusalOf(tokensOver(LOCAL_TABLE_NAMES.personalTokens).listTokens(event));
    expect((failure as ApiError).code).toBe('person_session_required');
    expect((failure as ApiError).message).toContain('A personal access token cannot manage tokens');
  });
});

describe('the self-service start', () => {
  test("a store that fails passes through as the store's failure, and no project is made", async () => {
    const keys = new ApiKeyRepository(store.documents, LOCAL_TABLE_NAMES.apiKeys);
    const selfService = new SelfService({
      settings: { enabled: true, projectCap: 100 },
      slots: new SelfServiceSlotStore(store.documents, MISSING_TABLE),
      creation: { projects, keys, clock: () => new Date(NOW) },
      members: new Members({ store: memberStore, owners: projects, projects, clock: () => NOW }),
      keys: new ProjectKeys({ keys, projects, clock: () => new Date(NOW) }),
      nearCap: () => undefined,
    });
    const name = `alone-${process.pid}`;
    const event = {
      session: { record: { person: newPerson('founder') }, secret: 'not-used' },
      query: {},
      jsonBody: { name },
    } as unknown as SessionEvent<{ readonly name: string }>;
    const failure = await refusalOf(
      projectOperations(selfService, (each) => `https://${each}.example`).createProject(event),
    );
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    expect(failure).not.toBeInstanceOf(ApiError);
    expect(await projects.get(name)).toBeUndefined();
  });
});
