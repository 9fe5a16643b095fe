import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import type { AuditEntry } from '../../lambda/core/audit';
import { memberId } from '../../lambda/core/members';
import { domainRuleAudit } from '../../lambda/operations/domain-rule-audit';
import { AuditLogRepository } from '../../lambda/store/audit-log-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { runKeysCommand } from '../../tools/keys';
import { runMembersCommand } from '../../tools/members';
import { runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { fakeClock } from '../support/fake-clock';
import { withLocalTablesChecked } from '../../tools/local-store';

/**
 * The platform tools' audit trail (issue 28): each command that changes a project leaves one
 * entry in its log as the platform engineer's (locally the OS user), refusals included, and
 * `projects audit` reads the log back, newest first, from a time on.
 */
let t: TestStore;
beforeAll(async () => {
  t = await startTestStore();
});
afterAll(() => t.close());

async function tool(
  run: typeof runProjectsCommand | typeof runKeysCommand | typeof runMembersCommand,
  ...argv: string[]
): Promise<string[]> {
  const lines: string[] = [];
  // startTestStore made the store's tables: each command's check of them is left out.
  await withLocalTablesChecked([t.store.endpoint], () =>
    run(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint, env: {} }),
  );
  return lines;
}

async function auditOf(project: string, ...options: string[]): Promise<AuditEntry[]> {
  const lines = await tool(runProjectsCommand, 'audit', project, '--json', ...options);
  return lines.map((line) => JSON.parse(line) as AuditEntry);
}

test('records projects, keys and members commands as the platform engineer, refusals too, and reads them back', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 8, 0, 0));
  try {
    const project = `trail-${Date.now().toString(36)}`;
    await tool(runProjectsCommand, 'create', project);
    clock.advance(1000);
    const sinceSecond = new Date(clock.now()).toISOString();
    await tool(runProjectsCommand, 'set-plan', project, 'pro');
    await tool(runProjectsCommand, 'set-origins', project, 'https://app.example.com');
    const [created = '{}'] = await tool(
      runKeysCommand,
      'create',
      '--project',
      project,
      '--name',
      'ci',
      '--json',
    );
    const { id: keyId } = JSON.parse(created) as { id: string };
    await tool(runKeysCommand, 'revoke', keyId);
    const person = { issuer: 'https://idp.example', subject: 'ana' };
    await tool(
      runMembersCommand,
      'add',
      '--project',
      project,
      '--issuer',
      person.issuer,
      '--subject',
      'ana',
      '--email',
      'ana@example.com',
      '--role',
      'owner',
    );
    // The last owner stays one: a refusal, recorded as such.
    await expect(
      tool(runMembersCommand, 'remove', '--project', project, '--issuer', person.issuer, '--subject', 'ana'),
    ).rejects.toThrow();
    // Reads record nothing.
    await tool(runProjectsCommand, 'show', project);

    const entries = await auditOf(project);
    const engineer = { kind: 'platform-engineer', identity: `local:${userInfo().username}` };
    expect(entries.map(({ action, target, outcome, actor }) => ({ action, target, outcome, actor }))).toEqual(
      [
        {
          action: 'member.remove',
          target: memberId(person),
          outcome: { result: 'refused', code: 'tool_refused', status: 1 },
          actor: engineer,
        },
        { action: 'member.add', target: memberId(person), outcome: { result: 'success' }, actor: engineer },
        { action: 'key.revoke', target: keyId, outcome: { result: 'success' }, actor: engineer },
        { action: 'key.create', target: 'ci', outcome: { result: 'success' }, actor: engineer },
        {
          action: 'origins.change',
          target: 'https://app.example.com',
          outcome: { result: 'success' },
          actor: engineer,
        },
        { action: 'plan.change', target: 'pro', outcome: { result: 'success' }, actor: engineer },
        { action: 'project.create', target: project, outcome: { result: 'success' }, actor: engineer },
      ],
    );
    expect((await auditOf(project, '--since', sinceSecond)).map((entry) => entry.action)).not.toContain(
      'project.create',
    );
    const text = await tool(runProjectsCommand, 'audit', project);
    expect(text[0]).toMatch(
      /^2026-11-26T08:00:01\.000Z {2}member\.remove +\S+ {2}refused tool_refused {2}by platform engineer local:/,
    );
    // Another project's log holds none of these.
    const other = `trail-other-${Date.now().toString(36)}`;
    await tool(runProjectsCommand, 'create', other);
    expect((await auditOf(other)).map((entry) => entry.action)).toEqual(['project.create']);
  } finally {
    clock.restore();
  }
});

test('refuses a --since that is no time before any connection', async () => {
  await expect(tool(runProjectsCommand, 'audit', 'any', '--since', 'yesterday')).rejects.toThrow(
    /--since "yesterday"/,
  );
});

test("shows the domains' own rules as the platform's, in words and as JSON", async () => {
  const project = `trail-rules-${Date.now().toString(36)}`;
  await tool(runProjectsCommand, 'create', project);
  const at = Date.now() + 60_000;
  const rules = domainRuleAudit(new AuditLogRepository(t.documents, LOCAL_TABLE_NAMES.auditLog), () => at);
  await rules.contested({ project, name: 'shop.rules.test' });
  await rules.released({ project, name: 'idle.rules.test' });
  const [released, contested] = await auditOf(project);
  expect(released).toMatchObject({
    action: 'domain.release',
    actor: { kind: 'platform', rule: 'claim-window' },
  });
  expect(contested).toMatchObject({
    action: 'domain.contest',
    actor: { kind: 'platform', rule: 'dns-proof' },
  });
  const text = await tool(runProjectsCommand, 'audit', project);
  expect(text.slice(0, 2)).toEqual([
    expect.stringMatching(
      / {2}domain\.release +idle\.rules\.test {2}success {2}by the platform: the claim stayed unverified past its window$/,
    ),
    expect.stringMatching(
      / {2}domain\.contest +shop\.rules\.test {2}success {2}by the platform: another project proved control of the name's DNS$/,
    ),
  ]);
});

test("prints a caller's text one entry to a line, its control characters escaped", async () => {
  const project = `trail-text-${Date.now().toString(36)}`;
  await tool(runProjectsCommand, 'create', project);
  const person = { issuer: 'https://idp.example', subject: 'ana', email: 'ana@people.test' };
  await new AuditLogRepository(t.documents, LOCAL_TABLE_NAMES.auditLog).append({
    project,
    atMs: Date.now() + 60_000,
    actor: { kind: 'personal-token', token: { id: 'a'.repeat(32), name: 'ci\u009b31m' }, person },
    action: 'token.revoke',
    target: '\n2026-01-01T00:00:00.000Z  member.remove\u001b[2J',
    outcome: { result: 'refused', code: 'token_not_found', status: 404 },
    clientAddress: '203.0.113.9\r',
  });
  const [line = '', ...rest] = await tool(runProjectsCommand, 'audit', project);
  expect(rest).toHaveLength(1); // the project's creation
  // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
  expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  expect(line).toContain(
    'token.revoke     \\u000a2026-01-01T00:00:00.000Z  member.remove\\u001b[2J  refused',
  );
  expect(line).toContain('token ci\\u009b31m (');
  expect(line).toMatch(/from 203\.0\.113\.9\\u000d$/);
});

test('an audited command makes sure of the local tables once, for its work and its entry together', async () => {
  // An HTTP relay in front of the store that counts the operations the tool asks for.
  const asked: string[] = [];
  const relay = createServer((incoming, answer) => {
    asked.push(String(incoming.headers['x-amz-target']).split('.').pop() ?? '');
    const onward = request(
      `${t.store.endpoint}${incoming.url ?? '/'}`,
      { method: incoming.method, headers: incoming.headers },
      (reply) => {
        answer.writeHead(reply.statusCode ?? 500, reply.headers);
        reply.pipe(answer);
      },
    );
    incoming.pipe(onward);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const project = `trail-once-${Date.now().toString(36)}`;
    await runProjectsCommand(['create', project], { out: () => undefined, endpoint, env: {} });
    const count = (operation: string) => asked.filter((name) => name === operation).length;
    expect(count('ListTables')).toBe(1);
    expect(count('DescribeTable')).toBe(Object.keys(LOCAL_TABLE_NAMES).length);
    // The entry was written all the same.
    expect(count('PutItem')).toBe(2);
    expect((await auditOf(project)).map((entry) => entry.action)).toEqual(['project.create']);
  } finally {
    relay.closeAllConnections();
    await new Promise<void>((resolve) => relay.close(() => resolve()));
  }
});
