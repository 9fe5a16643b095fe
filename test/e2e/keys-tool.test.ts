import { hashSecret, issueApiKey, parseApiKey } from '../../lambda/core/api-key';
import { PLANS } from '../../lambda/core/plans';
import { now, setClock } from '../../lambda/shared/clock';
import { runTs } from '../support/processes';
import { rawRequest } from '../support/raw-http';
import { expectError, startTestApi, type TestApi } from '../support/test-api';
import { runToolInProcess } from '../support/tools-in-process';

/**
 * The keys and projects tools as an operator runs them, against the local API: what they
 * print, and what the API then does with the keys and plans they wrote. They run in this
 * process (the program's exit codes and streams, without a process start per call); the
 * programs themselves are run for --stage here and in test/tools/tool-processes.test.ts.
 */

let t: TestApi;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startTestApi();
  env = { DYNAMODB_ENDPOINT: t.api.dynamodbEndpoint, PORT: new URL(t.baseUrl).port };
});
afterAll(() => t.close());

// The local API made the store's tables: each command's check of them is left out.
const place = () => ({
  endpoint: env.DYNAMODB_ENDPOINT ?? '',
  env: { ...process.env, ...env },
  tablesMade: true,
});
const keys = (...args: string[]) => runToolInProcess('keys', args, place());
const projects = (...args: string[]) => runToolInProcess('projects', args, place());

/** The secret of a key, split off by the parser the authorizer uses: secrets may contain `_` and `-`. */
function secretOf(apiKey: string): string {
  const parsed = parseApiKey(apiKey);
  if (!parsed) throw new Error(`not an API key: ${apiKey}`);
  return parsed.secret;
}

let counter = 0;
/** A project made with the projects tool; its name is fresh per call. */
async function createProject(
  plan = 'free',
): Promise<{ name: string; address: string; consoleToken: string }> {
  const name = `tool-${process.pid}-${++counter}`;
  const created = await projects('create', name, '--plan', plan, '--json');
  expect(created).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
  const lines = created.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as { name: string; address: string; consoleToken: string };
}

async function createKey(
  project: string,
  name = 'robot',
): Promise<{ id: string; apiKey: string; project: string }> {
  const created = await keys('create', '--project', project, '--name', name, '--json');
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout) as { id: string; apiKey: string; project: string };
}

/**
 * GET on a project's address (`http://<project>.localhost:<port>/v1`). The request goes
 * to loopback with the address's Host: not every resolver maps `*.localhost` there.
 */
async function onAddress(
  address: string,
  path: string,
  apiKey: string,
): Promise<{ status: number; code?: string }> {
  const url = new URL(`${address}${path}`);
  const response = await rawRequest(new URL(t.baseUrl).origin, {
    method: 'GET',
    path: url.pathname,
    headers: [
      ['Host', url.host],
      ['Authorization', `Bearer ${apiKey}`],
    ],
  });
  return response.status === 200
    ? { status: 200 }
    : { status: response.status, code: (JSON.parse(response.text) as { code: string }).code };
}

/** Runs `check` with the clock past the authorizer's key cache (30 s). */
async function afterKeyCache(check: () => Promise<void>): Promise<void> {
  const later = now() + 31_000;
  const restore = setClock(() => later);
  try {
    await check();
  } finally {
    restore();
  }
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

describe('npm run projects and npm run keys', () => {
  it('projects create prints the address npm start serves it at; a key of it works there and at the base URL', async () => {
    const project = await createProject('pro');
    expect(project.address).toBe(`${t.projectUrl(project.name)}`);

    const created = await keys('create', '--project', project.name, '--name', 'ci robot', '--json');
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as { id: string; apiKey: string; project: string };
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'id', 'project']);
    expect(issued.project).toBe(project.name);

    expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);
    expect(await onAddress(project.address, '/pets', issued.apiKey)).toEqual({ status: 200 });

    const listed = await keys('list', '--project', project.name, '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secretOf(issued.apiKey));
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: issued.id, project: project.name, name: 'ci robot', createdAt: expect.any(String) },
    ]);
    expect((await keys('list')).stdout).toMatch(new RegExp(`${issued.id}\\s+${project.name}\\s+active`));

    expect((await keys('revoke', issued.id)).code).toBe(0);
    await afterKeyCache(async () => {
      await expectError(await t.request('/pets', { apiKey: issued.apiKey }), 401, 'invalid_api_key');
    });
  }, 60_000);

  it("set-plan takes effect within the key-cache time: the project's keys get the new plan's limits", async () => {
    const project = await createProject('free');
    const key = await createKey(project.name);
    const before = await t.request('/pets', { apiKey: key.apiKey });
    expect(before.headers.get('x-ratelimit-limit')).toBe(String(PLANS.free.limits.perMinute));

    const changed = await projects('set-plan', project.name, 'pro');
    expect(changed).toEqual({
      code: 0,
      stdout: expect.stringMatching(`^Moved project ${project.name} from plan free to plan pro`),
      stderr: '',
    });
    await afterKeyCache(async () => {
      const after = await t.request('/pets', { apiKey: key.apiKey });
      expect(after.headers.get('x-ratelimit-limit')).toBe(String(PLANS.pro.limits.perMinute));
    });
  }, 60_000);

  it('rotate --json: the new key of the same project works at once; the old one is refused after the key cache', async () => {
    const project = await createProject('business');
    const old = await createKey(project.name, 'rotating robot');

    const rotated = await keys('rotate', old.id, '--json');
    expect(rotated.code).toBe(0);
    const lines = rotated.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const issued = JSON.parse(lines[0] ?? '') as {
      id: string;
      apiKey: string;
      project: string;
      replaces: string;
    };
    expect(issued).toEqual({
      id: expect.not.stringMatching(old.id),
      apiKey: expect.any(String),
      project: project.name,
      replaces: old.id,
    });
    expect(await t.keys.get(issued.id)).toEqual(
      expect.objectContaining({ project: project.name, name: 'rotating robot' }),
    );
    expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);
    await afterKeyCache(async () => {
      await expectError(await t.request('/pets', { apiKey: old.apiKey }), 401, 'invalid_api_key');
      expect((await t.request('/pets', { apiKey: issued.apiKey })).status).toBe(200);
    });
  }, 60_000);

  it("move: the key acts for its new project within the key-cache time, and no longer on the old project's address", async () => {
    const [from, to] = [await createProject('free'), await createProject('pro')];
    const key = await createKey(from.name, 'mover');
    expect(await onAddress(from.address, '/pets', key.apiKey)).toEqual({ status: 200 });

    expect(await keys('move', key.id, '--project', to.name)).toEqual({
      code: 0,
      stdout: `Moved key ${key.id} from project ${from.name} to project ${to.name}; it acts for its new project within 30 seconds.\n`,
      stderr: '',
    });
    await afterKeyCache(async () => {
      expect(await onAddress(to.address, '/pets', key.apiKey)).toEqual({ status: 200 });
      expect(await onAddress(from.address, '/pets', key.apiKey)).toEqual({
        status: 401,
        code: 'invalid_api_key',
      });
    });
  }, 60_000);

  it('delete is refused while the project has active keys, naming them (exit 1)', async () => {
    const project = await createProject('free');
    const key = await createKey(project.name, 'blocker');
    const refused = await projects('delete', project.name, '--yes');
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        `^projects: Project ${project.name} was not deleted: it still has an active key \\(${key.id} "blocker"\\)`,
      ),
    });
  }, 60_000);

  it('--stage without AWS credentials fails with one clear line, no stack trace', async () => {
    for (const [tool, args] of [
      ['tools/keys.ts', ['list', '--stage', 'staging']],
      ['tools/projects.ts', ['list', '--stage', 'staging']],
    ] as const) {
      const result = await runTs(tool, [...args], { ...env, ...NO_AWS_CREDENTIALS });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        /^(keys|projects): No usable AWS credentials to reach AnimalStore-staging: [^\n]*\n$/,
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it.each([
    [
      ['set-plan', 'abcdefghijklmnop', 'pro'],
      /Keys have no plan any more: .*npm run projects -- set-plan <project> <plan>/,
    ],
    [['create'], /create needs --project/],
    [['create', '--project', 'nosuchproject'], /No project is named nosuchproject/],
    [['move', 'nosuchkey', '--project', 'x'], /No key has id nosuchkey/],
    [['rotate'], /rotate needs <id>: npm run keys -- rotate <id>/],
    [['rotate', 'nosuchkey'], /No key has id nosuchkey/],
    [['list', '--stage', 'prod'], /Unknown stage "prod": use staging or production/],
    [['revoke', 'nosuchkey'], /No key has id nosuchkey/],
    [['explode'], /Unknown command "explode"/],
    [[], /Usage: npm run keys/],
  ])(
    'keys exits 2 with a clear message for %j',
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
  let project: string;
  beforeAll(async () => {
    project = (await t.createProject('pro')).name;
  });

  /** A key as the keys tool issues it, with `secret` in place of its random one. */
  async function keyWithSecret(secret: string, index: number): Promise<{ apiKey: string; keyId: string }> {
    const issued = issueApiKey(project, `awkward ${index}`, new Date());
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
