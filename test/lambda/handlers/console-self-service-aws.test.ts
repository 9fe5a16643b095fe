import { randomBytes } from 'node:crypto';
import type * as ApiGatewaySdk from '@aws-sdk/client-api-gateway';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { CSRF_HEADER, SESSION_COOKIE_NAME } from '../../../lambda/api/console-cookies';
import type { Person } from '../../../lambda/core/identity';
import { PLATFORM_COUNTER, personCounter } from '../../../lambda/core/self-service';
import { SELF_SERVICE_VARIABLES } from '../../../lambda/core/self-service-settings';
import type { ApiLambdaHandler } from '../../../lambda/middleware/api-handler';
import type { AuthorizerHandler } from '../../../lambda/operations/authorizer';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { SelfServiceSlotStore } from '../../../lambda/store/self-service-slots';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { CONSOLE_TABLES_ENV } from '../../support/console-function-env';
import { consolePeople, newPerson } from '../../support/console-people';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../support/events';
import { loadHandlers, TEST_PLATFORM_DOMAIN } from '../../support/handlers';

/**
 * The console function as the stack deploys it with self-service on (issue 27): a person of no
 * project creates one through the handler, over the embedded store's tables, and its API Gateway
 * key is made in the Free plan's usage plan. API Gateway's management API cannot run here: it is
 * mocked at the SDK (the copy the handler loads) with the documented answers of GetUsagePlans,
 * CreateApiKey, CreateUsagePlanKey and DeleteApiKey, over a small state of keys and plans.
 */

const STACK = 'AnimalStore-production';
const CONSOLE_ORIGIN = `https://console.${TEST_PLATFORM_DOMAIN}`;
const HOST = `console-api.${TEST_PLATFORM_DOMAIN}`;
const PLATFORM_CAP = 50;
const CONSOLE_ENV = {
  ...CONSOLE_TABLES_ENV,
  [RUNTIME_ENV.consoleOrigin]: CONSOLE_ORIGIN,
  [RUNTIME_ENV.domainsTarget]: `domains.${TEST_PLATFORM_DOMAIN}`,
  [RUNTIME_ENV.edgeDistributionId]: 'E1M2U3L4T5I6T7',
  [RUNTIME_ENV.edgeConnectionGroupId]: 'cg_2wjDZMmOKVKmvYm3EzWbGHPwHpd',
  [SELF_SERVICE_VARIABLES.enabled]: 'on',
  [SELF_SERVICE_VARIABLES.cap]: String(PLATFORM_CAP),
  [RUNTIME_ENV.gatewayStackName]: STACK,
};
/** Usage plans as the stack names them (lib/constructs/usage-plans.ts), with ids as API Gateway makes them. */
const USAGE_PLANS = [
  { id: 'a1b2c3', name: `${STACK}-free` },
  { id: 'd4e5f6', name: `${STACK}-pro` },
  { id: 'g7h8i9', name: 'AnimalStore-staging-free' },
];

let store: TestStore;
let sdk: typeof ApiGatewaySdk;
let gateway: AwsStub<
  ApiGatewaySdk.ServiceInputTypes,
  ApiGatewaySdk.ServiceOutputTypes,
  ApiGatewaySdk.APIGatewayClientResolvedConfig
>;
let consoleHandler: ApiLambdaHandler;
let authorizer: AuthorizerHandler;
let people: ReturnType<typeof consolePeople>;
let slots: SelfServiceSlotStore;
const saved = Object.fromEntries(Object.keys(CONSOLE_ENV).map((name) => [name, process.env[name]]));

/** API Gateway's keys (id → name and value) and usage plans' members (plan id → key ids). */
const keys = new Map<string, { name: string; value: string }>();
const members = new Map<string, Set<string>>();

/** Answers the documented API: ids of ten lowercase letters and digits, NotFound for unknown ids. */
function installGateway(): void {
  gateway.reset();
  keys.clear();
  members.clear();
  for (const plan of USAGE_PLANS) members.set(plan.id, new Set());
  gateway.on(sdk.GetUsagePlansCommand).resolves({
    items: USAGE_PLANS.map((plan) => ({ ...plan, apiStages: [], throttle: {}, quota: {} })),
  });
  gateway.on(sdk.CreateApiKeyCommand).callsFake((input: ApiGatewaySdk.CreateApiKeyCommandInput) => {
    const id = randomBytes(5).toString('hex');
    keys.set(id, { name: input.name ?? '', value: input.value ?? '' });
    return { id, name: input.name, value: input.value, enabled: input.enabled, createdDate: new Date() };
  });
  gateway
    .on(sdk.CreateUsagePlanKeyCommand)
    .callsFake(({ usagePlanId = '', keyId = '' }: ApiGatewaySdk.CreateUsagePlanKeyCommandInput) => {
      const plan = members.get(usagePlanId);
      if (!plan || !keys.has(keyId))
        throw new sdk.NotFoundException({ message: 'Invalid Usage Plan ID specified', $metadata: {} });
      plan.add(keyId);
      return { id: keyId, type: 'API_KEY', name: keys.get(keyId)?.name, value: keys.get(keyId)?.value };
    });
  gateway.on(sdk.DeleteApiKeyCommand).callsFake(({ apiKey = '' }: ApiGatewaySdk.DeleteApiKeyCommandInput) => {
    if (!keys.delete(apiKey))
      throw new sdk.NotFoundException({ message: 'Invalid API Key identifier specified', $metadata: {} });
    for (const plan of members.values()) plan.delete(apiKey);
    return {};
  });
}

beforeAll(async () => {
  store = await startTestStore();
  people = consolePeople({ api: { dynamodbEndpoint: store.store.endpoint }, now: Date.now });
  slots = new SelfServiceSlotStore(store.documents, LOCAL_TABLE_NAMES.rateLimits);
  Object.assign(process.env, CONSOLE_ENV);
  const loaded = loadHandlers<unknown>(['console', 'authorizer'], store.store.endpoint, () => {
    sdk = require('@aws-sdk/client-api-gateway') as typeof ApiGatewaySdk;
    gateway = mockClient(sdk.APIGatewayClient);
  });
  consoleHandler = loaded[0] as ApiLambdaHandler;
  authorizer = loaded[1] as AuthorizerHandler;
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  gateway.restore();
  people.close();
  await store.close();
});
beforeEach(installGateway);

/** A request of the person's browser to the console's API, with the session cookie (and CSRF on a change). */
async function call(
  person: { cookie: string; csrfToken: string },
  method: string,
  path: string,
  body?: unknown,
  handler: ApiLambdaHandler = consoleHandler,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const event = proxyEvent({
    httpMethod: method,
    path: `/console/api${path}`,
    resource: '/console/api/{proxy+}',
    principal: null,
    headers: {
      Host: HOST,
      Cookie: `${SESSION_COOKIE_NAME}=${person.cookie}`,
      ...(method === 'GET' ? {} : { Origin: CONSOLE_ORIGIN, [CSRF_HEADER]: person.csrfToken }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const answer = await handler(
    { ...event, requestContext: { ...event.requestContext, domainName: HOST } },
    lambdaContext,
  );
  return {
    status: answer.statusCode,
    body: answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {},
  };
}

const sentCommands = () => gateway.calls().map((sent) => sent.args[0].constructor.name);
const newName = (label: string) => `${label}-${randomBytes(3).toString('hex')}`;

async function signedIn(person: Person) {
  const { cookie, csrfToken } = await people.signIn(person);
  return { cookie, csrfToken };
}

test("a person of no project creates one: its gateway key joins the Free plan's usage plan, valued by the project's usage identifier, and the first key authorizes under it", async () => {
  const person = newPerson('aws-alone');
  const caller = await signedIn(person);
  const session = await call(caller, 'GET', '/session');
  expect(session.body).toMatchObject({ selfService: { available: true } });
  expect(session.body.project).toBeUndefined();

  const name = newName('aws-own');
  const created = await call(caller, 'POST', '/projects', { name });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    project: { name, plan: 'free' },
    firstKey: { apiKey: expect.any(String) },
  });

  expect(sentCommands()).toEqual([
    'GetUsagePlansCommand',
    'CreateApiKeyCommand',
    'CreateUsagePlanKeyCommand',
  ]);
  const project = await people.projects.get(name);
  expect(project).toMatchObject({ name, plan: 'free' });
  const [keyId, key] = [...keys][0] ?? [];
  expect(key).toEqual({ name: `${STACK}-project-${name}`, value: project!.usageId });
  expect([...members].filter(([, ids]) => ids.has(keyId!)).map(([plan]) => plan)).toEqual(['a1b2c3']);

  // The person owns it, and the first key, shown once, is metered under that gateway key.
  expect(await people.members.projectsOf(person)).toEqual([
    expect.objectContaining({ project: name, role: 'owner' }),
  ]);
  const { apiKey } = created.body.firstKey as { apiKey: string };
  const allowed = await authorizer(
    authorizerEvent({ Authorization: `Bearer ${apiKey}` }, `${name}.${TEST_PLATFORM_DOMAIN}`),
  );
  expect(allowed).toMatchObject({
    usageIdentifierKey: project!.usageId,
    context: { project: name, plan: 'free' },
  });
  expect(await slots.count(personCounter(person))).toBe(1);
});

test('a failing CreateUsagePlanKey deletes the new gateway key again, stores no project and gives both places back', async () => {
  const person = newPerson('aws-refused');
  const caller = await signedIn(person);
  const platformBefore = await slots.count(PLATFORM_COUNTER);
  gateway.on(sdk.CreateUsagePlanKeyCommand).rejects(
    new sdk.TooManyRequestsException({
      message: 'Too Many Requests',
      $metadata: {},
      retryAfterSeconds: '1',
    }),
  );

  const name = newName('aws-fail');
  const failed = await call(caller, 'POST', '/projects', { name });
  expect(failed.status).toBe(500);
  expect(failed.body).toMatchObject({ status: 500, code: expect.any(String), message: expect.any(String) });
  expect(JSON.stringify(failed.body)).not.toContain('TooManyRequests');

  const [created] = gateway.commandCalls(sdk.CreateApiKeyCommand);
  const deleted = gateway.commandCalls(sdk.DeleteApiKeyCommand).map((sent) => sent.args[0].input.apiKey);
  expect(created).toBeDefined();
  expect(deleted).toHaveLength(1);
  expect(keys.size).toBe(0);
  expect(await people.projects.get(name)).toBeUndefined();
  expect(await people.members.projectsOf(person)).toEqual([]);
  expect(await slots.count(personCounter(person))).toBe(0);
  expect(await slots.count(PLATFORM_COUNTER)).toBe(platformBefore);

  // With API Gateway answering again, the same person creates the same name.
  installGateway();
  expect((await call(caller, 'POST', '/projects', { name })).status).toBe(201);
  expect(keys.size).toBe(1);
});

test('a project name taken is refused before any gateway call', async () => {
  const first = await signedIn(newPerson('aws-first'));
  const name = newName('aws-taken');
  expect((await call(first, 'POST', '/projects', { name })).status).toBe(201);
  installGateway();
  const second = await call(await signedIn(newPerson('aws-second')), 'POST', '/projects', { name });
  expect(second).toMatchObject({ status: 409, body: { code: 'project_name_taken' } });
  expect(sentCommands()).toEqual([]);
});

test('turned off (SELF_SERVICE_PROJECTS=off), the function needs no stack name, refuses a create and calls no API Gateway', async () => {
  const saved = { ...process.env };
  delete process.env[RUNTIME_ENV.gatewayStackName];
  delete process.env[SELF_SERVICE_VARIABLES.cap];
  process.env[SELF_SERVICE_VARIABLES.enabled] = 'off';
  let offGateway: typeof gateway | undefined;
  let handlerOff: ApiLambdaHandler | undefined;
  try {
    [handlerOff] = loadHandlers<ApiLambdaHandler>(['console'], store.store.endpoint, () => {
      const fresh = require('@aws-sdk/client-api-gateway') as typeof ApiGatewaySdk;
      offGateway = mockClient(fresh.APIGatewayClient);
    });
  } finally {
    process.env = saved;
  }
  const caller = await signedIn(newPerson('aws-off'));
  const refused = await call(caller, 'POST', '/projects', { name: newName('aws-off') }, handlerOff);
  expect(refused).toMatchObject({ status: 403, body: { code: 'self_service_off', status: 403 } });
  expect(offGateway!.calls()).toEqual([]);
  offGateway!.restore();
});
