import {
  type ApiKeyRecord,
  issueApiKey,
  type KeyRandomness,
  parseApiKey,
} from '../../../lambda/core/api-key';
import { authenticate } from '../../../lambda/core/authentication';
import { StoreRefusedInputError } from '../../../lambda/core/errors';
import { PLANS } from '../../../lambda/core/plans';
import type { ProjectRecord } from '../../../lambda/core/project';

function project(name: string, overrides: Partial<ProjectRecord> = {}): ProjectRecord {
  return {
    name,
    plan: 'pro',
    createdAt: '2026-01-01T00:00:00.000Z',
    consoleTokenHash: '00',
    consoleTokenIssuedAt: '2026-01-01T00:00:00.000Z',
    usageId: `usage-of-${name}`,
    ...overrides,
  };
}

const projects = new Map<string, ProjectRecord>([
  ['acme', project('acme')],
  ['bigco', project('bigco', { plan: 'enterprise', agreedLimits: { perMinute: 2_000, perDay: 900_000 } })],
  ['webapp', project('webapp', { allowedOrigins: ['https://app.example.com'] })],
]);
const issued = issueApiKey('acme', 'test', new Date('2026-01-01T00:00:00Z'));
const bigcoKey = issueApiKey('bigco', 'test', new Date());
const records = new Map<string, ApiKeyRecord>([
  [issued.record.keyId, issued.record],
  [bigcoKey.record.keyId, bigcoKey.record],
]);
const lookupKey = async (keyId: string) => records.get(keyId);
const lookupProject = async (name: string) => projects.get(name);
const auth = (authorization: string[], addressProject?: string) =>
  authenticate({ authorization, ...(addressProject ? { addressProject } : {}) }, lookupKey, lookupProject);

describe('API keys', () => {
  it('have a public id, 256 random bits of secret, and a stored hash that is not the secret', () => {
    const parsed = parseApiKey(issued.apiKey);
    expect(parsed?.keyId).toBe(issued.record.keyId);
    expect(parsed?.secret).toHaveLength(43);
    expect(JSON.stringify(issued.record)).not.toContain(parsed?.secret);
    expect(issued.record.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.record.project).toBe('acme');
  });

  it('are different every time', () => {
    expect(issueApiKey('acme', 'test', new Date()).apiKey).not.toBe(issued.apiKey);
  });

  // Secrets are base64url: `_` and `-` may stand anywhere, next to the separator included.
  it.each([
    `_${'a'.repeat(42)}`,
    `-${'a'.repeat(42)}`,
    `${'a'.repeat(42)}_`,
    `${'a'.repeat(42)}-`,
    `${'a'.repeat(21)}_-${'a'.repeat(20)}`,
    '_'.repeat(43),
    '-'.repeat(43),
  ])('parse and match with the secret %s', (secret) => {
    const random: KeyRandomness = { keyId: () => 'abcdefghijklmnop', secret: () => secret };
    const key = issueApiKey('acme', 'shaped', new Date(), random);
    expect(key.apiKey).toBe(`ask_abcdefghijklmnop_${secret}`);
    expect(parseApiKey(key.apiKey)).toEqual({ keyId: 'abcdefghijklmnop', secret });
  });
});

describe('authenticate', () => {
  it("accepts a valid key with the scheme in any case, acting for its project with the project's plan", async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect(await auth([`${scheme} ${issued.apiKey}`])).toEqual({
        principal: {
          authenticated: true,
          keyId: issued.record.keyId,
          project: 'acme',
          plan: 'pro',
          limits: PLANS.pro.limits,
        },
        usageId: 'usage-of-acme',
      });
    }
  });

  it("takes an agreed plan's numbers from the project", async () => {
    expect((await auth([`Bearer ${bigcoKey.apiKey}`])).principal).toMatchObject({
      project: 'bigco',
      plan: 'enterprise',
      limits: { perMinute: 2_000, perDay: 900_000 },
    });
  });

  it("accepts a key on its own project's address and refuses it on another's like an unknown key", async () => {
    expect((await auth([`Bearer ${issued.apiKey}`], 'acme')).principal).toMatchObject({
      authenticated: true,
    });
    expect((await auth([`Bearer ${issued.apiKey}`], 'bigco')).principal).toEqual({
      authenticated: false,
      failure: 'invalid_api_key',
    });
  });

  it('reports an address that names no project, whatever the key', async () => {
    for (const headers of [[], [`Bearer ${issued.apiKey}`]]) {
      expect((await auth(headers, 'nobody')).principal).toEqual({
        authenticated: false,
        failure: 'unknown_address',
      });
    }
  });

  it('reports an address whose label no project can have without looking it up', async () => {
    const looked: string[] = [];
    const recording = async (name: string) => {
      looked.push(name);
      return projects.get(name);
    };
    for (const label of ['a'.repeat(64), 'a'.repeat(3_000), 'under_score']) {
      const result = await authenticate(
        { authorization: [`Bearer ${issued.apiKey}`], addressProject: label },
        lookupKey,
        recording,
      );
      expect(result.principal).toEqual({ authenticated: false, failure: 'unknown_address' });
    }
    expect(looked).toEqual([]);
  });

  it('takes a value the store refuses (StoreRefusedInputError) as naming nothing, not as an outage', async () => {
    const refusing = async () => {
      throw new StoreRefusedInputError(new Error('key too long'));
    };
    expect(
      (await authenticate({ authorization: [], addressProject: 'acme' }, lookupKey, refusing)).principal,
    ).toEqual({ authenticated: false, failure: 'unknown_address' });
    expect(
      (await authenticate({ authorization: [`Bearer ${issued.apiKey}`] }, refusing, lookupProject)).principal,
    ).toEqual({ authenticated: false, failure: 'invalid_api_key' });
  });

  it('refuses a key whose project is gone', async () => {
    const orphan = issueApiKey('deleted-project', 'orphan', new Date());
    records.set(orphan.record.keyId, orphan.record);
    expect((await auth([`Bearer ${orphan.apiKey}`])).principal).toEqual({
      authenticated: false,
      failure: 'invalid_api_key',
    });
  });

  it('takes a key stored before projects (no project yet) as a key of legacy, and refuses it until legacy exists', async () => {
    const former = issueApiKey('unused', 'former', new Date());
    const withoutProject = { ...former.record } as Partial<ApiKeyRecord>;
    delete withoutProject.project;
    records.set(former.record.keyId, withoutProject as ApiKeyRecord);
    expect((await auth([`Bearer ${former.apiKey}`])).principal).toEqual({
      authenticated: false,
      failure: 'invalid_api_key',
    });
    projects.set('legacy', project('legacy', { plan: 'business' }));
    expect((await auth([`Bearer ${former.apiKey}`])).principal).toMatchObject({
      authenticated: true,
      project: 'legacy',
      plan: 'business',
    });
  });

  it('reports a missing header', async () => {
    expect((await auth([])).principal).toEqual({ authenticated: false, failure: 'missing_api_key' });
  });

  it.each([`Basic ${issued.apiKey}`, 'Bearer', 'Bearer ', issued.apiKey, `Bearer ${issued.apiKey} extra`])(
    'refuses the malformed header %j',
    async (header) => {
      expect((await auth([header])).principal).toEqual({
        authenticated: false,
        failure: 'invalid_authorization',
      });
    },
  );

  it('refuses two Authorization headers', async () => {
    const header = `Bearer ${issued.apiKey}`;
    expect((await auth([header, header])).principal).toMatchObject({ authenticated: false });
  });

  it('refuses unknown, wrong-secret and revoked keys alike', async () => {
    const unknown = issueApiKey('acme', 'never stored', new Date()).apiKey;
    const wrongSecret = `${issued.apiKey.slice(0, -1)}${issued.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const revoked = issueApiKey('acme', 'revoked', new Date());
    records.set(revoked.record.keyId, { ...revoked.record, revokedAt: new Date().toISOString() });
    for (const key of [unknown, wrongSecret, revoked.apiKey, 'not-a-key']) {
      expect((await auth([`Bearer ${key}`])).principal).toEqual({
        authenticated: false,
        failure: 'invalid_api_key',
      });
    }
  });

  it('reports an unavailable store as such, not as a bad key', async () => {
    const failing = async () => {
      throw new Error('connection refused');
    };
    for (const [keys, projectsOf] of [
      [failing, lookupProject],
      [lookupKey, failing],
    ] as const) {
      const result = await authenticate({ authorization: [`Bearer ${issued.apiKey}`] }, keys, projectsOf);
      expect(result.principal).toEqual({ authenticated: false, failure: 'service_unavailable' });
    }
  });
});

describe("the address project's allowed origins", () => {
  const webKey = issueApiKey('webapp', 'browser', new Date());
  records.set(webKey.record.keyId, webKey.record);
  const allowed = ['https://app.example.com'];

  it('come with every answer on its address, authenticated or not: a preflight carries no key', async () => {
    expect((await auth([`Bearer ${webKey.apiKey}`], 'webapp')).allowedOrigins).toEqual(allowed);
    for (const authorization of [[], ['Basic x'], [`Bearer ${issued.apiKey}`]]) {
      const result = await auth(authorization, 'webapp');
      expect(result.principal.authenticated).toBe(false);
      expect(result.allowedOrigins).toEqual(allowed);
    }
  });

  it("are never another project's: none on other hosts, none for a project that allows none", async () => {
    // The key's project allows origins, but the request came through the shared address.
    expect((await auth([`Bearer ${webKey.apiKey}`])).allowedOrigins).toBeUndefined();
    expect((await auth([`Bearer ${issued.apiKey}`], 'acme')).allowedOrigins).toBeUndefined();
    expect((await auth([], 'nobody')).allowedOrigins).toBeUndefined();
  });

  it('survive a key store that fails after the address was read', async () => {
    const failing = async () => {
      throw new Error('connection refused');
    };
    const result = await authenticate(
      { authorization: [`Bearer ${webKey.apiKey}`], addressProject: 'webapp' },
      failing,
      lookupProject,
    );
    expect(result).toEqual({
      principal: { authenticated: false, failure: 'service_unavailable' },
      allowedOrigins: allowed,
    });
  });
});
