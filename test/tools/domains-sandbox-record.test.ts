import { CONSOLE_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import { Refusal, UsageError } from '../../tools/failures';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/** `npm run domains -- sandbox-record`: the tenant's records in the sandbox DNS of a running local mode. */

let t: DomainsTestApi;
let lines: string[];
let consoleToken: string;

beforeAll(async () => {
  t = await startDomainsTestApi();
  ({ consoleToken } = await t.createProject('pro'));
});

afterAll(async () => {
  await t.close();
});

function runAs(token: string | undefined, ...argv: string[]): Promise<number> {
  lines = [];
  return runDomainsCommand(argv, {
    out: (line) => lines.push(line),
    env: token === undefined ? {} : { [CONSOLE_TOKEN_VARIABLE]: token },
    localApiUrl: t.origin,
  });
}

const run = (...argv: string[]) => runAs(consoleToken, ...argv);

it('adds a record the sandbox then answers, and removes it', async () => {
  expect(await run('sandbox-record', 'Shop.Example.TEST', 'cname', 'domains.localhost')).toBe(0);
  expect(lines).toEqual(['Sandbox DNS: shop.example.test CNAME domains.localhost (TTL 3600).']);
  expect(t.domains.dns.records('shop.example.test')).toEqual([
    expect.objectContaining({
      name: 'shop.example.test',
      type: 'CNAME',
      value: 'domains.localhost',
      ttl: 3600,
    }),
  ]);

  expect(await run('sandbox-record', 'shop.example.test', 'CNAME', '--remove')).toBe(0);
  expect(lines).toEqual(['Sandbox DNS: removed 1 CNAME record of shop.example.test.']);
  expect(t.domains.dns.records('shop.example.test')).toEqual([]);
});

it('takes a TTL', async () => {
  await run('sandbox-record', 'ttl.example.test', 'A', '127.0.0.1', '--ttl', '60');
  expect(t.domains.dns.records('ttl.example.test')).toEqual([
    expect.objectContaining({ type: 'A', value: '127.0.0.1', ttl: 60 }),
  ]);
});

it("refuses a record the sandbox refuses, with the sandbox's reason", async () => {
  await expect(run('sandbox-record', 'bad.example.test', 'A', 'not-an-address')).rejects.toThrow(
    new Refusal('A value "not-an-address" is not an IPv4 address.'),
  );
});

it.each([
  [
    ['sandbox-record', 'x.example.test', 'MX', 'mail.example.test'],
    /Record type "MX": use one of A, AAAA, CNAME, CAA, TXT/,
  ],
  [['sandbox-record', 'x.example.test', 'CNAME'], /Give the record's value/],
  [['sandbox-record', 'x.example.test', 'A', '127.0.0.1', '--url', 'http://x.test'], /takes no --url/],
])('refuses a wrong invocation: %j', async (argv, message) => {
  await expect(run(...argv)).rejects.toThrow(UsageError);
  await expect(run(...argv)).rejects.toThrow(message);
});

it("acts as the project of the console token, and never in another project's zone", async () => {
  await expect(runAs(undefined, 'sandbox-record', 'x.example.test', 'A', '127.0.0.1')).rejects.toThrow(
    new UsageError(
      `Set ANIMAL_STORE_TOKEN to your personal access token (pat_…, made in the console's Tokens view), or, until the project has an owner, ${CONSOLE_TOKEN_VARIABLE} to the project's console token (pct_…, printed by npm run projects -- create): the tool acts for that project. It is never an argument, which would land in shell history.`,
    ),
  );
  expect(await run('sandbox-record', 'shop.owned.test', 'CNAME', 'domains.localhost')).toBe(0);
  const other = await t.createProject('pro');

  await expect(
    runAs(other.consoleToken, 'sandbox-record', 'www.owned.test', 'A', '192.0.2.1'),
  ).rejects.toThrow(/^The zone owned\.test holds records that are not project t-[0-9a-f]+'s/);
  expect(t.domains.dns.records('shop.owned.test')).toEqual([
    expect.objectContaining({ value: 'domains.localhost' }),
  ]);
  expect(t.domains.dns.records('www.owned.test')).toEqual([]);
});

it('says how to start local mode when nothing answers', async () => {
  lines = [];
  await expect(
    runDomainsCommand(['sandbox-record', 'x.example.test', 'A', '127.0.0.1'], {
      out: (line) => lines.push(line),
      env: { [CONSOLE_TOKEN_VARIABLE]: consoleToken },
      localApiUrl: 'http://127.0.0.1:1',
    }),
  ).rejects.toThrow(/No local mode answers at http:\/\/127\.0\.0\.1:1: start it with npm start/);
});
