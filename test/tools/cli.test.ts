import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  ensureLocalTablesAt,
  LOCAL_TABLE_NAMES,
  LOCAL_TABLES,
  localStoreClient,
  localStoreEndpoint,
  localStoreLocation,
} from '../../local/local-tables';
import { parseCommandLine } from '../../tools/cli';
import { parseResolverAddress } from '../../tools/domains-dns';
import { DOMAINS_TOOL, runDomainsCommand } from '../../tools/domains';
import { UsageError } from '../../tools/failures';
import { KEYS_TOOL, runKeysCommand } from '../../tools/keys';

/** What a wrong invocation or a failure must never show an operator. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|\n\s+at /;

describe('help', () => {
  const TOOLS = { keys: KEYS_TOOL, domains: DOMAINS_TOOL } as const;
  const names = Object.keys(TOOLS) as (keyof typeof TOOLS)[];
  /** The help a command line asks for, from the tool named. */
  const helpOf = (name: keyof typeof TOOLS, argv: string[]) =>
    name === 'keys' ? parseCommandLine(KEYS_TOOL, argv).help : parseCommandLine(DOMAINS_TOOL, argv).help;

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

  it('keys and domains print help through io.out and succeed', async () => {
    const keysOut: string[] = [];
    await expect(
      runKeysCommand(['rotate', '--help'], { out: (line) => keysOut.push(line), tableName: 'unused' }),
    ).resolves.toBeUndefined();
    expect(keysOut.join('\n')).toMatch(/^Usage: npm run keys -- rotate <id> \[--json\] \[--stage NAME\]/);
    const domainsOut: string[] = [];
    await expect(
      runDomainsCommand(['help'], {
        out: (line) => domainsOut.push(line),
        tableName: 'unused',
        configPath: 'x',
      }),
    ).resolves.toBe(0);
    expect(domainsOut.join('\n')).toMatch(/^Usage: npm run domains -- <command>/);
  });
});

describe('wrong invocations: UsageError (exit 2) with a message, no exception name', () => {
  const keysIo = {
    out: () => undefined,
    endpoint: 'http://127.0.0.1:1',
    tableName: LOCAL_TABLE_NAMES.apiKeys,
  };
  const domainsIo = {
    ...keysIo,
    tableName: LOCAL_TABLE_NAMES.domains,
    configPath: 'config/domains.example.json',
  };

  it.each([
    [['list', '--bogus'], /^Unknown option --bogus\.\nHelp: npm run keys -- list --help$/],
    [['list', '-x'], /^Unknown option -x\./],
    [['list', '--plan', 'pro'], /^list does not take --plan; it takes --json, --stage\./],
    [['create', '--plan'], /^--plan needs a value: --plan PLAN\./],
    [['create', '--plan', '--json'], /^--plan needs a value/],
    [['create', '--json=yes'], /^--json takes no value\./],
    [['revoke'], /^revoke needs <id>: npm run keys -- revoke <id>$/m],
    [['set-plan', 'abcdefghijklmnop'], /^set-plan needs <plan>: npm run keys -- set-plan <id> <plan>/],
    [['list', 'extra'], /^Unexpected argument "extra" for list: npm run keys -- list \[--json\]$/m],
    [['explode'], /^Unknown command "explode": use create, list, revoke, rotate, set-plan\./],
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
    [['status', 'a', 'b'], /^Unexpected argument "b" for status/],
    [['add', 'acme'], /^add needs <domain>: npm run domains -- add <project> <domain>/],
    [['add', 'acme', 'x.example.com', '--yes'], /^add does not take --yes/],
    [['remove', 'x.example.com', '--stage', 'staging'], /^Stage staging has no custom domains/],
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
    const code = await runDomainsCommand(['status', '--json'], {
      out: (line) => out.push(line),
      endpoint,
      tableName: LOCAL_TABLE_NAMES.domains,
      configPath: 'config/domains.example.json',
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ state: 'pending-dns' })]),
    );
  });

  it('keys create works', async () => {
    const out: string[] = [];
    await runKeysCommand(['create', '--json'], {
      out: (line) => out.push(line),
      endpoint,
      tableName: LOCAL_TABLE_NAMES.apiKeys,
    });
    expect(JSON.parse(out.join('\n'))).toEqual(expect.objectContaining({ plan: 'free' }));
  });
});
