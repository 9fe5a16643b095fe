import createClient, { type Client } from 'openapi-fetch';
import type { PlanName } from '../../lambda/api/plans';
import { type ApiKeyRecord, issueApiKey } from '../../lambda/domain/api-key';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { contractFetch } from './contract';
import type { paths } from './openapi-types';

/** A client typed from the OpenAPI document; every response it receives is checked against the document. */
export type ApiClient = Client<paths>;

export interface TestApi {
  readonly api: LocalApi;
  readonly baseUrl: string;
  readonly keys: ApiKeyRepository;
  /** Issues a key straight into the store, as the keys tool does. */
  issueKey(plan?: PlanName): Promise<{ apiKey: string; record: ApiKeyRecord }>;
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

/** The whole local API on free ports with an in-memory store: real HTTP, real handlers, real store. */
export async function startTestApi(): Promise<TestApi> {
  const api = await startLocalApi({ port: 0, dynamodbPort: 0 });
  const documents = createDocumentClient(api.dynamodbEndpoint);
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  return {
    api,
    baseUrl: api.baseUrl,
    keys,
    issueKey: async (plan = 'free') => {
      const issued = issueApiKey(plan, 'test key', new Date());
      await keys.put(issued.record);
      return issued;
    },
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
