import { type AddressInfo, createServer } from 'node:net';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { runTs } from '../support/processes';
import { runToolInProcess } from '../support/tools-in-process';

/**
 * The tools as an operator runs them (`npm run keys -- ...`): exit codes, which stream
 * gets what, and where the store is found. The parsing itself is tested in process
 * (cli.test.ts). Each tool program is started for real at least once, and each exit code
 * (0, 1, 2) is seen from a real process; the other cases run the same exit-code and stream
 * rules in this process (runToolInProcess), saving a process start (about a second of CPU)
 * per case.
 */

/** What an operator must never see: exception names, stack lines, raw socket errors. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|\n\s+at |ECONNREFUSED/;

/** The environment of a shell where the store is found through DYNAMODB_PORT alone. */
const byPort = (port: number) => ({ DYNAMODB_PORT: String(port), DYNAMODB_ENDPOINT: '' });

let t: TestStore;
beforeAll(async () => {
  t = await startTestStore();
});
afterAll(() => t.close());

/** A store that is not there: help and wrong invocations need none. */
const NO_STORE = 'http://127.0.0.1:1';

describe('help: stdout, exit 0', () => {
  it('openapi help, as a process', async () => {
    const result = await runTs('tools/openapi.ts', ['help'], byPort(1));
    expect(result).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^Usage: npm run openapi -- \[--check\]/),
      stderr: '',
    });
  }, 30_000);

  it.each([
    ['keys', ['--help'], /^Usage: npm run keys -- <command>/],
    ['keys', ['create', '--help'], /^Usage: npm run keys -- create /],
    ['projects', ['--help'], /^Usage: npm run projects -- <command>/],
    ['projects', ['set-plan', '-h'], /^Usage: npm run projects -- set-plan <name> <plan>/],
    ['domains', ['-h'], /^Usage: npm run domains -- <command>/],
    ['domains', ['help', 'verify'], /^Usage: npm run domains -- verify <domain>/],
  ] as const)('%s %j', async (tool, args, usage) => {
    const result = await runToolInProcess(tool, args, { endpoint: NO_STORE });
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(usage), stderr: '' });
  });
});

describe('wrong input: a message on stderr, exit 2', () => {
  it('openapi --bogus, as a process', async () => {
    const result = await runTs('tools/openapi.ts', ['--bogus'], byPort(1));
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^Unknown option --bogus\.\nHelp: npm run openapi -- --help\n$/),
    });
    expect(result.stderr).not.toMatch(DEVELOPER_NOISE);
  }, 30_000);

  // The keys program exits 2 as a process below (a DYNAMODB_PORT that is not a port).
  it.each([
    ['keys', ['list', '--bogus'], /^Unknown option --bogus\.\nHelp: npm run keys -- list --help\n$/],
    [
      'domains',
      ['verify', 'shop.example.com', '--resolver', 'not-an-address'],
      /^--resolver "not-an-address" is not a DNS server address: use an IP address with an optional port, e\.g\. 127\.0\.0\.1:5353/,
    ],
    ['projects', ['delete', 'acme'], /^delete needs --yes: npm run projects -- delete <name> --yes\n/],
    // Refused before any store is reached (there is none at port 1).
    [
      'projects',
      ['set-origins', 'acme', 'https://app.example.com/home'],
      /^Origin "https:\/\/app\.example\.com\/home" has a path, query or fragment, which an origin never has: use https:\/\/app\.example\.com\.\n$/,
    ],
  ] as const)('%s %j', async (tool, args, message) => {
    const result = await runToolInProcess(tool, args, { endpoint: NO_STORE });
    expect(result).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(message) });
    expect(result.stderr).not.toMatch(DEVELOPER_NOISE);
  });

  it('a DYNAMODB_PORT that is not a port', async () => {
    const result = await runTs('tools/keys.ts', ['list'], { DYNAMODB_PORT: 'eighty', DYNAMODB_ENDPOINT: '' });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'DYNAMODB_PORT=eighty is not a port number: use an integer from 0 to 65535.\n',
    });
  }, 30_000);
});

describe('the store, found as npm start finds it', () => {
  it('keys and domains act on the store at DYNAMODB_PORT', async () => {
    const env = byPort(t.store.port);
    const project = await runTs('tools/projects.ts', ['create', 'by-port', '--json'], env);
    expect(project).toEqual({ code: 0, stdout: expect.stringMatching(/^\{"name":"by-port"/), stderr: '' });
    const created = await runTs(
      'tools/keys.ts',
      ['create', '--project', 'by-port', '--name', 'by port', '--json'],
      env,
    );
    expect(created).toEqual({ code: 0, stdout: expect.any(String), stderr: '' });
    const { id } = JSON.parse(created.stdout) as { id: string };
    const stored = await new ApiKeyRepository(t.documents, LOCAL_TABLE_NAMES.apiKeys).get(id);
    expect(stored?.name).toBe('by port');

    const status = await runTs('tools/domains.ts', ['status', '--all', '--json'], env);
    expect(status).toEqual({ code: 0, stdout: expect.stringMatching(/^\[/), stderr: '' });
  }, 30_000);

  it('a store that cannot be reached: one line naming the endpoint and the variables that set it, exit 1', async () => {
    // A port that cuts every connection: nothing there answers, and no other process can take it meanwhile.
    const cutter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', () => resolve()));
    const { port } = cutter.address() as AddressInfo;
    try {
      const result = await runTs('tools/domains.ts', ['status', '--all'], byPort(port));
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `domains: Cannot reach the local store at http://127.0.0.1:${port}: the connection was cut. ` +
          'Start it with npm start, or point the tools at it as npm start reads it: ' +
          'DYNAMODB_PORT (port on 127.0.0.1, default 8000) or DYNAMODB_ENDPOINT (a URL; it overrides DYNAMODB_PORT).\n',
      });
    } finally {
      await new Promise((resolve) => cutter.close(resolve));
    }
  }, 30_000);
});
