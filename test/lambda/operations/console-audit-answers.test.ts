import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { CONSOLE_ROUTES } from '../../../lambda/api/console-routes';
import { ConsoleSessions } from '../../../lambda/core/console-session';
import { MemberRoles } from '../../../lambda/core/members';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { RateLimiter } from '../../../lambda/core/rate-limiter';
import { consoleHandler, type ConsoleStackRoute } from '../../../lambda/middleware/console-handler';
import { recordConsoleCall } from '../../../lambda/operations/console-audit';
import { AuditLogRepository } from '../../../lambda/store/audit-log-repository';
import { ConsoleSessionRepository } from '../../../lambda/store/console-session-repository';
import { MemberRepository } from '../../../lambda/store/member-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { lambdaContext, proxyEvent } from '../../support/events';

/**
 * The audit log's entry of a call whose answer is not JSON (a text answer, or a failure whose
 * body is no Error body): the call is still recorded, its outcome from the status alone (code
 * `unknown`), its target from what the request named; and a project's creation whose answer
 * names no project writes nothing, there being no project's log to write to. The caller is
 * found by the console's real stack (a console token over the embedded store); the answers are
 * the route's operation's.
 */

const NOW = Date.parse('2031-03-04T05:06:00.000Z');
const clock = () => NOW;

let store: TestStore;
let auditLog: AuditLogRepository;
let project: string;
let consoleToken: string;

beforeAll(async () => {
  store = await startTestStore();
  auditLog = new AuditLogRepository(store.documents, LOCAL_TABLE_NAMES.auditLog);
  project = `answers-${process.pid}`;
  const issued = issueConsoleToken(project);
  consoleToken = issued.token;
  const at = new Date(NOW).toISOString();
  await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
    name: project,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: issued.hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  });
});

afterAll(() => store.close());

/** The console's stack for the `createKey` route over the embedded store, answering `answer`. */
async function calledWith(answer: APIGatewayProxyResult, jsonBody: unknown) {
  const projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  const members = new MemberRepository(store.documents, LOCAL_TABLE_NAMES.projectMembers);
  const route = CONSOLE_ROUTES.find((each) => each.operationId === 'createKey');
  if (!route) throw new Error('no createKey route');
  const handler = consoleHandler(route as ConsoleStackRoute, async () => answer, {
    projects,
    limiter: new RateLimiter(new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits), clock),
    sessions: new ConsoleSessions({
      store: new ConsoleSessionRepository(store.documents, LOCAL_TABLE_NAMES.consoleSessions),
      projects,
      members,
      roles: new MemberRoles(members, clock),
      clock,
    }),
    consoleOrigins: [],
  });
  const event = proxyEvent({
    path: '/console/api/keys',
    httpMethod: 'POST',
    headers: { Authorization: `Bearer ${consoleToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(jsonBody),
    principal: null,
  });
  const answered = await handler(event, lambdaContext);
  expect(answered.statusCode).toBe(answer.statusCode);
  return event;
}

async function entriesOf(action: string) {
  return (await auditLog.read(project, { limit: 100 })).entries.filter((entry) => entry.action === action);
}

test('a failure whose body is no Error body is recorded refused, its code unknown, its status kept', async () => {
  const answer = { statusCode: 502, headers: {}, body: 'Bad Gateway' };
  const event = await calledWith(answer, { name: 'gateway' });
  await recordConsoleCall(auditLog, { audit: 'key.create' }, event, answer, clock);
  const [entry] = (await entriesOf('key.create')).filter((each) => each.target === 'gateway');
  expect(entry?.outcome).toEqual({ result: 'refused', code: 'unknown', status: 502 });
  expect(entry?.actor).toEqual({ kind: 'console-token' });
});

test('a text answer is recorded a success, its target what the request named', async () => {
  const answer = { statusCode: 201, headers: { 'Content-Type': 'text/plain' }, body: 'made' };
  const event = await calledWith(answer, { name: 'plain-text' });
  await recordConsoleCall(auditLog, { audit: 'key.create' }, event, answer, clock);
  const [entry] = (await entriesOf('key.create')).filter((each) => each.target === 'plain-text');
  expect(entry?.outcome).toEqual({ result: 'success' });
});

test("a project's creation whose answer names no project writes nothing", async () => {
  /** Every entry of every project: what a write anywhere would change. */
  const allEntries = async () =>
    (await store.documents.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.auditLog, Select: 'COUNT' })))
      .Count;
  const named = `created-${process.pid}`;
  const json = { statusCode: 201, headers: {}, body: JSON.stringify({ project: { name: named } }) };
  await recordConsoleCall(
    auditLog,
    { audit: 'project.create' },
    await calledWith(json, { name: named }),
    json,
    clock,
  );
  // The same call answered in JSON writes its new project's first entry: where this one would go.
  expect((await auditLog.read(named, { limit: 10 })).entries.map((entry) => entry.action)).toEqual([
    'project.create',
  ]);
  const text = { statusCode: 201, headers: { 'Content-Type': 'text/plain' }, body: 'made' };
  const event = await calledWith(text, { name: 'no-project' });
  const before = await allEntries();
  await recordConsoleCall(auditLog, { audit: 'project.create' }, event, text, clock);
  expect(await allEntries()).toBe(before);
});
