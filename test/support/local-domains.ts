import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { issueApiKey } from '../../lambda/core/api-key';
import type { PlanName } from '../../lambda/core/plans';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { newTargetId, ownershipToken, projectTarget } from '../../lambda/core/custom-domains/project-target';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { SANDBOX_RECORDS_PATH } from '../../local/console-gateway';
import type { SandboxRecordType } from '../../local/sandbox-dns';
import type { LocalDomains, LocalDomainsOptions } from '../../local/local-domains';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { LOCAL_PLATFORM_DOMAIN, type LocalApi, startLocalApi } from '../../local/server';
import { textOf } from './text-answer';

/**
 * Local mode with custom domains, all real and on loopback: the API and the console's API, the
 * embedded store, the sandbox DNS, the HTTPS edge and the certificate authority. The domains'
 * clock is the test's: it starts at the wall clock (certificates must be valid now) and moves
 * only when the test moves it.
 */
export interface DomainsTestApi {
  readonly api: LocalApi;
  readonly domains: LocalDomains;
  /** e.g. `http://127.0.0.1:49152` */
  readonly origin: string;
  /** Moves the domains' clock on. */
  advance(ms: number): void;
  /** A project straight in the store, with its console token (the name is fresh unless given). */
  createProject(
    plan: PlanName,
    name?: string,
  ): Promise<{ name: string; consoleToken: string; targetId: string; target: string; token: string }>;
  /** A key of the project, straight in the store. */
  issueKey(project: string): Promise<string>;
  /** A call of the console's API: `path` under `/console/api`, the token as bearer. */
  console(
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }>;
  /**
   * Adds a record to the sandbox DNS as a tenant does (`npm run domains -- sandbox-record`): with
   * the console token of `token`, by default of one project of the test's own that holds every
   * zone the test writes in. A name under the platform's domain (an imported domain's old target,
   * `<domain>.tenants.localhost`) is local mode's own, which no project may write: it is set as
   * local mode sets its target's record, in process.
   */
  record(name: string, type: string, value: string, token?: string): Promise<void>;
  removeRecord(name: string, type: string, token?: string): Promise<void>;
  /** An HTTPS request through the edge to a custom domain, trusting only the local CA's root. */
  viaEdge(
    domain: string,
    path: string,
    apiKey?: string,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

export async function startDomainsTestApi(options: LocalDomainsOptions = {}): Promise<DomainsTestApi> {
  let time = Date.now();
  const api = await startLocalApi({
    port: 0,
    dynamodbPort: 0,
    customDomains: { clock: () => time, ...options },
  });
  const domains = api.domains;
  if (!domains) throw new Error('local mode started without custom domains');
  const documents = createDocumentClient(api.dynamodbEndpoint);
  const projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  const origin = api.baseUrl.replace(/\/v1$/, '');
  const createProject: DomainsTestApi['createProject'] = async (
    plan,
    name = `t-${randomBytes(5).toString('hex')}`,
  ) => {
    const { token, hash } = issueConsoleToken(name);
    const now = new Date().toISOString();
    const targetId = newTargetId();
    const created = await projects.create({
      name,
      plan,
      createdAt: now,
      consoleTokenHash: hash,
      consoleTokenIssuedAt: now,
      usageId: newUsageId(),
      targetId,
    });
    if (!created) throw new Error(`project ${name} exists already`);
    return {
      name,
      consoleToken: token,
      targetId,
      target: projectTarget(targetId, domains.target),
      token: ownershipToken(targetId),
    };
  };
  let zoneHolder: Promise<string> | undefined;
  const sandbox = async (
    method: string,
    init: { token: string | undefined; query?: Record<string, string>; body?: unknown },
  ) => {
    zoneHolder ??= createProject('business').then((project) => project.consoleToken);
    const token = init.token ?? (await zoneHolder);
    const url = new URL(SANDBOX_RECORDS_PATH, origin);
    url.search = new URLSearchParams(init.query ?? {}).toString();
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (!response.ok) throw new Error(`sandbox ${method}: ${response.status} ${await response.text()}`);
  };
  const platformName = (name: string) => {
    const normalized = name.toLowerCase().replace(/\.$/, '');
    return normalized === LOCAL_PLATFORM_DOMAIN || normalized.endsWith(`.${LOCAL_PLATFORM_DOMAIN}`);
  };
  return {
    api,
    domains,
    origin,
    advance: (ms) => {
      time += ms;
    },
    createProject,
    issueKey: async (project) => {
      const { apiKey, record } = issueApiKey(project, 'test key', new Date());
      await keys.put(record);
      return apiKey;
    },
    console: async (token, method, path, body) => {
      const response = await fetch(`${origin}/console/api${path}`, {
        method,
        headers: {
          ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
      };
    },
    record: async (name, type, value, token) => {
      if (platformName(name)) domains.dns.setRecord({ name, type: type as SandboxRecordType, value });
      else await sandbox('POST', { token, body: { name, type, value } });
    },
    removeRecord: async (name, type, token) => {
      if (platformName(name)) domains.dns.removeRecord({ name, type: type as SandboxRecordType });
      else await sandbox('DELETE', { token, query: { name, type } });
    },
    viaEdge: (domain, path, apiKey) =>
      textOf((done) =>
        httpsRequest(
          {
            host: domains.edge.host,
            port: domains.edge.httpsPort,
            path,
            servername: domain,
            ca: domains.authority.rootCertificatePem,
            agent: false,
            headers: {
              host: `${domain}:${domains.edge.httpsPort}`,
              ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
            },
          },
          done,
        ),
      ),
    close: async () => {
      documents.destroy();
      await api.close();
    },
  };
}
