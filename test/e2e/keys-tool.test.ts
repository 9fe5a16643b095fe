import { hashSecret, issueApiKey, parseApiKey } from '../../lambda/domain/api-key';
import { now, setClock } from '../../lambda/shared/clock';
import { runTs } from '../support/processes';
import { expectError, startTestApi, type TestApi } from '../support/test-api';

let t: TestApi;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startTestApi();
  env = { DYNAMODB_ENDPOINT: t.api.dynamodbEndpoint };
});
afterAll(() => t.close());

const keys = (...args: string[]) => runTs('tools/keys.ts', args, env);

/** The secret of a key, split off by the parser the authorizer uses: secrets may contain `_` and `-`. */
function secretOf(apiKey: string): string {
  const parsed = parseApiKey(apiKey);
  if (!parsed) throw new Error(`not an API key: ${apiKey}`);
  return parsed.secret;
}

async function createKey(plan: string, name: string): Promise<{ id: string; apiKey: string }> {
  const created = await keys('create', '--plan', plan, '--name', name, '--json');
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout) as { id: string; apiKey: string };
}

/** An environment in which the AWS SDK finds no credentials anywhere, quickly. */
const NO_AWS_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: '',
  AWS_SECRET_ACCESS_KEY: '',
  AWS_SESSION_TOKEN: '',
  AWS_PROFILE: '',
  AWS_REGION: 'eu-west-1',
  AWS_CONFIG_FILE: '/nonexistent/aws-config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
  AWS_WEB_IDENTITY_TOKEN_FILE: '',
  AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
  AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
  AWS_EC2_METADATA_DISABLED: 'true',
};

describe('npm run keys', () => {
  it('create --json prints one JSON object and nothing else; the key works; list never shows it; revoke stops it', async () => {
    const created = await keys('create', '--plan', 'pro', '--name', 'ci robot', '--json');
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as { id: string; apiKey: string; plan: string };
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'id', 'plan']);
    expect(issued.plan).toBe('pro');
    expect(issued.apiKey).toContain(issued.id);

    expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);

    const listed = await keys('list', '--json');
    expect(listed.code).toBe(0);
    const secret = secretOf(issued.apiKey);
    expect(listed.stdout).not.toContain(secret);
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: issued.id, plan: 'pro', name: 'ci robot' })]),
    );
    const table = await keys('list');
    expect(table.stdout).toMatch(new RegExp(`${issued.id}\\s+pro\\s+active`));
    expect(table.stdout).not.toContain(secret);

    const revoked = await keys('revoke', issued.id);
    expect(revoked.code).toBe(0);
    const after = JSON.parse((await keys('list', '--json')).stdout) as { id: string; revokedAt?: string }[];
    expect(after.find((key) => key.id === issued.id)?.revokedAt).toEqual(expect.any(String));
    const stored = await t.keys.get(issued.id);
    expect(stored?.revokedAt).toEqual(expect.any(String));
  }, 30_000);

  it('defaults to the free plan and prints the key once in text mode', async () => {
    const created = await keys('create');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/Created key [a-z2-7]{16} on plan free\./);
    expect(created.stdout.match(/ask_[A-Za-z0-9_-]+/g)).toHaveLength(1);
  }, 30_000);

  it('rotate --json: the new key works at once with the same plan and name; the old one is refused after the key cache', async () => {
    const old = await createKey('business', 'rotating robot');
    expect((await t.request('/pets', { apiKey: old.apiKey })).status).toBe(200);

    const rotated = await keys('rotate', old.id, '--json');
    expect(rotated.code).toBe(0);
    const lines = rotated.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as {
      id: string;
      apiKey: string;
      plan: string;
      replaces: string;
    };
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'id', 'plan', 'replaces']);
    expect(issued).toEqual({
      id: expect.not.stringMatching(old.id),
      apiKey: expect.any(String),
      plan: 'business',
      replaces: old.id,
    });
    expect(issued.apiKey).toContain(issued.id);

    const [before, after] = [await t.keys.get(old.id), await t.keys.get(issued.id)];
    expect(after).toEqual(expect.objectContaining({ plan: 'business', name: 'rotating robot' }));
    expect(after?.revokedAt).toBeUndefined();
    expect(after?.usageId).not.toBe(before?.usageId);
    expect(before?.revokedAt).toEqual(expect.any(String));
    expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);

    const afterKeyCache = now() + 31_000;
    const restore = setClock(() => afterKeyCache);
    try {
      await expectError(await t.request('/pets', { apiKey: old.apiKey }), 401, 'invalid_api_key');
      expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);
    } finally {
      restore();
    }
  }, 30_000);

  it('rotate in text mode prints the new key once and names the old one', async () => {
    const old = await createKey('free', 'text robot');
    const rotated = await keys('rotate', old.id);
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(new RegExp(`Rotated key ${old.id}: new key [a-z2-7]{16} on plan free\\.`));
    expect(rotated.stdout.match(/ask_[A-Za-z0-9_-]+/g)).toHaveLength(1);
  }, 30_000);

  it('set-plan changes the plan of the record; the same plan is a no-op', async () => {
    const key = await createKey('free', 'upgrader');
    const moved = await keys('set-plan', key.id, 'enterprise:example-corp');
    expect(moved).toEqual({
      code: 0,
      stdout: `Moved key ${key.id} from plan free to plan enterprise:example-corp.\n`,
      stderr: '',
    });
    expect((await t.keys.get(key.id))?.plan).toBe('enterprise:example-corp');
    expect((await keys('set-plan', key.id, 'enterprise:example-corp')).stdout).toMatch(/already on plan/);
  }, 30_000);

  it('set-plan and rotate refuse a revoked key with exit 2', async () => {
    const key = await createKey('pro', 'revoked');
    expect((await keys('revoke', key.id)).code).toBe(0);
    for (const args of [
      ['set-plan', key.id, 'business'],
      ['rotate', key.id],
    ]) {
      const result = await keys(...args);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: expect.stringMatching(`Key ${key.id} was revoked at`),
      });
    }
    expect((await t.keys.get(key.id))?.plan).toBe('pro');
  }, 30_000);

  it('--stage without AWS credentials fails with one clear line, no stack trace', async () => {
    const result = await runTs('tools/keys.ts', ['list', '--stage', 'staging'], {
      ...env,
      ...NO_AWS_CREDENTIALS,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^keys: No usable AWS credentials to reach AnimalStore-staging: [^\n]*\n$/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it.each([
    [
      ['create', '--plan', 'enterprise:acme'],
      /Unknown plan "enterprise:acme": use one of free, pro, business, enterprise:example-corp\./,
    ],
    [
      ['set-plan', 'abcdefghijklmnop', 'platinum'],
      /Unknown plan "platinum": use one of .*enterprise:example-corp/,
    ],
    [['set-plan', 'abcdefghijklmnop'], /set-plan needs <plan>: npm run keys -- set-plan <id> <plan>/],
    [['set-plan', 'nosuchkey', 'pro'], /No key has id nosuchkey/],
    [['rotate'], /rotate needs <id>: npm run keys -- rotate <id>/],
    [['rotate', 'nosuchkey'], /No key has id nosuchkey/],
    [['list', '--stage', 'prod'], /Unknown stage "prod": use staging or production/],
    [['list', '--bogus'], /Unknown option --bogus\./],
    [['create', '--plan', 'platinum'], /Unknown plan "platinum"/],
    [['revoke'], /revoke needs <id>/],
    [['revoke', 'nosuchkey'], /No key has id nosuchkey/],
    [['list', 'extra'], /Unexpected argument "extra" for list: npm run keys -- list \[--json\]$/m],
    [['explode'], /Unknown command "explode"/],
    [[], /Usage: npm run keys/],
  ])(
    'exits 2 with a clear message for %j',
    async (args, message) => {
      const result = await keys(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\b\w*(Error|Exception)\b|\n\s+at /);
      expect(result.stdout).toBe('');
    },
    30_000,
  );
});

/** A 43-character secret of `A`s with `char` at each of `positions`. */
function secretWith(char: string, positions: readonly number[]): string {
  const characters = [...'A'.repeat(43)];
  for (const position of positions) characters[position] = char;
  return characters.join('');
}

/**
 * Secrets are base64url, so `_` and `-` are ordinary characters of them. These put them
 * where a parser splitting on `_` goes wrong: right after the separator, second, in the
 * middle, last, and everywhere. (32 random bytes never end in `_` or `-`, since the last
 * character holds only 4 bits; the parser must not depend on that.)
 */
const AWKWARD_SECRETS = [
  ...['_', '-'].flatMap((char) => [0, 1, 21, 41, 42].map((position) => secretWith(char, [position]))),
  '_'.repeat(43),
  '-'.repeat(43),
  `${'_-'.repeat(21)}_`,
  `${'-_'.repeat(21)}-`,
];

describe('keys whose secrets contain _ and -', () => {
  /** A key as the keys tool issues it, with `secret` in place of its random one. */
  async function keyWithSecret(secret: string, index: number): Promise<{ apiKey: string; keyId: string }> {
    const issued = issueApiKey('pro', `awkward ${index}`, new Date());
    const prefix = issued.apiKey.slice(0, -secretOf(issued.apiKey).length);
    await t.keys.put({ ...issued.record, secretHash: hashSecret(secret) });
    return { apiKey: `${prefix}${secret}`, keyId: issued.record.keyId };
  }

  it.each(AWKWARD_SECRETS.map((secret, index) => [secret, index] as const))(
    '%s: parsed whole and accepted; one character changed is refused',
    async (secret, index) => {
      const { apiKey, keyId } = await keyWithSecret(secret, index);
      expect(parseApiKey(apiKey)).toEqual({ keyId, secret });
      expect((await t.request('/pets', { apiKey })).status).toBe(200);
      const altered = `${apiKey.slice(0, -1)}${secret.endsWith('B') ? 'C' : 'B'}`;
      await expectError(await t.request('/pets', { apiKey: altered }), 401, 'invalid_api_key');
    },
  );

  it('list never shows them', async () => {
    const secrets = AWKWARD_SECRETS.map((secret) => secret.replace(/A/g, 'Q'));
    for (const [index, secret] of secrets.entries()) await keyWithSecret(secret, index);
    const listed = await keys('list', '--json');
    expect(listed.code).toBe(0);
    for (const secret of secrets) expect(listed.stdout).not.toContain(secret);
  }, 30_000);
});
