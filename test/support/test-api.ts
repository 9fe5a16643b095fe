import createClient, { type Client } from 'openapi-fetch';
import { randomBytes } from 'node:crypto';
import { type ApiKeyRecord, issueApiKey } from '../../lambda/core/api-key';
import type { PlanLimits, PlanName } from '../../lambda/core/plans';
import { issueConsoleToken, newUsageId, type ProjectRecord } from '../../lambda/core/project';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import type { paths } from '../../client/src/openapi-types';

/** A client typed from the OpenAPI document; every response it receives is checked against the document. */
export type ApiClient = Client<paths>;

export interface TestApi {
  readonly api: LocalApi;
  readonly baseUrl: string;
  readonly keys: ApiKeyRepository;
  readonly projects: ProjectRepository;
  /** Creates a project straight in the store, as the projects tool does (a fresh name unless given). */
  createProject(
    plan?: PlanName,
    options?: { name?: string; agreedLimits?: PlanLimits },
  ): Promise<ProjectRecord>;
  /**
   * Issues a key straight into the store, as the keys tool does: in a new project on
   * `plan` (default free), or in the given project.
   */
  issueKey(plan?: PlanName | { project: string }): Promise<{ apiKey: string; record: ApiKeyRecord }>;
  /** The base URL of a project's own address (`http://<project>.localhost:<port>/v1`). */
  projectUrl(project: string): string;
  /**
   * fetch relative to the base URL (`/pets`), or an absolute URL. The response is
   * validated against the OpenAPI document first: a response the document does not
   * allow fails the test.
   */
  request(path: string, init?: RequestInit & { apiKey?: string }): Promise<Response>;
  /** The typed client, sending `apiKey` as the bearer token when given. */
  client(apiKey?: string): ApiClient;
  close(): Promise<void>;
}

/**
 * `fetch` through the contract checker (./contract), loaded at the first request: it loads Prism,
 * some 0.8 s of CPU, which the files that start the API and send it raw requests never use.
 */
const contractFetch: typeof fetch = async (input, init) =>
  (await import('./contract')).contractFetch(input, init);

/** The whole local API on free ports with an in-memory store: real HTTP, real handlers, real store. */
export async function startTestApi(): Promise<TestApi> {
  const api = await startLocalApi({ port: 0, dynamodbPort: 0 });
  const documents = createDocumentClient(api.dynamodbEndpoint);
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  const projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
  const createProject: TestApi['createProject'] = async (plan = 'free', options = {}) => {
    const name = options.name ?? `t-${randomBytes(6).toString('hex')}`;
    const now = new Date().toISOString();
    const record: ProjectRecord = {
      name,
      plan,
      ...(options.agreedLimits ? { agreedLimits: options.agreedLimits } : {}),
      createdAt: now,
      consoleTokenHash: issueConsoleToken(name).hash,
      consoleTokenIssuedAt: now,
      usageId: newUsageId(),
    };
    if (!(await projects.create(record))) throw new Error(`test project ${name} exists already`);
    return record;
  };
  return {
    api,
    baseUrl: api.baseUrl,
    keys,
    projects,
    createProject,
    issueKey: async (plan = 'free') => {
      const project = typeof plan === 'string' ? (await createProject(plan)).name : plan.project;
      const issued = issueApiKey(project, 'test key', new Date());
      await keys.put(issued.record);
      return issued;
    },
    projectUrl: (project) => api.baseUrl.replace('//127.0.0.1:', `//${project}.localhost:`),
    request: (path, init = {}) => {
      const { apiKey, headers, ...rest } = init;
      const url = /^https?:/.test(path) ? path : `${api.baseUrl}${path}`;
      return contractFetch(url, {
        ...rest,
        headers: {
          ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
          ...(headers as Record<string, string>),
        },
      });
    },
    client: (apiKey) =>
      createClient<paths>({
        baseUrl: api.baseUrl,
        fetch: contractFetch,
        ...(apiKey ? { headers: { Authorization: `Bearer ${apiKey}` } } : {}),
      }),
    close: async () => {
      documents.destroy();
      await api.close();
    },
  };
}

/** Asserts the spec's Error body and returns it. */
export async function expectError(
  response: Response,
  status: number,
  code?: string,
): Promise<{ code: string; message: string; status: number }> {
  const text = await response.text();
  expect({ status: response.status, contentType: response.headers.get('content-type') }).toEqual({
    status,
    contentType: expect.stringMatching(/^application\/json/),
  });
  const body = JSON.parse(text) as { code: string; message: string; status: number };
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.message).not.toMatch(/\n\s+at /);
  if (code) expect(body.code).toBe(code);
  return body;
}
