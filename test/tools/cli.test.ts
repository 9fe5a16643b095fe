import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  ensureLocalTablesAt,
  LOCAL_TABLES,
  localStoreClient,
  localStoreEndpoint,
  localStoreLocation,
} from '../../local/local-tables';
import { parseCommandLine, parseSimpleCommandLine } from '../../tools/cli';
import { parseResolverAddress } from '../../tools/domains-dns';
import { DOMAINS_TOOL, runDomainsCommand } from '../../tools/domains';
import { UsageError } from '../../tools/failures';
import { KEYS_TOOL, runKeysCommand } from '../../tools/keys';
import { PREFLIGHT_TOOL } from '../../tools/preflight';
import { PROJECTS_TOOL, runProjectsCommand } from '../../tools/projects';

/** What a wrong invocation or a failure must never show an operator. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|\n\s+at /;

describe('help', () => {
  const TOOLS = { keys: KEYS_TOOL, projects: PROJECTS_TOOL, domains: DOMAINS_TOOL } as const;
  const names = Object.keys(TOOLS) as (keyof typeof TOOLS)[];
  /** The help a command line asks for, from the tool named. */
  const helpOf = (name: keyof typeof TOOLS, argv: string[]) => {
    if (name === 'keys') return parseCommandLine(KEYS_TOOL, argv).help;
    if (name === 'projects') return parseCommandLine(PROJECTS_TOOL, argv).help;
    return parseCommandLine(DOMAINS_TOOL, argv).help;
  };

  it.each(names)('%s: --help, -h and help give the whole usage; every command appears in it', (name) => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const help = helpOf(name, argv);
      expect(help).toMatch(new RegExp(`^Usage: npm run ${name} -- <command>`));
      for (const command of TOOLS[name].commands) expect(help).toContain(`\n  ${command.name}`);
    }
  });

  it.each(names.flatMap((name) => TOOLS[name].commands.map((command) => [name, command.name] as const)))(
    '%s %s: --help, -h, help <command> and --help <command> give its usage',
    (name, command) => {
      const forms = [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
        ['--help', command],
      ];
      const usages = forms.map((argv) => helpOf(name, argv));
      expect(usages[0]).toMatch(new RegExp(`^Usage: npm run ${name} -- ${command}\\b`));
      expect(new Set(usages).size).toBe(1);
    },
  );

  it('keys, projects and domains print help through io.out and succeed', async () => {
    const keysOut: string[] = [];
    await expect(
      runKeysCommand(['rotate', '--help'], { out: (line) => keysOut.push(line) }),
    ).resolves.toBeUndefined();
    expect(keysOut.join('\n')).toMatch(/^Usage: npm run keys -- rotate <id> \[--json\] \[--stage NAME\]/);
    const projectsOut: string[] = [];
    await expect(
      runProjectsCommand(['create', '--help'], { out: (line) => projectsOut.push(line) }),
    ).resolves.toBeUndefined();
    expect(projectsOut.join('\n')).toMatch(
      /^Usage: npm run projects -- create <name> \[--plan PLAN\] \[--per-minute N\] \[--per-day N\] \[--json\] \[--stage NAME\]/,
    );
    const domainsOut: string[] = [];
    await expect(
      runDomainsCommand(['help'], {
        out: (line) => domainsOut.push(line),
      }),
    ).resolves.toBe(0);
    expect(domainsOut.join('\n')).toMatch(/^Usage: npm run domains -- <command>/);
  });
});

describe('a variadic last operand', () => {
  it('takes any number of values, none included, each as an operand', () => {
    for (const origins of [[], ['https://a.example'], ['https://a.example', 'http://localhost:5173']]) {
      expect(parseCommandLine(PROJECTS_TOOL, ['set-origins', 'acme', ...origins, '--json'])).toEqual({
        command: 'set-origins',
        operands: ['acme', ...origins],
        values: { json: true },
      });
    }
  });
});

describe('a repeatable option with a one-letter form (preflight -c KEY=VALUE, as cdk takes it)', () => {
  it('keeps every value in order, whichever form gives it', () => {
    const line = parseSimpleCommandLine(PREFLIGHT_TOOL, [
      '-c',
      'a=1',
      '--stage',
      'staging',
      '--context',
      'b=2',
    ]);
    expect(line).toEqual({ values: { context: ['a=1', 'b=2'], stage: 'staging' } });
  });

  it('usage shows both forms, and that it repeats', () => {
    const line = parseSimpleCommandLine(PREFLIGHT_TOOL, ['--help']);
    expect(line.help).toMatch(/^Usage: npm run preflight -- .*\[--context KEY=VALUE \.\.\.\]/);
    expect(line.help).toMatch(/^ {2}-c, --context KEY=VALUE\n/m);
  });

  it('without a value, the message names the option', () => {
    expect(() => parseSimpleCommandLine(PREFLIGHT_TOOL, ['--stage', 'staging', '-c'])).toThrow(
      /^--context needs a value: --context KEY=VALUE\.\nHelp: npm run preflight -- --help$/,
    );
  });
});

describe('wrong invocations: UsageError (exit 2) with a message, no exception name', () => {
  const keysIo = {
    out: () => undefined,
    endpoint: 'http://127.0.0.1:1',
  };
  const domainsIo = keysIo;

  it.each([
    [['list', '--bogus'], /^Unknown option --bogus\.\nHelp: npm run keys -- list --help$/],
    [['list', '-x'], /^Unknown option -x\./],
    [['list', '--name', 'x'], /^list does not take --name; it takes --project, --json, --stage\./],
    [['create', '--project'], /^--project needs a value: --project NAME\./],
    [['create', '--project', '--json'], /^--project needs a value/],
    [['create', '--json=yes'], /^--json takes no value\./],
    [['create'], /^create needs --project: npm run keys -- create --project NAME \[--name TEXT\] \[--json\]/],
    [['revoke'], /^revoke needs <id>: npm run keys -- revoke <id>$/m],
    [['move', 'abcdefghijklmnop'], /^move needs --project: npm run keys -- move <id> --project NAME/],
    [['set-plan', 'abcdefghijklmnop', 'pro'], /^Keys have no plan any more: .*npm run projects -- set-plan/],
    [['create', '--plan', 'pro'], /^Keys have no plan any more: /],
    [
      ['list', 'extra'],
      /^Unexpected argument "extra" for list: npm run keys -- list \[--project NAME\] \[--json\]$/m,
    ],
    [['explode'], /^Unknown command "explode": use create, list, revoke, rotate, move\./],
    [['help', 'explode'], /^Unknown command "explode"/],
    [[], /^No command given\.\n\nUsage: npm run keys/],
    [['list', '--stage', 'prod'], /^Unknown stage "prod": use staging or production\./],
  ])('keys %j', async (argv, message) => {
    const error = await runKeysCommand(argv, keysIo).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(DEVELOPER_NOISE);
  });

  it.each([
    [['create'], /^create needs <name>: npm run projects -- create <name>/],
    [['delete', 'acme'], /^delete needs --yes: npm run projects -- delete <name> --yes$/m],
    [['set-plan', 'acme'], /^set-plan needs <plan>: npm run projects -- set-plan <name> <plan>/],
    [
      ['set-plan', 'acme', 'platinum'],
      /^Unknown plan "platinum": use one of free, pro, business, enterprise\.$/,
    ],
    [['create', 'acme', '--per-minute', 'ten'], /^--per-minute "ten" is not a whole number\.$/],
    [['show', 'acme', '--yes'], /^show does not take --yes; it takes --json, --stage\./],
    [
      ['explode'],
      /^Unknown command "explode": use create, list, show, set-plan, set-origins, delete, rotate-console-token, migrate, usage, audit, self-service\./,
    ],
    [
      ['set-origins'],
      /^set-origins needs <name>: npm run projects -- set-origins <name> \[<origin> \.\.\.\]/,
    ],
    [['set-origins', 'acme', 'https://a.example', 'a.example'], /^Origin "a\.example" is not an origin/],
    [['list', '--stage', 'prod'], /^Unknown stage "prod": use staging or production\./],
  ])('projects %j', async (argv, message) => {
    const error = await runProjectsCommand(argv, {
      out: () => undefined,
      endpoint: 'http://127.0.0.1:1',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(DEVELOPER_NOISE);
  });

  it.each([
    [
      ['verify', 'shop.example.com', '--resolver', 'nonsense'],
      /^--resolver "nonsense" is not a DNS server address/,
    ],
    [['verify', 'shop.example.com', '--resolver', 'dns.google'], /not a DNS server address/],
    [['verify', 'shop.example.com', '--resolver', '127.0.0.1:0'], /not a DNS server address/],
    [['verify', 'shop.example.com', '--resolver', '127.0.0.1:65536'], /not a DNS server address/],
    [['verify', 'shop.example.com', '--resolver'], /^--resolver needs a value: --resolver IP\[:PORT\]\./],
    [
      ['redirect', 'shop.example.com'],
      /^redirect needs --to-primary: npm run domains -- redirect <domain> --to-primary/,
    ],
    [['status', 'a', 'b'], /^Unexpected argument "a" "b" for status/],
    [['add'], /^add needs <domain>: npm run domains -- add <domain>/],
    [['add', 'x.example.com', '--yes'], /^add does not take --yes/],
    [['remove', 'x.example.com', '--stage', 'staging'], /^remove does not take --stage/],
    [['verify'], /^verify needs <domain>/],
  ])('domains %j', async (argv, message) => {
    const error = await runDomainsCommand(argv, domainsIo).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(DEVELOPER_NOISE);
  });

  it.each(['127.0.0.1', '127.0.0.1:5353', '::1', '[::1]:5353', '2001:db8::53'])(
    'accepts the resolver %s',
    (address) => {
      expect(parseResolverAddress(address)).toBe(address);
    },
  );
});

describe('where the local store is (DYNAMODB_PORT, DYNAMODB_ENDPOINT), as npm start reads it', () => {
  it.each([
    [{}, { port: 8000 }, 'http://127.0.0.1:8000'],
    [{ DYNAMODB_PORT: '' }, { port: 8000 }, 'http://127.0.0.1:8000'],
    [{ DYNAMODB_PORT: '8123' }, { port: 8123 }, 'http://127.0.0.1:8123'],
    [
      { DYNAMODB_PORT: '8123', DYNAMODB_ENDPOINT: 'http://store.test:9000' },
      { port: 8123, endpoint: 'http://store.test:9000' },
      'http://store.test:9000',
    ],
  ])('%j', (env, location, endpoint) => {
    expect(localStoreLocation(env)).toEqual(location);
    expect(localStoreEndpoint(env)).toBe(endpoint);
  });

  it.each([
    [{ DYNAMODB_PORT: 'abc' }, /^DYNAMODB_PORT=abc is not a port number/],
    [{ DYNAMODB_PORT: '1.5' }, /^DYNAMODB_PORT=1\.5 is not a port number/],
    [{ DYNAMODB_PORT: '70000' }, /^DYNAMODB_PORT=70000 is not a port number/],
    [{ DYNAMODB_PORT: '0' }, /^DYNAMODB_PORT=0 lets npm start pick a free port/],
    [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, /^DYNAMODB_ENDPOINT=localhost:8000 is not a URL/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => localStoreEndpoint(env)).toThrow(message);
  });
});

describe('the first call on an empty store', () => {
  // A store that takes its time to make tables ACTIVE, as DynamoDB does: item calls fail until then.
  const SLOW_TABLES_MS = 300;
  let server: ReturnType<typeof dynalite>;
  let endpoint: string;

  beforeEach(async () => {
    server = dynalite({ createTableMs: SLOW_TABLES_MS, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('ensureLocalTablesAt resolves once every table and index is ACTIVE', async () => {
    await ensureLocalTablesAt(endpoint);
    const client = localStoreClient(endpoint);
    try {
      for (const [, tableName] of LOCAL_TABLES) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        expect(Table?.TableStatus).toBe('ACTIVE');
        for (const index of Table?.GlobalSecondaryIndexes ?? []) expect(index.IndexStatus).toBe('ACTIVE');
      }
    } finally {
      client.destroy();
    }
  });

  it('domains status works', async () => {
    const out: string[] = [];
    const code = await runDomainsCommand(['status', '--all', '--json'], {
      out: (line) => out.push(line),
      endpoint,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual([]);
  });

  it('projects create and keys create work', async () => {
    const out: string[] = [];
    await runProjectsCommand(['create', 'first', '--json'], { out: (line) => out.push(line), endpoint });
    expect(JSON.parse(out.join('\n'))).toEqual(expect.objectContaining({ name: 'first', plan: 'free' }));
    out.length = 0;
    await runKeysCommand(['create', '--project', 'first', '--json'], {
      out: (line) => out.push(line),
      endpoint,
    });
    expect(JSON.parse(out.join('\n'))).toEqual(expect.objectContaining({ project: 'first' }));
  });
});
