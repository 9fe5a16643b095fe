import { mockClient } from 'aws-sdk-client-mock';
import { issueApiKey } from '../../../lambda/core/api-key';
import type {
  CustomDomain,
  DomainRole,
  DomainState,
} from '../../../lambda/core/custom-domains/custom-domain';
import { issueConsoleToken } from '../../../lambda/core/project';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { CustomDomainRepository } from '../../../lambda/store/custom-domain-repository';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { authorizerEvent } from '../../support/events';
import { loadHandlers } from '../../support/handlers';
import type { AuthorizerHandler as Authorizer } from '../../../lambda/operations/authorizer';

/**
 * The authorizer as its Lambda function builds it, over the embedded store, with the origin
 * secret read from Secrets Manager mocked at the SDK boundary (GetSecretValue by staging label,
 * shaped as the API answers; a secret never rotated has no AWSPREVIOUS: ResourceNotFoundException).
 */

type SecretsModule = typeof import('@aws-sdk/client-secrets-manager');

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:OriginSecret-AbCdEf';
const CURRENT = 'c'.repeat(32) + 'URRENT0123456789abcdefABCDEF0123';
const PREVIOUS = 'p'.repeat(32) + 'REVIOUS0123456789abcdefABCDEF012';
const START = Date.UTC(2026, 10, 22, 12, 0, 0);

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

interface Loaded {
  handler: Authorizer;
  secrets: ReturnType<typeof mockClient>;
  setNow(ms: number): void;
  module: SecretsModule;
}

/** A cold start of the authorizer with the edge configured, its secrets as given, its clock in the test's hands. */
function coldStart(values: { current: string; previous?: string } | 'unreachable'): Loaded {
  let clockMs = START;
  let secrets: ReturnType<typeof mockClient> | undefined;
  let module: SecretsModule | undefined;
  const extra = {
    [RUNTIME_ENV.edgeOriginSecretArn]: SECRET_ARN,
    [RUNTIME_ENV.customDomainsTable]: LOCAL_TABLE_NAMES.customDomains,
  };
  Object.assign(process.env, extra);
  try {
    const [handler] = loadHandlers<Authorizer>(['authorizer'], store.store.endpoint, () => {
      // Inside the fresh module registry: the handler's own SDK class and clock.
      module = require('@aws-sdk/client-secrets-manager') as SecretsModule;
      const { setClock } =
        require('../../../lambda/shared/clock') as typeof import('../../../lambda/shared/clock');
      setClock(() => clockMs);
      secrets = mockClient(module.SecretsManagerClient);
      const command = module.GetSecretValueCommand;
      if (values === 'unreachable') {
        secrets.on(command).rejects(new Error('connect ETIMEDOUT'));
        return;
      }
      secrets.on(command, { SecretId: SECRET_ARN, VersionStage: 'AWSCURRENT' }).resolves({
        ARN: SECRET_ARN,
        Name: 'OriginSecret',
        SecretString: values.current,
        VersionStages: ['AWSCURRENT'],
      });
      if (values.previous === undefined) {
        secrets.on(command, { SecretId: SECRET_ARN, VersionStage: 'AWSPREVIOUS' }).rejects(
          new module.ResourceNotFoundException({
            message: "Secrets Manager can't find the specified secret value for staging label: AWSPREVIOUS",
            $metadata: {},
          }),
        );
      } else {
        secrets
          .on(command, { SecretId: SECRET_ARN, VersionStage: 'AWSPREVIOUS' })
          .resolves({ ARN: SECRET_ARN, SecretString: values.previous, VersionStages: ['AWSPREVIOUS'] });
      }
    });
    return {
      handler: handler as Authorizer,
      secrets: secrets as ReturnType<typeof mockClient>,
      module: module as SecretsModule,
      setNow: (ms) => {
        clockMs = ms;
      },
    };
  } finally {
    for (const name of Object.keys(extra)) delete process.env[name];
  }
}

async function projectWithKey(name: string) {
  const now = new Date(START).toISOString();
  await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
    name,
    plan: 'pro',
    createdAt: now,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: now,
    usageId: `usage-${name}`,
  });
  const issued = issueApiKey(name, 'edge test', new Date(START));
  await new ApiKeyRepository(store.documents, LOCAL_TABLE_NAMES.apiKeys).put(issued.record);
  return issued.apiKey;
}

const domains = () => new CustomDomainRepository(store.documents, LOCAL_TABLE_NAMES.customDomains);

async function addDomain(name: string, project: string, state: DomainState, role: DomainRole = 'primary') {
  const at = new Date(START).toISOString();
  const domain: CustomDomain = {
    name,
    project,
    role,
    state,
    since: at,
    addedAt: at,
    attached: state !== 'pending-dns',
    certificate: state === 'active' || state === 'redirect' ? 'issued' : 'pending',
    version: 1,
  };
  await domains().create(domain);
}

/** A request as CloudFront sends it to the project's address for a viewer of `viewerHost`. */
function throughEdge(
  project: string,
  viewerHost: string,
  {
    secret = CURRENT,
    apiKey,
    viewer = '198.51.100.10:46532',
  }: { secret?: string; apiKey?: string; viewer?: string } = {},
) {
  return authorizerEvent(
    {
      'x-animal-store-edge': secret,
      'CloudFront-Viewer-Address': viewer,
      'X-Forwarded-Host': viewerHost,
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
    },
    `${project}.animalstore.example`,
  );
}

describe('authorizer behind the edge (origin secret header)', () => {
  it("believes a request with the current secret about its viewer, and serves the project's active domain", async () => {
    const apiKey = await projectWithKey('edge-a');
    await addDomain('shop.edge-a.example', 'edge-a', 'active');
    const { handler } = coldStart({ current: CURRENT });
    const result = await handler(throughEdge('edge-a', 'shop.edge-a.example', { apiKey }));
    expect(result.context).toMatchObject({
      authenticated: 'true',
      project: 'edge-a',
      viewerAddress: '198.51.100.10',
    });
    const keyless = await handler(
      throughEdge('edge-a', 'Shop.Edge-A.example.:443', { viewer: '[2001:DB8::7]:51000' }),
    );
    expect(keyless.context).toEqual({
      authenticated: 'false',
      failure: 'missing_api_key',
      viewerAddress: '2001:db8::7',
    });
  });

  it('accepts the previous value during a rotation, and re-reads the secret at most every 5 minutes', async () => {
    const apiKey = await projectWithKey('edge-rot');
    await addDomain('api.edge-rot.example', 'edge-rot', 'active');
    const started = coldStart({ current: CURRENT, previous: PREVIOUS });
    for (const secret of [CURRENT, PREVIOUS, CURRENT]) {
      const result = await started.handler(
        throughEdge('edge-rot', 'api.edge-rot.example', { secret, apiKey }),
      );
      expect(result.context).toMatchObject({ project: 'edge-rot', viewerAddress: '198.51.100.10' });
    }
    // Once per cold start: current and previous, then from memory.
    expect(started.secrets.commandCalls(started.module.GetSecretValueCommand)).toHaveLength(2);

    // The rotation finishes: PREVIOUS is gone. Within 5 minutes the old value still passes; after, it does not.
    const rotated = 'n'.repeat(64);
    started.secrets
      .on(started.module.GetSecretValueCommand, { SecretId: SECRET_ARN, VersionStage: 'AWSCURRENT' })
      .resolves({ SecretString: rotated });
    started.secrets
      .on(started.module.GetSecretValueCommand, { SecretId: SECRET_ARN, VersionStage: 'AWSPREVIOUS' })
      .resolves({ SecretString: CURRENT });
    started.setNow(START + 5 * 60_000 - 1);
    expect(
      (await started.handler(throughEdge('edge-rot', 'api.edge-rot.example', { secret: PREVIOUS }))).context,
    ).toHaveProperty('viewerAddress');
    started.setNow(START + 5 * 60_000);
    expect(
      (await started.handler(throughEdge('edge-rot', 'api.edge-rot.example', { secret: PREVIOUS }))).context,
    ).not.toHaveProperty('viewerAddress');
    expect(
      (await started.handler(throughEdge('edge-rot', 'api.edge-rot.example', { secret: rotated }))).context,
    ).toHaveProperty('viewerAddress');
    expect(started.secrets.commandCalls(started.module.GetSecretValueCommand)).toHaveLength(4);
  });

  it('a request without the valid secret claims nothing: a forged viewer address and host are ignored', async () => {
    const apiKey = await projectWithKey('edge-forge');
    const { handler, secrets, module } = coldStart({ current: CURRENT });
    // A direct call to execute-api with CloudFront's headers and a wrong secret.
    const forged = authorizerEvent({
      Authorization: `Bearer ${apiKey}`,
      'x-animal-store-edge': CURRENT.slice(0, -1) + 'X',
      'CloudFront-Viewer-Address': '192.0.2.1:443',
      'X-Forwarded-Host': 'not-attached.example',
    });
    const result = await handler(forged);
    expect(result.context).toMatchObject({ authenticated: 'true', project: 'edge-forge' });
    expect(result.context).not.toHaveProperty('viewerAddress');
    // Without the header at all, Secrets Manager is not even asked.
    const calls = secrets.commandCalls(module.GetSecretValueCommand).length;
    const unsigned = authorizerEvent(
      { 'CloudFront-Viewer-Address': '192.0.2.1:443', 'X-Forwarded-Host': 'not-attached.example' },
      'edge-forge.animalstore.example',
    );
    expect((await handler(unsigned)).context).toEqual({ authenticated: 'false', failure: 'missing_api_key' });
    expect(secrets.commandCalls(module.GetSecretValueCommand)).toHaveLength(calls);
    // A repeated secret header is no secret header.
    const repeated = throughEdge('edge-forge', 'not-attached.example');
    repeated.multiValueHeaders = { ...repeated.multiValueHeaders, 'x-animal-store-edge': [CURRENT, CURRENT] };
    expect((await handler(repeated)).context).toEqual({ authenticated: 'false', failure: 'missing_api_key' });
  });

  it("refuses a custom domain that is not one of the address's serving domains as unknown_domain", async () => {
    const apiKey = await projectWithKey('edge-b');
    await projectWithKey('edge-c');
    await addDomain('pending.edge-b.example', 'edge-b', 'certificate-pending');
    await addDomain('www.edge-b.example', 'edge-b', 'redirect', 'redirect');
    await addDomain('shop.edge-c.example', 'edge-c', 'active');
    const { handler } = coldStart({ current: CURRENT });
    const at = async (host: string) => (await handler(throughEdge('edge-b', host, { apiKey }))).context;
    const refused = { authenticated: 'false', failure: 'unknown_domain', viewerAddress: '198.51.100.10' };
    expect(await at('unknown.example')).toEqual(refused);
    expect(await at('pending.edge-b.example')).toEqual(refused);
    expect(await at('shop.edge-c.example')).toEqual(refused);
    expect(await at('not a host')).toEqual(refused);
    expect(await at('www.edge-b.example')).toMatchObject({ authenticated: 'true', project: 'edge-b' });
    // The address itself, as a viewer host, needs no domain.
    expect(await at('edge-b.animalstore.example')).toMatchObject({ authenticated: 'true' });
    // No forwarded host at all: refused too (the edge function always sets one).
    const hostless = throughEdge('edge-b', 'x.example', { apiKey });
    delete hostless.headers?.['X-Forwarded-Host'];
    delete hostless.multiValueHeaders?.['X-Forwarded-Host'];
    expect((await handler(hostless)).context).toEqual(refused);
  });

  it('a removed domain is refused within 2 seconds, while the edge still routes it', async () => {
    const apiKey = await projectWithKey('edge-rm');
    await addDomain('gone.edge-rm.example', 'edge-rm', 'active');
    const started = coldStart({ current: CURRENT });
    const request = () => started.handler(throughEdge('edge-rm', 'gone.edge-rm.example', { apiKey }));
    expect((await request()).context).toMatchObject({ authenticated: 'true' });
    expect(await domains().delete('gone.edge-rm.example', 'edge-rm')).toBe(true);
    started.setNow(START + 1_999);
    expect((await request()).context).toMatchObject({ authenticated: 'true' });
    started.setNow(START + 2_000);
    expect((await request()).context).toMatchObject({ authenticated: 'false', failure: 'unknown_domain' });
  });

  it('answers 503 when the secret cannot be read, and never logs the secret', async () => {
    const output: string[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        output.push(args.map(String).join(' '));
      }),
    );
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
    try {
      await projectWithKey('edge-down');
      const down = coldStart('unreachable');
      expect((await down.handler(throughEdge('edge-down', 'edge-down.animalstore.example'))).context).toEqual(
        {
          authenticated: 'false',
          failure: 'service_unavailable',
        },
      );
      const up = coldStart({ current: CURRENT, previous: PREVIOUS });
      await up.handler(throughEdge('edge-down', 'unknown.example', { secret: PREVIOUS }));
      expect(output.join('\n')).not.toContain(CURRENT);
      expect(output.join('\n')).not.toContain(PREVIOUS);
    } finally {
      for (const spy of spies) spy.mockRestore();
      stdout.mockRestore();
    }
  });
});
