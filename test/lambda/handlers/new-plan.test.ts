import { readFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { issueApiKey } from '../../../lambda/core/api-key';
import type { PlanName } from '../../../lambda/core/plans';
import { issueConsoleToken } from '../../../lambda/core/project';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { loadHandlers } from '../../support/handlers';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../support/events';
import type { ApiLambdaHandler as ProxyHandler } from '../../../lambda/middleware/api-handler';
import type { AuthorizerHandler as Authorizer } from '../../../lambda/operations/authorizer';

/**
 * The plan table (lambda/core/plans.ts) is the only place that names plans: a plan added
 * there works for the keys of a project on it, with no other change. The table's own source
 * gets one more line, so every function of the module (isPlanName, planLimits, …) sees it.
 */

const PLANS_FILE = path.resolve(__dirname, '../../../lambda/core/plans.ts');
const TABLE_END = '} as const satisfies Record<string, PlanDefinition>;';
const STARTUP_LINE =
  "  startup: { title: 'Startup', limits: { perMinute: 42, perDay: 420 }, customDomains: true },\n";

/** The plan module compiled from its source with the Startup plan added at the end of the table. */
function plansWithStartup(): unknown {
  const source = readFileSync(PLANS_FILE, 'utf8');
  expect(source.split(TABLE_END)).toHaveLength(2);
  const { code } = transformSync(source.replace(TABLE_END, `${STARTUP_LINE}${TABLE_END}`), {
    loader: 'ts',
    format: 'cjs',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports;
}

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

/** The authorizer and an operation, loaded afresh against the embedded store with the plan table given. */
function loadWithStartup(): { authorizer: Authorizer; listPets: ProxyHandler } {
  const [authorizer, listPets] = loadHandlers<Authorizer & ProxyHandler>(
    ['authorizer', 'list-pets'],
    store.store.endpoint,
    () => jest.doMock('../../../lambda/core/plans', plansWithStartup),
  );
  return { authorizer: authorizer as Authorizer, listPets: listPets as ProxyHandler };
}

it('a plan added to the plan table alone is enough for the keys of a project on it to work', async () => {
  const name = 'startup-co';
  const now = new Date().toISOString();
  await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
    name,
    // Not a plan of the real table: the handlers below know it from the one added line only.
    plan: 'startup' as PlanName,
    createdAt: now,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: now,
    usageId: `usage-${name}`,
  });
  const issued = issueApiKey(name, 'new plan test', new Date());
  await new ApiKeyRepository(store.documents, LOCAL_TABLE_NAMES.apiKeys).put(issued.record);
  const { authorizer, listPets } = loadWithStartup();

  const decision = await authorizer(authorizerEvent({ Authorization: `Bearer ${issued.apiKey}` }));
  expect(decision.context).toMatchObject({
    authenticated: 'true',
    project: name,
    plan: 'startup',
    perMinute: '42',
    perDay: '420',
  });

  // API Gateway hands the authorizer's context to the operation.
  const event = proxyEvent({ principal: null });
  event.requestContext.authorizer = { ...decision.context, principalId: decision.principalId };
  const result = await listPets(event, lambdaContext);
  expect(result.statusCode).toBe(200);
  expect(result.headers?.['X-RateLimit-Limit']).toBe('42');
  expect(JSON.parse(result.body)).toEqual([]);
});
