import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { USAGE_OPERATIONS } from '../../lambda/api/routes';
import { PLANS } from '../../lambda/core/plans';
import type { UsageHistory } from '../../lambda/core/usage-history';
import { startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { connectLocal } from '../../tools/local-store';
import { ProjectAdmin } from '../../tools/project-admin';
import { fakeClock } from '../support/fake-clock';
import { seedUsage } from '../support/usage-seed';
import { ROLE_CACHE_MS } from '../../lambda/core/members';
import {
  type ConsolePeople,
  type ConsoleWithPeople,
  startConsoleWithPeople,
} from '../support/console-callers';
import { newPerson } from '../support/console-people';
import { type ConsoleTestApi, expectError } from '../support/local-console';

/**
 * Who may read a project's usage history over HTTP (issue 29): any member of the project, and
 * no one else. A person's session acts for one project, so a non-member has no way to ask for
 * another's figures: naming the project in the query, switching the session to it, signing in to
 * it, and a session whose membership has ended are each refused, and no answer holds its figures.
 * And what one view costs, counted at the store: two read requests of the counters.
 */
let opened: ConsoleWithPeople;
let t: ConsoleTestApi;
let people: ConsolePeople;

beforeAll(async () => {
  opened = await startConsoleWithPeople();
  ({ t, people } = opened);
});

afterAll(() => opened?.close());

/** `times` calls of the project's API with one of its keys: its usage. */
async function callApi(project: string, times: number): Promise<void> {
  const { apiKey } = await t.issueKey(project);
  for (let call = 0; call < times; call++) {
    const response = await fetch(`${t.apiBase}/pets`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);
  }
}

const admittedToday = (history: UsageHistory) => history.days.at(-1)?.admitted ?? {};

test("a member of one project never gets another's usage history", async () => {
  const acme = await t.createProject('pro');
  const globex = await t.createProject('pro');
  await callApi(acme.name, 2);
  await callApi(globex.name, 7);
  const outsider = newPerson('outsider');
  await people.add(acme.name, outsider, 'viewer');
  const caller = await people.signIn(outsider, acme.name);
  const asOutsider = (path: string, request: { method?: string; body?: unknown } = {}) =>
    t.call(path, {
      cookie: caller.cookie,
      ...(request.method && request.method !== 'GET'
        ? { method: request.method, origin: t.consoleOrigin, csrfToken: caller.csrfToken }
        : {}),
      ...(request.body === undefined ? {} : { body: request.body }),
    });

  // Their own project's figures: acme's 2 calls.
  const own = await asOutsider('/usage/history');
  expect(own.status).toBe(200);
  expect(admittedToday(own.body as unknown as UsageHistory)).toEqual({ listPets: 2 });

  // Naming the other project in the query is refused (the route takes no parameters).
  const named = await asOutsider(`/usage/history?project=${globex.name}`);
  expectError(named, 400, 'invalid_parameter');
  // Switching the session to it: not a member, whether or not it exists.
  expectError(
    await asOutsider('/session/project', { method: 'POST', body: { project: globex.name } }),
    404,
    'project_not_found',
  );
  // Signing in to it.
  expect(await people.startForPerson(outsider, globex.name)).toEqual({
    signedIn: false,
    failure: 'not_a_member',
  });
  // Acme's token says nothing of globex either.
  const byToken = await t.call(`/usage/history?project=${globex.name}`, { bearer: acme.consoleToken });
  expectError(byToken, 400, 'invalid_parameter');

  // Still acme's figures, and none of globex's 7 calls in any answer.
  const after = await asOutsider('/usage/history');
  expect(admittedToday(after.body as unknown as UsageHistory)).toEqual({ listPets: 2 });
  for (const answer of [named, byToken, after])
    expect(JSON.stringify(answer.body)).not.toContain(globex.name);
  expect(JSON.stringify(after.body)).not.toMatch(/"listPets":7/);
});

test('a person removed from a project is refused its usage history within 30 s, then signed out', async () => {
  const project = await t.createProject('pro');
  await callApi(project.name, 3);
  const owner = newPerson('owner');
  const leaver = newPerson('leaver');
  await people.add(project.name, owner, 'owner');
  await people.add(project.name, leaver, 'developer');
  const caller = await people.signIn(leaver, project.name);
  expect((await t.call('/usage/history', { cookie: caller.cookie })).status).toBe(200);

  await people.members.remove(project.name, leaver, 'platform');
  t.advance(ROLE_CACHE_MS);
  const refused = await t.call('/usage/history', { cookie: caller.cookie });
  expectError(refused, 401, 'membership_ended');
  expect(refused.body).not.toHaveProperty('days');
  expectError(await t.call('/usage/history', { cookie: caller.cookie }), 401, 'session_ended');
});

/** What the store was asked, request by request: the operation and the tables it names. */
interface StoreRequest {
  readonly operation: string;
  readonly tables: readonly string[];
  readonly keys: number;
}

/** An HTTP relay in front of the store that records each DynamoDB request it forwards. */
async function countingRelay(storePort: number) {
  const seen: StoreRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const input = JSON.parse(body.toString('utf8') || '{}') as {
        TableName?: string;
        RequestItems?: Record<string, { Keys?: unknown[] }>;
      };
      seen.push({
        operation: String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '',
        tables: input.TableName ? [input.TableName] : Object.keys(input.RequestItems ?? {}),
        keys: Object.values(input.RequestItems ?? {}).reduce((all, { Keys = [] }) => all + Keys.length, 0),
      });
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: storePort,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

test('one view of the Usage page (this minute and day, 24 hours, 30 days) costs two read requests of the counters', async () => {
  const store = await startEmbeddedDynamoDb({ port: 0 });
  const relay = await countingRelay(store.port);
  const clock = fakeClock(Date.parse('2031-05-06T10:20:00.000Z'));
  let api: LocalApi | undefined;
  try {
    api = await startLocalApi({ port: 0, dynamodbEndpoint: relay.endpoint, customDomains: {} });
    const connection = await connectLocal(store.endpoint);
    const { consoleToken } = await new ProjectAdmin(connection).create('viewed-pets', 'pro');
    connection.close();
    await seedUsage(store.endpoint, 'viewed-pets', USAGE_OPERATIONS, PLANS.pro.limits.perDay, clock.now());
    const view = (path: string) =>
      fetch(`http://127.0.0.1:${api?.port}/console/api${path}`, {
        headers: { Authorization: `Bearer ${consoleToken}` },
      });
    relay.seen.length = 0;
    const [now, history] = await Promise.all([view('/usage'), view('/usage/history')]);
    expect([now.status, history.status]).toEqual([200, 200]);
    const days = ((await history.json()) as UsageHistory).days;
    expect(days.filter((day) => Object.keys(day.admitted).length > 0).length).toBeGreaterThan(20);

    const counterReads = relay.seen.filter(
      (sent) => READS.has(sent.operation) && sent.tables.includes(LOCAL_TABLE_NAMES.rateLimits),
    );
    expect(counterReads.map((sent) => sent.operation).sort()).toEqual(['BatchGetItem', 'GetItem']);
    // The history's one request: 30 day counters and 24 hour items.
    expect(counterReads.find((sent) => sent.operation === 'BatchGetItem')?.keys).toBe(54);
  } finally {
    await api?.close();
    clock.restore();
    await relay.close();
    await store.close();
  }
}, 60_000);
