// Logs and metrics on, at their most talkative, before any handler module is loaded
// (test/support/setup-env.ts turns them off for the other tests).
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
// Even with Powertools asked to log whole events, the Authorization header must not reach a log.
process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { type ApiKeyRecord, issueApiKey, parseApiKey } from '../../lambda/core/api-key';
import { PLANS } from '../../lambda/core/plans';
import { parseConsoleToken, type ProjectRecord } from '../../lambda/core/project';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { captureOutput } from '../support/capture-output';
import { authorizerEvent, lambdaContext, proxyEvent } from '../support/events';
import { fakeClock } from '../support/fake-clock';
import { loadHandler } from '../support/handlers';
import { startLocalMode, timeoutWithStarts } from '../support/processes';

// A test may start npm start once and send it requests (those that set their own timeout start none).
jest.setTimeout(timeoutWithStarts(1));
import { closeRawConnections, rawRequest } from '../support/raw-http';
import { startTestApi, type TestApi } from '../support/test-api';

/**
 * Secrets never reach the logs: requests with a valid, a wrong, a revoked, a malformed
 * and no key, through the local server (in this process and as `npm start`) and straight
 * into the handlers and the authorizer, while everything written to the console and to
 * stdout/stderr is captured. No key, no secret part (not even a fragment), no stored
 * hash and no Authorization value may appear in it; and something must have been
 * captured, so that the check is not vacuous.
 */

type Authorization = readonly string[];

interface Scenario {
  readonly label: string;
  /** Authorization header lines to send (none: missing). */
  readonly authorization: Authorization;
  /** The status an authenticated-only operation answers. */
  readonly expected: 'ok' | 401;
  readonly extraHeaders?: readonly [string, string][];
}

/** Everything that must never be written anywhere, with what it is. */
const forbidden = new Map<string, string>();

function forbid(label: string, value: string): void {
  forbidden.set(value, label);
}

/** A key and every part of it worth hiding: the whole, its secret, fragments of the secret, its stored hash. */
function forbidKey(label: string, apiKey: string, record?: ApiKeyRecord): void {
  forbid(`${label} key`, apiKey);
  const secret = parseApiKey(apiKey)?.secret;
  if (secret) {
    forbid(`${label} secret`, secret);
    forbid(`${label} secret (first 12 characters)`, secret.slice(0, 12));
    forbid(`${label} secret (last 12 characters)`, secret.slice(-12));
  }
  if (record) forbid(`${label} secret hash`, record.secretHash);
}

/** A console token is a secret like a key: neither it, its secret part nor its stored hash may be written. */
function forbidConsoleToken(label: string, token: string | undefined, hash?: string): void {
  if (token?.startsWith('pct_')) {
    forbid(`${label} console token`, token);
    const secret = parseConsoleToken(token)?.secret;
    if (secret) forbid(`${label} console token secret`, secret);
  }
  if (hash) forbid(`${label} console token hash`, hash);
}

function scenariosFor(valid: string, wrong: string, revoked: string): Scenario[] {
  const random = () => randomBytes(18).toString('base64url');
  const malformedKey = `ask_${random()}`;
  const basic = `Basic ${Buffer.from(`user:${random()}`).toString('base64')}`;
  const notBearer = `Token ${random()}`;
  forbid('malformed key', malformedKey);
  forbid('Basic credentials', basic);
  forbid('non-Bearer credentials', notBearer);
  const scenarios: Scenario[] = [
    { label: 'valid key', authorization: [`Bearer ${valid}`], expected: 'ok' },
    { label: 'wrong secret', authorization: [`Bearer ${wrong}`], expected: 401 },
    { label: 'revoked key', authorization: [`Bearer ${revoked}`], expected: 401 },
    { label: 'malformed key', authorization: [`Bearer ${malformedKey}`], expected: 401 },
    { label: 'Basic scheme', authorization: [basic], expected: 401 },
    { label: 'other scheme', authorization: [notBearer], expected: 401 },
    { label: 'key without scheme', authorization: [valid], expected: 401 },
    {
      label: 'two Authorization headers',
      authorization: [`Bearer ${valid}`, `Bearer ${valid}`],
      expected: 401,
    },
    { label: 'missing', authorization: [], expected: 401 },
    // The key where it does not belong: in another header, and in the query string.
    { label: 'key in X-Api-Key', authorization: [], expected: 401, extraHeaders: [['X-Api-Key', valid]] },
  ];
  for (const scenario of scenarios)
    for (const value of scenario.authorization) forbid(`Authorization value (${scenario.label})`, value);
  return scenarios;
}

/** The requests each scenario sends, with what they answer when authenticated. */
const OPERATIONS = [
  { method: 'GET', path: '/pets?limit=1', ok: 200 },
  { method: 'POST', path: '/pets', ok: 201, body: JSON.stringify({ name: 'Secretive Sid', categoryId: 9 }) },
  { method: 'GET', path: '/pets/1', ok: 404 },
  { method: 'GET', path: '/openapi.json', ok: 200, public: true },
] as const;

async function drive(
  baseUrl: string,
  scenarios: readonly Scenario[],
  operations: readonly (typeof OPERATIONS)[number][],
  beforeEach: () => void = () => undefined,
): Promise<number> {
  const { origin, pathname } = new URL(baseUrl);
  let sent = 0;
  for (const scenario of scenarios) {
    for (const operation of operations) {
      beforeEach();
      const response = await rawRequest(origin, {
        method: operation.method,
        path: `${pathname}${operation.path}`,
        headers: [
          ...scenario.authorization.map((value): [string, string] => ['Authorization', value]),
          ...(scenario.extraHeaders ?? []),
          ['Content-Type', 'application/json'],
        ],
        ...('body' in operation ? { body: operation.body } : {}),
      });
      sent += 1;
      const expected = scenario.expected === 'ok' || 'public' in operation ? operation.ok : 401;
      expect({ scenario: scenario.label, operation: operation.path, status: response.status }).toEqual({
        scenario: scenario.label,
        operation: operation.path,
        status: expected,
      });
    }
  }
  return sent;
}

/** Fails naming each forbidden value found in `text`, and where. */
function expectNoSecrets(where: string, text: string): void {
  const found = [...forbidden]
    .filter(([value]) => text.includes(value))
    .map(([value, label]) => `${label} (${value.slice(0, 8)}…)`);
  expect({ where, found }).toEqual({ where, found: [] });
}

/** The request-log lines in `text`: the service writes exactly one per request it answers. */
function requestLogLines(text: string): number {
  return text.split('\n').filter((line) => line.startsWith('{') && line.includes('"message":"request"'))
    .length;
}

const captured: Record<string, number> = {};

afterAll(() => {
  closeRawConnections();
  console.info(
    `secrets: ${forbidden.size} secret values checked; lines captured: ${Object.entries(captured)
      .map(([where, count]) => `${where} ${count}`)
      .join(', ')}`,
  );
});

describe('the capture itself', () => {
  it('sees console output and direct writes to stdout and stderr', () => {
    const output = captureOutput();
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    try {
      console.log(`${marker} log`);
      console.error(`${marker} error`);
      process.stdout.write(`${marker} stdout\n`);
      process.stderr.write(Buffer.from(`${marker} stderr\n`));
    } finally {
      output.restore();
    }
    expect(output.lines()).toEqual([
      `${marker} log`,
      `${marker} error`,
      `${marker} stdout`,
      `${marker} stderr`,
    ]);
  });
});

describe('the local server in this process (startTestApi)', () => {
  let t: TestApi;
  let clock: ReturnType<typeof fakeClock>;
  let valid: { apiKey: string; record: ApiKeyRecord };
  let roomy: ProjectRecord;
  let scenarios: Scenario[];

  beforeAll(async () => {
    t = await startTestApi();
    clock = fakeClock(Date.UTC(2027, 5, 1));
    // The most generous allowance, so the scenarios never run into a limit.
    roomy = await t.createProject('enterprise', { agreedLimits: PLANS.enterprise.ceiling });
    valid = await t.issueKey({ project: roomy.name });
    forbidConsoleToken('project', undefined, roomy.consoleTokenHash);
    const revoked = await t.issueKey('pro');
    await t.keys.revoke(revoked.record.keyId, new Date());
    const wrong = `ask_${valid.record.keyId}_${randomBytes(32).toString('base64url')}`;
    forbidKey('valid', valid.apiKey, valid.record);
    forbidKey('revoked', revoked.apiKey, revoked.record);
    forbidKey('wrong', wrong);
    scenarios = scenariosFor(valid.apiKey, wrong, revoked.apiKey);
  });
  afterAll(async () => {
    clock.restore();
    await t.close();
  });

  it('writes no key, secret, hash or Authorization value, whatever the key', async () => {
    const output = captureOutput();
    let sent: number;
    try {
      // A minute apart on the service clock, so that the anonymous allowance (20 a minute) never answers 429.
      sent = await drive(t.baseUrl, scenarios, OPERATIONS, () => clock.advance(60_000));
      // The key in the query string, where no client should put it.
      const { origin } = new URL(t.baseUrl);
      const inQuery = await rawRequest(origin, {
        method: 'GET',
        path: `/v1/pets?limit=1&${valid.apiKey}=${valid.apiKey}`,
        headers: [['Authorization', `Bearer ${valid.apiKey}`]],
      });
      expect(inQuery.status).toBe(400);
      sent += 1;
    } finally {
      output.restore();
    }
    expectNoSecrets('startTestApi', output.text());
    captured['startTestApi'] = output.lines().length;
    // One request line per request (written before its answer), so the check above looked at real log lines.
    expect(requestLogLines(output.text())).toBe(sent);
  });

  it('the authorizer returns no secret in its answer, and logs none, for any key', async () => {
    const authorizer = loadHandler<
      (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>
    >('authorizer', t.api.dynamodbEndpoint);
    const output = captureOutput();
    const results: APIGatewayAuthorizerResult[] = [];
    try {
      for (const scenario of scenarios) {
        const event = authorizerEvent({});
        event.headers = Object.fromEntries(scenario.authorization.map((value) => ['Authorization', value]));
        event.multiValueHeaders =
          scenario.authorization.length > 0 ? { Authorization: [...scenario.authorization] } : {};
        results.push(await authorizer(event));
      }
    } finally {
      output.restore();
    }
    expect(results[0]).toMatchObject({
      principalId: valid.record.keyId,
      context: { authenticated: 'true', keyId: valid.record.keyId },
      usageIdentifierKey: roomy.usageId,
    });
    for (const result of results.slice(1)) expect(result.context).toMatchObject({ authenticated: 'false' });
    expectNoSecrets('authorizer results', JSON.stringify(results));
    expectNoSecrets('authorizer output', output.text());
    captured['authorizer (direct)'] = output.lines().length;
  });

  it('a handler whose store is unreachable logs the failure, and still no secret', async () => {
    // A store that closes every connection unanswered, on a port of its own (a fixed port may be taken).
    const deadStore = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => deadStore.listen(0, '127.0.0.1', resolve));
    const { port } = deadStore.address() as AddressInfo;
    const createPet = loadHandler<
      (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>
    >('create-pet', `http://127.0.0.1:${port}`);
    const authorization = `Bearer ${valid.apiKey}`;
    const output = captureOutput();
    let result: APIGatewayProxyResult;
    try {
      result = await createPet(
        proxyEvent({
          httpMethod: 'POST',
          headers: { Authorization: authorization, 'Content-Type': 'application/json', Host: 'h' },
          multiValueHeaders: { Authorization: [authorization], 'Content-Type': ['application/json'] },
          body: JSON.stringify({ name: 'Unreachable Ursula', categoryId: 1 }),
          principal: {
            authenticated: true,
            keyId: valid.record.keyId,
            project: roomy.name,
            plan: 'enterprise',
            limits: PLANS.enterprise.ceiling,
          },
        }),
        lambdaContext,
      );
    } finally {
      output.restore();
      await new Promise((resolve) => deadStore.close(resolve));
    }
    expect(result.statusCode).toBe(503);
    expect(output.lines().length).toBeGreaterThan(0);
    expect(output.text()).toMatch(/unavailable/i);
    expectNoSecrets('handler with the store unreachable', output.text());
    captured['createPet with the store unreachable (direct)'] = output.lines().length;
  }, 20_000);
});

describe('npm start (a child process: everything it writes to stdout and stderr)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-secrets-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes no key, secret, hash or Authorization value while serving requests with any key', async () => {
    const started = await startLocalMode(dataDir, {
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      POWERTOOLS_METRICS_DISABLED: 'false',
      POWERTOOLS_LOGGER_LOG_EVENT: 'true',
    });
    let from = 0;
    let sent = 0;
    try {
      const { baseUrl, apiKey: devKey } = started;
      const storeEndpoint = /DynamoDB-compatible store at (http:\/\/\S+)/.exec(started.output())?.[1] ?? '';
      // Keys issued straight into its store, as the keys tool does.
      const documents = createDocumentClient(storeEndpoint);
      const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
      const devRecord = (await keys.list()).find((record) => devKey.includes(`_${record.keyId}_`));
      const revoked = issueApiKey('dev', 'revoked before use', new Date());
      await keys.put(revoked.record);
      await keys.revoke(revoked.record.keyId, new Date());
      documents.destroy();
      const wrong = `ask_${devRecord?.keyId ?? ''}_${randomBytes(32).toString('base64url')}`;
      forbidKey('npm start development', devKey, devRecord);
      const consoleToken = /Console token of project dev \(valid until the next start\): (pct_\S+)/.exec(
        started.output(),
      )?.[1];
      expect(consoleToken).toMatch(/^pct_dev_/);
      forbidConsoleToken('npm start dev project', consoleToken);
      forbidKey('npm start revoked', revoked.apiKey, revoked.record);
      forbidKey('npm start wrong', wrong);

      // `npm start` prints its development key once, at start-up, by design; what it writes after that is checked.
      from = started.output().length;
      // Two operations per scenario keep the keyless calls under the anonymous allowance (20 a minute).
      sent = await drive(baseUrl, scenariosFor(devKey, wrong, revoked.apiKey), [
        OPERATIONS[0],
        OPERATIONS[1],
      ]);
    } finally {
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    }
    // It has exited and its output was read to the end: every line it wrote for the requests is here,
    // however late the pipe delivered it.
    const written = started.output().slice(from);
    expectNoSecrets('npm start', written);
    captured['npm start'] = written.split('\n').filter((line) => line.trim() !== '').length;
    expect(requestLogLines(written)).toBe(sent);
  });
});
