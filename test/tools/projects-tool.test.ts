import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { hashSecret, parseApiKey } from '../../lambda/core/api-key';
import { PLANS } from '../../lambda/core/plans';
import { consoleTokenMatches, parseConsoleToken } from '../../lambda/core/project';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { MemberRepository } from '../../lambda/store/member-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { RESERVED_PROJECT_NAMES } from '../../lib/config/platform';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { Refusal, UsageError } from '../../tools/failures';
import { runKeysCommand } from '../../tools/keys';
import { runMembersCommand } from '../../tools/members';
import { withLocalTablesChecked } from '../../tools/local-store';
import { runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { oldKeyItem, oldPetItem } from './old-release-data';

/** What a wrong invocation or a failure must never show an operator. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|\n\s+at /;
const PORT = '3123';

let t: TestStore;
let projects: ProjectRepository;
let keys: ApiKeyRepository;

beforeAll(async () => {
  t = await startTestStore();
  projects = new ProjectRepository(t.documents, LOCAL_TABLE_NAMES.projects);
  keys = new ApiKeyRepository(t.documents, LOCAL_TABLE_NAMES.apiKeys);
});
afterAll(() => t.close());

/**
 * Runs a tool's command on the test store, whose tables startTestStore made: the command's
 * check of all eleven (test/local/local-tables.test.ts) is left out.
 */
const onTestStore = <T>(run: () => Promise<T>) => withLocalTablesChecked([t.store.endpoint], run);

/** Runs `npm run projects -- ...` in process on the test store; resolves to its stdout lines. */
async function projectsTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await onTestStore(() =>
    runProjectsCommand(argv, {
      out: (line) => lines.push(line),
      endpoint: t.store.endpoint,
      env: { PORT },
    }),
  );
  return lines;
}

async function keysTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  await onTestStore(() =>
    runKeysCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint }),
  );
  return lines;
}

/** The error a command fails with (it must fail). */
async function failure(run: Promise<unknown>): Promise<Error> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error('expected the command to fail');
  expect(error.message).not.toMatch(DEVELOPER_NOISE);
  return error;
}

function onlyJson<T>(lines: string[]): T {
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as T;
}

let counter = 0;
/** A fresh project name per test: the tests share one store. */
const fresh = (prefix = 'proj') => `${prefix}-${++counter}`;

interface Created {
  name: string;
  plan: string;
  address: string;
  consoleToken: string;
}

describe('projects create', () => {
  it('--json prints exactly {name, plan, address, consoleToken}; the project is stored on the plan', async () => {
    const name = fresh();
    const created = onlyJson<Created>(await projectsTool('create', name, '--plan', 'pro', '--json'));
    expect(Object.keys(created).sort()).toEqual(['address', 'consoleToken', 'name', 'plan']);
    expect(created).toEqual({
      name,
      plan: 'pro',
      address: `http://${name}.localhost:${PORT}/v1`,
      consoleToken: expect.stringMatching(new RegExp(`^pct_${name}_[A-Za-z0-9_-]{43}$`)),
    });
    expect(await projects.get(name)).toEqual(
      expect.objectContaining({
        name,
        plan: 'pro',
        createdAt: expect.any(String),
        usageId: expect.any(String),
      }),
    );
  });

  it('defaults to free and prints the token once in text mode', async () => {
    const name = fresh();
    const lines = await projectsTool('create', name);
    const { perMinute, perDay } = PLANS.free.limits;
    expect(lines.join('\n')).toContain(
      `Created project ${name} on plan free (${perMinute} per minute, ${perDay} per day).`,
    );
    expect(lines.join('\n').match(/pct_[A-Za-z0-9_-]+/g)).toHaveLength(1);
    expect((await projects.get(name))?.plan).toBe('free');
  });

  it('enterprise takes its agreed numbers, stored on the project', async () => {
    const name = fresh('corp');
    const created = onlyJson<Created>(
      await projectsTool(
        'create',
        name,
        '--plan',
        'enterprise',
        '--per-minute',
        '2000',
        '--per-day',
        '900000',
        '--json',
      ),
    );
    expect(created.plan).toBe('enterprise');
    expect((await projects.get(name))?.agreedLimits).toEqual({ perMinute: 2000, perDay: 900_000 });
  });

  const { ceiling } = PLANS.enterprise;
  it.each([
    [
      ['--per-minute', String(ceiling.perMinute + 1), '--per-day', '1000000'],
      new RegExp(`Per-minute must be a whole number from 1 to ${ceiling.perMinute}\\b`),
    ],
    [
      ['--per-minute', '100', '--per-day', String(ceiling.perDay + 1)],
      new RegExp(`Per-day must be .* to ${ceiling.perDay} \\(the enterprise ceiling\\)`),
    ],
    [['--per-minute', '100'], /needs its agreed numbers: give both per-minute and per-day/],
    [[], /needs its agreed numbers/],
    [['--per-minute', '1.5', '--per-day', '10'], /--per-minute "1\.5" is not a whole number/],
  ])('enterprise %j is refused before anything is stored', async (numbers, message) => {
    const name = fresh('big');
    const error = await failure(projectsTool('create', name, '--plan', 'enterprise', ...numbers));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
    expect(await projects.get(name)).toBeUndefined();
  });

  it('a standard plan refuses numbers', async () => {
    const error = await failure(
      projectsTool('create', fresh(), '--plan', 'pro', '--per-minute', '10', '--per-day', '10'),
    );
    expect(error.message).toMatch(/The pro plan has fixed numbers/);
  });

  it.each<[string, RegExp]>([
    ['ab', /must be 3 to 63 characters long/],
    ['a'.repeat(64), /must be 3 to 63 characters long/],
    ['-abc', /may not start or end with a hyphen/],
    ['abc-', /may not start or end with a hyphen/],
    ['Acme', /lower-case letters, digits and hyphens/],
    ['ac_me', /lower-case letters, digits and hyphens/],
    ['xn--acme', /may not start with "xn--"/],
    ...RESERVED_PROJECT_NAMES.map((name): [string, RegExp] => [name, /is reserved by the platform/]),
  ])('refuses the name %j', async (name, message) => {
    // `--` ends the options, so a name starting with `-` reaches the name check.
    const error = await failure(projectsTool('create', '--', name));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(message);
    expect(await projects.get(name)).toBeUndefined();
  });

  it('accepts 3 and 63 characters and inner hyphens', async () => {
    for (const name of ['a1b', `a-${'b'.repeat(60)}c`]) {
      expect((await projectsTool('create', name)).join('\n')).toMatch(`Created project ${name}`);
    }
  });

  it('refuses a name that exists, and an unknown plan', async () => {
    const name = fresh();
    await projectsTool('create', name);
    expect((await failure(projectsTool('create', name))).message).toBe(`Project ${name} exists already.`);
    expect((await failure(projectsTool('create', fresh(), '--plan', 'platinum'))).message).toBe(
      'Unknown plan "platinum": use one of free, pro, business, enterprise.',
    );
  });
});

describe('console tokens', () => {
  it('are stored only as a hash; rotation makes the old one fail and the new one match', async () => {
    const name = fresh('tok');
    const { consoleToken } = onlyJson<Created>(await projectsTool('create', name, '--json'));
    const parsed = parseConsoleToken(consoleToken);
    expect(parsed?.project).toBe(name);
    const secret = parsed?.secret ?? '';

    const { Items = [] } = await t.documents.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.projects }));
    const table = JSON.stringify(Items);
    expect(table).not.toContain(secret);
    expect(table).not.toContain(consoleToken);
    expect(Items.find((item) => item.name === name)?.consoleTokenHash).toBe(hashSecret(secret));
    expect(consoleTokenMatches((await projects.get(name))!, secret)).toBe(true);

    const rotated = onlyJson<{ name: string; consoleToken: string }>(
      await projectsTool('rotate-console-token', name, '--json'),
    );
    expect(Object.keys(rotated).sort()).toEqual(['consoleToken', 'name']);
    const newSecret = parseConsoleToken(rotated.consoleToken)?.secret ?? '';
    const record = (await projects.get(name))!;
    expect(consoleTokenMatches(record, secret)).toBe(false);
    expect(consoleTokenMatches(record, newSecret)).toBe(true);
    const after = JSON.stringify(
      (await t.documents.send(new ScanCommand({ TableName: LOCAL_TABLE_NAMES.projects }))).Items,
    );
    expect(after).not.toContain(newSecret);
  });

  it('list and show never print a token or its hash', async () => {
    const name = fresh('tok');
    await projectsTool('create', name);
    const { consoleTokenHash } = (await projects.get(name))!;
    const printed = [
      ...(await projectsTool('list')),
      ...(await projectsTool('list', '--json')),
      ...(await projectsTool('show', name)),
      ...(await projectsTool('show', name, '--json')),
    ].join('\n');
    expect(printed).not.toContain(consoleTokenHash);
    expect(printed).not.toMatch(/pct_/);
  });
});

describe('projects list and show', () => {
  it('list --json: every project with plan, limits and address', async () => {
    const name = fresh('lst');
    await projectsTool('create', name, '--plan', 'enterprise', '--per-minute', '100', '--per-day', '5000');
    const listed = onlyJson<{ name: string }[]>(await projectsTool('list', '--json'));
    expect(listed.find((project) => project.name === name)).toEqual({
      name,
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 5000 },
      address: `http://${name}.localhost:${PORT}/v1`,
      allowedOrigins: [],
      createdAt: expect.any(String),
    });
    expect((await projectsTool('list')).join('\n')).toMatch(
      new RegExp(
        `${name}\\s+enterprise\\s+100 per minute, 5000 per day\\s+http://${name}\\.localhost:${PORT}/v1`,
      ),
    );
  });

  it('show --json: plan, limits, address and its keys without secrets', async () => {
    const name = fresh('shw');
    await projectsTool('create', name, '--plan', 'business');
    const issued = onlyJson<{ id: string; apiKey: string }>(
      await keysTool('create', '--project', name, '--name', 'robot', '--json'),
    );
    const shown = onlyJson<Record<string, unknown>>(await projectsTool('show', name, '--json'));
    expect(shown).toEqual({
      name,
      plan: 'business',
      limits: PLANS.business.limits,
      address: `http://${name}.localhost:${PORT}/v1`,
      allowedOrigins: [],
      createdAt: expect.any(String),
      consoleTokenIssuedAt: expect.any(String),
      keys: [{ id: issued.id, name: 'robot', createdAt: expect.any(String) }],
    });
    const text = (await projectsTool('show', name)).join('\n');
    expect(text).toMatch(new RegExp(`${issued.id}\\s+active`));
    expect(text).not.toContain(parseApiKey(issued.apiKey)?.secret);
  });

  it('show of an unknown project exits 2', async () => {
    const error = await failure(projectsTool('show', 'nosuchproject'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/No project is named nosuchproject/);
  });
});

describe('projects set-origins', () => {
  it('stores the origins normalized, without repeats; show and --json print them', async () => {
    const name = fresh('web');
    await projectsTool('create', name);
    const set = onlyJson<{ name: string; allowedOrigins: string[] }>(
      await projectsTool(
        'set-origins',
        name,
        'HTTPS://App.Example.com:443',
        'http://localhost:5173',
        'https://app.example.com',
        '--json',
      ),
    );
    expect(set).toEqual({ name, allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] });
    expect((await projects.get(name))?.allowedOrigins).toEqual(set.allowedOrigins);
    expect(
      onlyJson<{ allowedOrigins: string[] }>(await projectsTool('show', name, '--json')).allowedOrigins,
    ).toEqual(set.allowedOrigins);
    expect((await projectsTool('show', name)).join('\n')).toMatch(
      /Origins: +https:\/\/app\.example\.com, http:\/\/localhost:5173\n/,
    );
    expect(await projectsTool('set-origins', name, 'https://shop.example')).toEqual([
      `Project ${name} allows browser origins https://shop.example; its address follows within 30 seconds.`,
    ]);
  });

  it('clears the list when given no origin', async () => {
    const name = fresh('web');
    await projectsTool('create', name);
    await projectsTool('set-origins', name, 'https://app.example.com');
    expect(await projectsTool('set-origins', name)).toEqual([
      `Project ${name} allows no browser origins; its address follows within 30 seconds.`,
    ]);
    expect((await projects.get(name))?.allowedOrigins).toBeUndefined();
    expect((await projectsTool('show', name)).join('\n')).toMatch(/Origins: +none\n/);
  });

  it.each([
    [
      ['https://app.example.com/'],
      /Origin "https:\/\/app\.example\.com\/" has a path.*use https:\/\/app\.example\.com\./,
    ],
    [['https://*.example.com'], /Origin "https:\/\/\*\.example\.com" holds a wildcard/],
    [['null'], /Origin "null" cannot be allowed/],
    [['ftp://files.example.com'], /must use http or https, not ftp/],
    [['https://ok.example', 'app.example.com'], /Origin "app\.example\.com" is not an origin/],
    [Array.from({ length: 21 }, (_, i) => `https://app${i}.example`), /at most 20 origins, not 21/],
  ])(
    'refuses %j as a wrong invocation (exit 2) naming the origin, and changes nothing',
    async (origins, message) => {
      const name = fresh('web');
      await projectsTool('create', name);
      await projectsTool('set-origins', name, 'https://before.example');
      const error = await failure(projectsTool('set-origins', name, ...origins));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(message);
      expect((await projects.get(name))?.allowedOrigins).toEqual(['https://before.example']);
    },
  );

  it('refuses an unknown project (exit 2)', async () => {
    const error = await failure(projectsTool('set-origins', 'nosuchproject', 'https://app.example.com'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/No project is named nosuchproject/);
  });

  it('shows the list in its usage', async () => {
    expect((await projectsTool('set-origins', '--help')).join('\n')).toMatch(
      /^Usage: npm run projects -- set-origins <name> \[<origin> \.\.\.\] \[--json\]/,
    );
  });
});

describe('projects set-plan', () => {
  it('moves the project; --json says from and to; enterprise numbers change in place', async () => {
    const name = fresh('up');
    await projectsTool('create', name);
    expect(onlyJson(await projectsTool('set-plan', name, 'business', '--json'))).toEqual({
      name,
      plan: 'business',
      previousPlan: 'free',
      limits: PLANS.business.limits,
    });
    expect((await projects.get(name))?.plan).toBe('business');

    await projectsTool('set-plan', name, 'enterprise', '--per-minute', '4000', '--per-day', '4000000');
    expect(await projects.get(name)).toEqual(
      expect.objectContaining({ plan: 'enterprise', agreedLimits: { perMinute: 4000, perDay: 4_000_000 } }),
    );
    const { perMinute, perDay } = PLANS.pro.limits;
    expect((await projectsTool('set-plan', name, 'pro')).join('\n')).toContain(
      `Moved project ${name} from plan enterprise to plan pro (${perMinute} per minute, ${perDay} per day)`,
    );
    const record = await projects.get(name);
    expect(record?.plan).toBe('pro');
    expect(record?.agreedLimits).toBeUndefined();
  });

  it('refuses enterprise numbers over the ceiling and keeps the plan', async () => {
    const name = fresh('up');
    await projectsTool('create', name, '--plan', 'pro');
    const { ceiling } = PLANS.enterprise;
    const error = await failure(
      projectsTool(
        'set-plan',
        name,
        'enterprise',
        '--per-minute',
        String(ceiling.perMinute + 1),
        '--per-day',
        String(ceiling.perDay + 1),
      ),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(
      new RegExp(`Per-minute must be .*${ceiling.perMinute}\\b.*Per-day must be .*${ceiling.perDay}\\b`),
    );
    expect((await projects.get(name))?.plan).toBe('pro');
  });

  it('refuses the free plan while the project has custom domains', async () => {
    const name = fresh('dom');
    await projectsTool('create', name, '--plan', 'pro');
    const domains = new CustomDomainRepository(t.documents, LOCAL_TABLE_NAMES.customDomains);
    await domains.create({
      name: `shop.${name}.example`,
      project: name,
      role: 'primary',
      state: 'active',
      since: new Date().toISOString(),
      addedAt: new Date().toISOString(),
      attached: true,
      certificate: 'issued',
      version: 1,
    });
    const error = await failure(projectsTool('set-plan', name, 'free'));
    expect(error).toBeInstanceOf(Refusal);
    expect(error.message).toMatch(`Project ${name} has 1 custom domain`);
    expect((await projects.get(name))?.plan).toBe('pro');
    const deletion = await failure(projectsTool('delete', name, '--yes'));
    expect(deletion.message).toMatch(/1 custom domain: remove them/);
    await domains.delete(`shop.${name}.example`, name);
  });
});

describe('projects delete', () => {
  it('is refused while the project has active keys, naming them; works once they are revoked', async () => {
    const name = fresh('del');
    await projectsTool('create', name);
    const first = onlyJson<{ id: string }>(
      await keysTool('create', '--project', name, '--name', 'ci', '--json'),
    );
    const second = onlyJson<{ id: string }>(await keysTool('create', '--project', name, '--json'));

    const error = await failure(projectsTool('delete', name, '--yes'));
    expect(error).toBeInstanceOf(Refusal);
    expect(error.message).toMatch(
      `Project ${name} was not deleted: it still has 2 active keys (${first.id} "ci", ${second.id})`,
    );
    expect(await projects.get(name)).toBeDefined();

    await keysTool('revoke', first.id);
    await keysTool('revoke', second.id);
    expect(await projectsTool('delete', name, '--yes')).toEqual([`Deleted project ${name}.`]);
    expect(await projects.get(name)).toBeUndefined();
  });

  it('needs --yes, and refuses a name whose deleted project left keys behind', async () => {
    const name = fresh('del');
    await projectsTool('create', name);
    const error = await failure(projectsTool('delete', name));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(`delete needs --yes: npm run projects -- delete <name> --yes`);

    const { id } = onlyJson<{ id: string }>(await keysTool('create', '--project', name, '--json'));
    await keysTool('revoke', id);
    await projectsTool('delete', name, '--yes');
    const reuse = await failure(projectsTool('create', name));
    expect(reuse.message).toMatch(`Project name ${name} belonged to a deleted project`);
  });
});

describe("projects delete, and the project's members", () => {
  const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc';
  const membersTool = async (...argv: string[]) => {
    const lines: string[] = [];
    await onTestStore(() =>
      runMembersCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint }),
    );
    return lines;
  };
  const addMember = (project: string, subject: string, role: string) =>
    membersTool(
      'add',
      '--project',
      project,
      '--issuer',
      ISSUER,
      '--subject',
      subject,
      '--email',
      `${subject}@example.com`,
      '--role',
      role,
    );

  it("tells how to add the project's first owner when it is created", async () => {
    const name = fresh('own');
    const lines = await projectsTool('create', name);
    expect(lines).toContain(
      `Add its first owner (the console token then stops opening its console): npm run members -- add --project ${name} --role owner --issuer <provider> --subject <sub> --email <address>`,
    );
    // The line works as printed, once filled in.
    await addMember(name, 'ana', 'owner');
    expect((await projects.get(name))?.owners).toBe(1);
  });

  it('removes its members with it, so a project of that name made later has none of them', async () => {
    const name = fresh('mem');
    const other = fresh('mem');
    await projectsTool('create', name);
    await projectsTool('create', other);
    await addMember(name, 'cy', 'owner');
    await addMember(name, 'di', 'viewer');
    await addMember(other, 'cy', 'owner');
    expect(await projectsTool('delete', name, '--yes')).toEqual([
      `Deleted project ${name}.`,
      'Removed its 2 members.',
    ]);
    const members = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
    expect(await members.listOf(name)).toEqual([]);
    expect(await members.projectsOf({ issuer: ISSUER, subject: 'cy' })).toEqual([
      expect.objectContaining({ project: other, role: 'owner' }),
    ]);
    await projectsTool('create', name);
    expect(await membersTool('list', '--project', name)).toEqual([
      `Project ${name} has no members: its console token opens its console.`,
      `Add its first owner: npm run members -- add --project ${name} --role owner ...`,
    ]);
  });

  it('creating a project removes members a deleted project of that name left behind', async () => {
    // A member stored while its project was being deleted, after the deletion listed them.
    const name = fresh('left');
    const members = new MemberRepository(t.documents, LOCAL_TABLE_NAMES.projectMembers);
    await members.create({
      project: name,
      issuer: ISSUER,
      subject: 'late',
      email: 'late@example.com',
      role: 'owner',
      addedAt: new Date().toISOString(),
    });
    await projectsTool('create', name);
    expect(await members.listOf(name)).toEqual([]);
    expect((await projects.get(name))?.owners).toBeUndefined();
  });
});

describe('keys per project', () => {
  it('create --json prints {id, apiKey, project}; an unknown project is refused', async () => {
    const name = fresh('key');
    await projectsTool('create', name);
    const issued = onlyJson<{ id: string; apiKey: string; project: string }>(
      await keysTool('create', '--project', name, '--json'),
    );
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'id', 'project']);
    expect(issued.project).toBe(name);
    expect((await keys.get(issued.id))?.project).toBe(name);

    const error = await failure(keysTool('create', '--project', 'nosuchproject'));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/No project is named nosuchproject/);
  });

  it('list --project shows only that project, with the project column; move changes it; rotate keeps it', async () => {
    const [a, b] = [fresh('key'), fresh('key')];
    await projectsTool('create', a);
    await projectsTool('create', b);
    const key = onlyJson<{ id: string }>(
      await keysTool('create', '--project', a, '--name', 'mover', '--json'),
    );

    const inA = onlyJson<{ id: string; project: string }[]>(await keysTool('list', '--project', a, '--json'));
    expect(inA).toEqual([{ id: key.id, project: a, name: 'mover', createdAt: expect.any(String) }]);
    expect(onlyJson<unknown[]>(await keysTool('list', '--project', b, '--json'))).toEqual([]);
    expect((await keysTool('list')).join('\n')).toMatch(new RegExp(`${key.id}\\s+${a}\\s+active`));

    expect(onlyJson(await keysTool('move', key.id, '--project', b, '--json'))).toEqual({
      id: key.id,
      project: b,
      previousProject: a,
    });
    expect((await keys.get(key.id))?.project).toBe(b);
    expect((await failure(keysTool('move', key.id, '--project', 'nosuchproject'))).message).toMatch(
      /No project is named nosuchproject/,
    );

    const rotated = onlyJson<{ id: string; project: string; replaces: string }>(
      await keysTool('rotate', key.id, '--json'),
    );
    expect(rotated).toEqual({
      id: expect.any(String),
      apiKey: expect.any(String),
      project: b,
      replaces: key.id,
    });
    expect((await keys.get(rotated.id))?.name).toBe('mover');
  });

  it('set-plan and --plan are gone: the message points to projects set-plan', async () => {
    for (const argv of [
      ['set-plan', 'abcdefghijklmnop', 'pro'],
      ['create', '--plan', 'pro'],
    ]) {
      const error = await failure(keysTool(...argv));
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toMatch(
        /Keys have no plan any more.*npm run projects -- set-plan <project> <plan>/,
      );
    }
  });
});

describe('projects migrate, on data written the old way', () => {
  let old: TestStore;
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    await runProjectsCommand(argv, {
      out: (line) => lines.push(line),
      endpoint: old.store.endpoint,
      env: { PORT },
    });
    return lines;
  };

  beforeEach(async () => {
    old = await startTestStore();
  });
  afterEach(() => old.close());

  async function putOldKey(plan: string, revoked = false): Promise<string> {
    const item = oldKeyItem(plan, { revoked });
    await old.documents.send(new PutCommand({ TableName: LOCAL_TABLE_NAMES.apiKeys, Item: item }));
    return item.keyId as string;
  }

  async function putOldPet(id: number): Promise<void> {
    await old.documents.send(new PutCommand({ TableName: LOCAL_TABLE_NAMES.pets, Item: oldPetItem(id) }));
  }

  it('creates legacy on the highest plan, moves every key and pet into it; a second run does nothing', async () => {
    const { ceiling } = PLANS.enterprise;
    const keyIds = [
      await putOldKey('free'),
      await putOldKey('enterprise:example-corp'),
      await putOldKey('pro'),
      await putOldKey('business', true),
    ];
    const petIds = [1001, 1002, 1003];
    for (const id of petIds) await putOldPet(id);

    const lines = await run('migrate');
    expect(lines[0]).toBe(
      'Upgrade to projects: moved 4 API keys and 3 pets from before projects into project legacy ' +
        `(plan enterprise: ${ceiling.perMinute} per minute, ${ceiling.perDay} per day). Project legacy was created for them.`,
    );
    expect(lines[1]).toMatch(/^Console token of project legacy \(shown once, store it now\): pct_legacy_/);

    const legacy = await new ProjectRepository(old.documents, LOCAL_TABLE_NAMES.projects).get('legacy');
    expect(legacy).toEqual(expect.objectContaining({ plan: 'enterprise', agreedLimits: ceiling }));
    for (const keyId of keyIds) {
      const { Item } = await old.documents.send(
        new GetCommand({ TableName: LOCAL_TABLE_NAMES.apiKeys, Key: { keyId } }),
      );
      expect(Item).toEqual(expect.objectContaining({ project: 'legacy' }));
      expect(Item).not.toHaveProperty('plan');
      expect(Item).not.toHaveProperty('usageId');
    }
    for (const id of petIds) {
      const { Item } = await old.documents.send(
        new GetCommand({ TableName: LOCAL_TABLE_NAMES.pets, Key: { id } }),
      );
      expect(Item).toEqual(
        expect.objectContaining({
          project: 'legacy',
          projectStatus: `legacy#${id % 2 ? 'available' : 'sold'}`,
        }),
      );
    }

    expect(onlyJson(await run('migrate', '--json'))).toEqual({
      project: null,
      plan: null,
      createdProject: false,
      keysMoved: 0,
      petsMoved: 0,
    });
    expect(await run('migrate')).toEqual(['Nothing to migrate: every key and pet belongs to a project.']);
  });

  it('only keys that still work set the plan of legacy; a later run raises it, never lowers it', async () => {
    await putOldKey('business', true);
    await putOldKey('pro');
    await putOldPet(2001);
    expect(onlyJson(await run('migrate', '--json'))).toEqual({
      project: 'legacy',
      plan: 'pro',
      createdProject: true,
      keysMoved: 2,
      petsMoved: 1,
      consoleToken: expect.stringMatching(/^pct_legacy_/),
    });

    await putOldKey('free');
    expect(onlyJson(await run('migrate', '--json'))).toEqual(
      expect.objectContaining({ plan: 'pro', createdProject: false, keysMoved: 1 }),
    );
    await putOldKey('enterprise:example-corp');
    expect(onlyJson(await run('migrate', '--json'))).toEqual(
      expect.objectContaining({ plan: 'enterprise', createdProject: false, keysMoved: 1 }),
    );
  });
});
