import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { USAGE_OPERATIONS } from '../../lambda/api/routes';
import { PLANS } from '../../lambda/core/plans';
import { keySubject, projectIdentity, RateLimiter } from '../../lambda/core/rate-limiter';
import { writeDailyUsageTop } from '../../lambda/core/usage-top';
import { RateLimitStore } from '../../lambda/store/rate-limit-store';
import { PROJECTS_TABLE, RATE_LIMITS_TABLE } from '../../lambda/store/table-schema';
import { scanProjectNames, UsageTopStore } from '../../lambda/store/usage-top-store';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { runTool } from '../../tools/cli';
import { PROJECTS_TOOL, runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { fakeClock } from '../support/fake-clock';
import { FakeGateway, stacksMock, stackWithOutputs } from './fake-gateway';
import { withLocalTablesChecked } from '../../tools/local-store';

/**
 * `npm run projects -- usage --top [N] [--day YYYY-MM-DD]` (issue 29): the projects that used the
 * most on a UTC day, from the day's `top` item with its age, or counted now for today; wrong
 * invocations exit 2 before anything is read; the same on a stage's tables.
 */
let t: TestStore;
beforeAll(async () => {
  t = await startTestStore();
});
afterAll(() => t.close());

/** The tool as a program: its exit code, stdout lines and stderr. */
async function projectsTool(...argv: string[]) {
  const out: string[] = [];
  let err = '';
  const code = await runTool(
    PROJECTS_TOOL,
    // startTestStore made the store's tables: each command's check of them is left out.
    (args) =>
      withLocalTablesChecked([t.store.endpoint], () =>
        runProjectsCommand(args, { out: (line) => out.push(line), endpoint: t.store.endpoint, env: {} }),
      ),
    argv,
    (text) => {
      err += text;
    },
  );
  return { code, out, err };
}

/** Sends `times` calls of `operation` for a project through the limiter (a minute's 60 at most). */
async function send(limiter: RateLimiter, project: string, operation: string, times: number) {
  for (let index = 0; index < times; index++) {
    await limiter.admit(projectIdentity(project), PLANS.free.limits, keySubject('k'), operation);
  }
}

test('lists the busiest projects of a finished day from its top item, saying how old it is; today counted now', async () => {
  const clock = fakeClock(Date.UTC(2030, 0, 14, 22, 0, 0));
  try {
    for (const name of ['top-a', 'top-b', 'top-c']) await projectsTool('create', name);
    const counters = new RateLimitStore(t.documents, LOCAL_TABLE_NAMES.rateLimits);
    const limiter = new RateLimiter(counters, clock.now, { operations: USAGE_OPERATIONS, writer: counters });
    await send(limiter, 'top-a', 'listPets', 7);
    await send(limiter, 'top-b', 'getPet', 12);
    // top-c spends its minute: 60 admitted, then refusals, carried by its next call a minute on.
    await send(limiter, 'top-c', 'listPets', 64);
    clock.advance(61_000);
    await send(limiter, 'top-c', 'getPet', 1);
    // The daily job, the next morning.
    clock.set(Date.UTC(2030, 0, 15, 0, 15, 0));
    const store = new UsageTopStore(t.documents, LOCAL_TABLE_NAMES.rateLimits, () =>
      scanProjectNames(t.documents, LOCAL_TABLE_NAMES.projects),
    );
    await writeDailyUsageTop(store, clock.now());
    // Some calls today, after the ranking was written.
    clock.set(Date.UTC(2030, 0, 15, 7, 45, 30));
    await send(limiter, 'top-b', 'listPets', 2);

    const json = await projectsTool('usage', '--top', '2', '--day', '2030-01-14', '--json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out[0] ?? '')).toEqual({
      day: '2030-01-14',
      source: 'top-item',
      computedAt: '2030-01-15T00:15:00.000Z',
      ageSeconds: 7 * 3600 + 30 * 60 + 30,
      projectsRead: 3,
      total: { admitted: 80, refused: 4 },
      byRequests: [
        { project: 'top-c', admitted: 61, refused: 4 },
        { project: 'top-b', admitted: 12, refused: 0 },
      ],
      byRefusals: [{ project: 'top-c', admitted: 61, refused: 4 }],
    });

    const text = await projectsTool('usage', '--top', '--day', '2030-01-14');
    expect(text.out.slice(0, 2)).toEqual([
      'Busiest projects of 2030-01-14 (UTC), from its top item, written 2030-01-15T00:15:00.000Z (7 h 30 min ago).',
      '3 projects read: 80 calls admitted, at least 4 refused.',
    ]);
    expect(text.out).toContain('     1  top-c                                     61             4');
    expect(text.out.filter((line) => /^\s+\d+ {2}top-/.test(line))).toHaveLength(4);

    const today = await projectsTool('usage', '--top', '--json');
    expect(JSON.parse(today.out[0] ?? '')).toMatchObject({
      day: '2030-01-15',
      source: 'computed',
      computedAt: '2030-01-15T07:45:30.000Z',
      ageSeconds: 0,
      byRequests: [{ project: 'top-b', admitted: 2, refused: 0 }],
      byRefusals: [],
    });
    const todayText = await projectsTool('usage', '--top');
    expect(todayText.out[0]).toMatch(
      /^Busiest projects of 2030-01-15 \(UTC\), counted now, 2030-01-15T07:45:30\.000Z/,
    );
    expect(todayText.out).toContain('By refusals (top 10): none.');
  } finally {
    clock.restore();
  }
});

test.each([
  [['usage'], 'usage needs a project, or --top'],
  [['usage', '--top', '0'], '--top "0": give how many projects to list, a whole number from 1 to 100'],
  [['usage', '--top', '101'], 'from 1 to 100'],
  [['usage', '--top', 'acme'], '--top "acme"'],
  [['usage', '--top', '--day', '2030-02-30'], '--day "2030-02-30" is not a date'],
  [['usage', '--top', '--day', '15/01/2030'], 'is not a date'],
  [['usage', '--top', '--day', '2030-01-16'], '--day 2030-01-16 is out of range'],
  [['usage', '--top', '--day', '2029-12-10'], 'give a day from 2029-12-11 to 2030-01-15'],
  [['usage', '--top', '--days', '3'], "--days is for one project's usage"],
  [['usage', 'top-a', '--day', '2030-01-14'], '--day goes with --top'],
  [['usage', '--top', '3', '4'], 'Unexpected argument "4"'],
])('%j exits 2 with a message on stderr, nothing on stdout', async (argv, message) => {
  const clock = fakeClock(Date.UTC(2030, 0, 15, 9, 0, 0));
  try {
    const { code, out, err } = await projectsTool(...argv);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toContain(message);
    expect(err).not.toMatch(/Error\b|\n\s+at /);
  } finally {
    clock.restore();
  }
});

test('--help on usage prints both forms on stdout and exits 0', async () => {
  const { code, out, err } = await projectsTool('usage', '--help');
  expect({ code, err }).toEqual({ code: 0, err: '' });
  const help = out.join('\n');
  expect(help).toContain(
    'Usage: npm run projects -- usage [<project|N>] [--days N] [--top] [--day YYYY-MM-DD]',
  );
  expect(help).toContain('usage --top [N]: the projects that used the most on a UTC day');
});

describe('with --stage', () => {
  const STACK = 'AnimalStore-staging';
  const DEPLOYED = {
    projects: 'AnimalStore-staging-Projects-T',
    rateLimits: 'AnimalStore-staging-RateLimits-T',
  };

  beforeAll(async () => {
    await t.createTable(PROJECTS_TABLE, DEPLOYED.projects);
    await t.createTable(RATE_LIMITS_TABLE, DEPLOYED.rateLimits);
  });

  test("reads the stage's projects and rate-limit tables, named by the stack's outputs", async () => {
    stacksMock.reset();
    stackWithOutputs(STACK, {
      [STACK_OUTPUTS.baseUrl]: 'https://example.execute-api.eu-west-1.amazonaws.com/staging/v1',
      [STACK_OUTPUTS.apiKeysTable]: 'unused-keys',
      [STACK_OUTPUTS.projectsTable]: DEPLOYED.projects,
      [STACK_OUTPUTS.petsTable]: 'unused-pets',
      [STACK_OUTPUTS.customDomainsTable]: 'unused-domains',
      [STACK_OUTPUTS.rateLimitsTable]: DEPLOYED.rateLimits,
    });
    new FakeGateway(STACK, FakeGateway.stackPlans(STACK)).install();
    const clock = fakeClock(Date.UTC(2030, 0, 15, 9, 0, 0));
    try {
      const counters = new RateLimitStore(t.documents, DEPLOYED.rateLimits);
      const limiter = new RateLimiter(counters, clock.now, {
        operations: USAGE_OPERATIONS,
        writer: counters,
      });
      await t.documents.send(
        new PutCommand({
          TableName: DEPLOYED.projects,
          Item: { name: 'staged', plan: 'free', createdAt: '2030-01-01T00:00:00.000Z' },
        }),
      );
      await send(limiter, 'staged', 'getOpenApi', 5);
      const lines: string[] = [];
      await runProjectsCommand(['usage', '--top', '--json', '--stage', 'staging'], {
        out: (line) => lines.push(line),
        endpoint: 'http://127.0.0.1:1',
        stageClients: {
          cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
          apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
          documents: t.documents,
        },
      });
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({
        source: 'computed',
        projectsRead: 1,
        byRequests: [{ project: 'staged', admitted: 5, refused: 0 }],
      });
    } finally {
      clock.restore();
    }
  });
});
