import { CONSOLE_TOKEN_VARIABLE, runDomainsCommand } from '../../tools/domains';
import { UsageError } from '../../tools/failures';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/** `npm run domains`: a thin client of the domains service of a running local mode, for one project. */

let t: DomainsTestApi;
let lines: string[];

beforeAll(async () => {
  t = await startDomainsTestApi();
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

it('walks add → record → verify → certificate → active, and the domain serves over HTTPS', async () => {
  const { consoleToken, target } = await t.createProject('pro');
  expect(await runAs(consoleToken, 'add', 'Shop.Tool-Flow.TEST.')).toBe(0);
  expect(lines).toEqual([
    'Added shop.tool-flow.test as primary; state: pending DNS.',
    'Create this record at the DNS provider of tool-flow.test:',
    '  Name   shop',
    '  Type   CNAME',
    `  Value  ${target}`,
    '  TTL    3600',
    'Then: npm run domains -- verify shop.tool-flow.test',
  ]);

  // Nothing in DNS yet: not verified (exit 1), still pending within 48 hours.
  expect(await runAs(consoleToken, 'verify', 'shop.tool-flow.test', '--json')).toBe(1);
  expect(JSON.parse(lines[0] ?? '')).toMatchObject({
    verified: false,
    verdict: 'not-found',
    state: 'pending-dns',
  });

  expect(await runAs(consoleToken, 'sandbox-record', 'shop.tool-flow.test', 'CNAME', target)).toBe(0);
  expect(await runAs(consoleToken, 'verify', 'shop.tool-flow.test')).toBe(0);
  expect(lines[0]).toBe('Verifying shop.tool-flow.test (primary).');
  expect(lines).toContainEqual(expect.stringMatching(/^State: certificate pending for /));

  // The certificate is issued on the next look (the local CA validates over HTTP at once).
  expect(await runAs(consoleToken, 'status', '--json')).toBe(0);
  expect(JSON.parse(lines[0] ?? '')).toEqual([
    expect.objectContaining({
      domain: 'shop.tool-flow.test',
      role: 'primary',
      state: 'active',
      certificate: 'issued',
    }),
  ]);
  const key = await t.issueKey((await t.createProject('pro')).name);
  expect((await t.viaEdge('shop.tool-flow.test', '/v1/pets', key)).status).toBeLessThan(500);
});

it("prints an apex's two records: the ALIAS/ANAME to the project's target and the TXT record that proves it", async () => {
  const { consoleToken, target, token } = await t.createProject('pro');
  expect(await runAs(consoleToken, 'add', 'tool-apex.test')).toBe(0);
  expect(lines.slice(1, 12)).toEqual([
    'Create this record at the DNS provider of tool-apex.test:',
    '  Name   @',
    '  Type   ALIAS (or ANAME, whichever your provider offers)',
    `  Value  ${target}`,
    '  TTL    3600',
    "And beside it the record that proves the domain is this project's:",
    '  Name   _animal-store',
    '  Type   TXT',
    `  Value  ${token}`,
    '  TTL    3600',
    expect.stringMatching(/^If your DNS provider has no ALIAS or ANAME record/),
  ]);
});

it('makes a redirect and a new primary, and removes with --yes only once served', async () => {
  const { consoleToken, target } = await t.createProject('pro');
  for (const name of ['a.tool-roles.test', 'b.tool-roles.test']) {
    await runAs(consoleToken, 'add', name);
    await t.record(name, 'CNAME', target);
    expect(await runAs(consoleToken, 'verify', name)).toBe(0);
  }
  await runAs(consoleToken, 'status');
  expect(await runAs(consoleToken, 'primary', 'b.tool-roles.test')).toBe(0);
  expect(lines).toEqual(['b.tool-roles.test is the primary domain; redirects point at it.']);
  expect(await runAs(consoleToken, 'redirect', 'a.tool-roles.test', '--to-primary', '--json')).toBe(0);
  expect(JSON.parse(lines[0] ?? '')).toMatchObject({ name: 'a.tool-roles.test', role: 'redirect' });

  // A served domain that no redirect covers needs --yes.
  await expect(runAs(consoleToken, 'remove', 'a.tool-roles.test')).resolves.toBe(0);
  await expect(runAs(consoleToken, 'remove', 'b.tool-roles.test')).rejects.toThrow(
    /traffic to it stops immediately[\s\S]*npm run domains -- remove b\.tool-roles\.test --yes/,
  );
  expect(await runAs(consoleToken, 'remove', 'b.tool-roles.test', '--yes')).toBe(0);
  expect(lines[0]).toMatch(/^Removed b\.tool-roles\.test: its host is refused from now on/);
});

it("refuses with the service's message: Free plan, another project's domain, a bad token", async () => {
  const free = await t.createProject('free');
  await expect(runAs(free.consoleToken, 'add', 'x.tool-refusals.test')).rejects.toThrow(
    /^Custom domains are available on any paid plan/,
  );
  const owner = await t.createProject('pro');
  const other = await t.createProject('pro');
  await runAs(owner.consoleToken, 'add', 'y.tool-refusals.test');
  await expect(runAs(other.consoleToken, 'verify', 'y.tool-refusals.test')).rejects.toThrow(
    /is not a custom domain of project/,
  );
  await expect(runAs('pct_not-a-token', 'status')).rejects.toThrow(
    /Check ANIMAL_STORE_TOKEN .* or ANIMAL_STORE_CONSOLE_TOKEN/,
  );
});

it.each([
  [['status'], undefined, /^Set ANIMAL_STORE_TOKEN to your personal access token/],
  [['status', '--url', 'not a url'], 'pct_x', /^--url not a url: give the console API's base URL/],
  [['verify', 'x.test', '--resolver', 'nowhere'], 'pct_x', /is not a DNS server address/],
  [['add', 'x.test', '--stage', 'production'], 'pct_x', /^add does not take --stage/],
  [['import', 'old.json', '--url', 'http://x.test'], 'pct_x', /acts on the tables, not the service/],
  [['deployed', 'acme'], 'pct_x', /deployed/],
])('a wrong invocation exits 2: %j', async (argv, token, message) => {
  const run = runAs(token, ...argv);
  await expect(run).rejects.toThrow(UsageError);
  await expect(runAs(token, ...argv)).rejects.toThrow(message);
});

it('says how to reach the service when nothing answers', async () => {
  await expect(
    runDomainsCommand(['status'], {
      out: () => undefined,
      env: { [CONSOLE_TOKEN_VARIABLE]: 'pct_x' },
      localApiUrl: 'http://127.0.0.1:1',
    }),
  ).rejects.toThrow(/^No domains service answers at http:\/\/127\.0\.0\.1:1\/console\/api: start local mode/);
});
