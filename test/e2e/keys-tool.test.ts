import { runTs } from '../support/processes';
import { startTestApi, type TestApi } from '../support/test-api';

let t: TestApi;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startTestApi();
  env = { DYNAMODB_ENDPOINT: t.api.dynamodbEndpoint };
});
afterAll(() => t.close());

const keys = (...args: string[]) => runTs('tools/keys.ts', args, env);

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
    const secret = issued.apiKey.slice(issued.apiKey.lastIndexOf('_') + 1);
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

  it.each([
    [['create', '--plan', 'platinum'], /Unknown plan "platinum"/],
    [['revoke'], /revoke needs the key id/],
    [['revoke', 'nosuchkey'], /No key has id nosuchkey/],
    [['explode'], /Unknown command "explode"/],
    [[], /Usage: npm run keys/],
  ])(
    'exits 2 with a clear message for %j',
    async (args, message) => {
      const result = await keys(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    },
    30_000,
  );
});
