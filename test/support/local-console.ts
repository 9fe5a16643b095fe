import type { SelfServiceSettings } from '../../lambda/core/self-service-settings';
import { randomBytes } from 'node:crypto';
import { issueApiKey } from '../../lambda/core/api-key';
import type { PlanName } from '../../lambda/core/plans';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { SESSION_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { fakeClock } from './fake-clock';

/**
 * Local mode's console API over real HTTP on loopback, as a browser and a tool call it, with the
 * service clock (the limiter, the sessions, the usage windows) in the test's hand: it starts at
 * a fixed UTC moment and moves only when the test moves it.
 */

/** A fixed start, a minute into a UTC day, so no test crosses a window by accident. */
export const CONSOLE_TEST_START_MS = Date.parse('2031-03-04T05:06:00.000Z');

export interface ConsoleAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export interface ConsoleRequest {
  readonly method?: string;
  readonly body?: unknown;
  /** `Authorization: Bearer <token>` (a tool). */
  readonly bearer?: string;
  /** The session cookie's value (a browser). */
  readonly cookie?: string;
  readonly origin?: string;
  readonly csrfToken?: string;
  readonly headers?: Record<string, string>;
}

export interface ConsoleTestApi {
  readonly api: LocalApi;
  /** The console page's origin, e.g. `http://localhost:49152`. */
  readonly consoleOrigin: string;
  /** The API's base URL, e.g. `http://127.0.0.1:49152/v1`. */
  readonly apiBase: string;
  readonly port: number;
  readonly projects: ProjectRepository;
  readonly keys: ApiKeyRepository;
  now(): number;
  advance(ms: number): void;
  createProject(plan: PlanName): Promise<{ name: string; consoleToken: string }>;
  issueKey(project: string): Promise<{ apiKey: string; keyId: string }>;
  call(path: string, request?: ConsoleRequest): Promise<ConsoleAnswer>;
  /** Signs in from the console's origin: the cookie's value and the CSRF token. */
  signIn(consoleToken: string): Promise<{ cookie: string; csrfToken: string }>;
  close(): Promise<void>;
}

/** The session cookie's value in an answer's Set-Cookie, if it sets one. */
export function sessionCookieOf(headers: Headers): string | undefined {
  const prefix = `${SESSION_COOKIE_NAME}=`;
  const cookie = headers.getSetCookie().find((value) => value.startsWith(prefix));
  return cookie?.slice(prefix.length).split(';')[0];
}

/**
 * `openIdProvider`: the local OpenID provider too, and the console's sign-in through it (issue 26).
 * `domainsOnTestClock`: the domains' rules (a claim's window) run on the test's clock too.
 */
export async function startConsoleTestApi(
  options: { openIdProvider?: boolean; selfService?: SelfServiceSettings; domainsOnTestClock?: boolean } = {},
): Promise<ConsoleTestApi> {
  const clock = fakeClock(CONSOLE_TEST_START_MS);
  let api: LocalApi;
  try {
    api = await startLocalApi({
      port: 0,
      dynamodbPort: 0,
      customDomains: options.domainsOnTestClock ? { clock: clock.now } : {},
      consoleSessionClock: clock.now,
      ...(options.openIdProvider ? { openIdProviderPort: 0 } : {}),
      ...(options.selfService ? { selfService: options.selfService } : {}),
    });
  } catch (error) {
    clock.restore();
    throw error;
  }
  const documents = createDocumentClient(api.dynamodbEndpoint);
  const projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  const consoleOrigin = `http://localhost:${api.port}`;
  const call = async (path: string, request: ConsoleRequest = {}): Promise<ConsoleAnswer> => {
    const response = await fetch(`http://127.0.0.1:${api.port}/console/api${path}`, {
      method: request.method ?? 'GET',
      headers: {
        ...(request.bearer === undefined ? {} : { Authorization: `Bearer ${request.bearer}` }),
        ...(request.cookie === undefined ? {} : { Cookie: `${SESSION_COOKIE_NAME}=${request.cookie}` }),
        ...(request.origin === undefined ? {} : { Origin: request.origin }),
        ...(request.csrfToken === undefined ? {} : { 'X-CSRF-Token': request.csrfToken }),
        ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    const text = await response.text();
    // A JSON Lines export (the audit log's) is text: its lines are under `lines`.
    const jsonLines = response.headers.get('content-type')?.startsWith('application/jsonl');
    return {
      status: response.status,
      headers: response.headers,
      body: (jsonLines
        ? {
            lines: text
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as unknown),
          }
        : text
          ? JSON.parse(text)
          : {}) as Record<string, unknown>,
    };
  };
  return {
    api,
    consoleOrigin,
    apiBase: api.baseUrl,
    port: api.port,
    projects,
    keys,
    now: clock.now,
    advance: clock.advance,
    createProject: async (plan) => {
      const name = `c-${randomBytes(5).toString('hex')}`;
      const { token, hash } = issueConsoleToken(name);
      const at = new Date(clock.now()).toISOString();
      const created = await projects.create({
        name,
        plan,
        createdAt: at,
        consoleTokenHash: hash,
        consoleTokenIssuedAt: at,
        usageId: newUsageId(),
      });
      if (!created) throw new Error(`project ${name} exists already`);
      return { name, consoleToken: token };
    },
    issueKey: async (project) => {
      const { apiKey, record } = issueApiKey(project, 'test key', new Date(clock.now()));
      await keys.put(record);
      return { apiKey, keyId: record.keyId };
    },
    call,
    signIn: async (consoleToken) => {
      const answer = await call('/session', {
        method: 'POST',
        origin: consoleOrigin,
        body: { token: consoleToken },
      });
      const cookie = sessionCookieOf(answer.headers);
      if (answer.status !== 201 || !cookie)
        throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
      return { cookie, csrfToken: answer.body.csrfToken as string };
    },
    close: async () => {
      documents.destroy();
      try {
        await api.close();
      } finally {
        clock.restore();
      }
    },
  };
}

/** An answer is the Error body of `status` with `code` (and a message). */
export function expectError(
  answer: { status: number; body: Record<string, unknown> },
  status: number,
  code: string,
): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { code, status, message: expect.any(String) },
  });
}
