import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLATFORM_COUNTER } from '../../lambda/core/self-service';
import { SelfServiceSlotStore } from '../../lambda/store/self-service-slots';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { selfServiceReport } from '../../tools/project-self-service';
import { runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { stacksMock, stackWithOutputs } from './fake-gateway';
import { withLocalTablesChecked } from '../../tools/local-store';

/**
 * `npm run projects -- self-service` (issue 27): the platform's self-service projects against
 * its cap, read from the counter the console takes places of, with a warning from 80% of it;
 * locally with local mode's variables, and on a stage with its stack's output. In process, over
 * the embedded store.
 */

let t: TestStore;
let slots: SelfServiceSlotStore;
beforeAll(async () => {
  t = await startTestStore();
  slots = new SelfServiceSlotStore(t.documents, LOCAL_TABLE_NAMES.rateLimits);
});
afterAll(() => t.close());

/** Sets the platform's count, as that many of the console's creates would have left it (one item). */
async function taken(count: number): Promise<void> {
  await t.documents.send(
    new PutCommand({
      TableName: LOCAL_TABLE_NAMES.rateLimits,
      Item: { counterId: PLATFORM_COUNTER, taken: count },
    }),
  );
  expect(await slots.count(PLATFORM_COUNTER)).toBe(count);
}

async function projectsTool(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  // startTestStore made the store's tables: each command's check of them is left out.
  await withLocalTablesChecked([t.store.endpoint], () =>
    runProjectsCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint, env }),
  );
  return lines;
}

describe('locally, with the cap local mode reads', () => {
  test('under 80% of it: the count, the cap and the share, and no warning', async () => {
    await taken(7);
    expect(await projectsTool({ SELF_SERVICE_PROJECT_CAP: '10' }, 'self-service')).toEqual([
      '7 of 10 self-service projects (70%).',
    ]);
  });

  test('from 80% of it: a warning that says how to raise the cap or turn self-service off', async () => {
    await taken(8);
    expect(await projectsTool({ SELF_SERVICE_PROJECT_CAP: '10' }, 'self-service')).toEqual([
      '8 of 10 self-service projects (80%).',
      'Warning: at 80% of the cap or more (from 8): start with SELF_SERVICE_PROJECT_CAP=N or SELF_SERVICE_PROJECTS=off.',
    ]);
  });

  test('at the cap: people are refused, and it says so', async () => {
    await taken(10);
    const [, warning] = await projectsTool({ SELF_SERVICE_PROJECT_CAP: '10' }, 'self-service');
    expect(warning).toMatch(/^Warning: the cap is reached, and people are refused new projects/);
  });

  test('--json: one object with the count, the cap, the share and the warning', async () => {
    await taken(3);
    const [line = ''] = await projectsTool({}, 'self-service', '--json');
    expect(JSON.parse(line)).toEqual({
      enabled: true,
      count: 3,
      cap: 2_000,
      share: 3 / 2_000,
      warningAt: 1_600,
      warning: false,
    });
  });

  test('off: the count, no cap to warn about', async () => {
    await taken(9);
    expect(await projectsTool({ SELF_SERVICE_PROJECTS: 'off' }, 'self-service')).toEqual([
      '9 self-service projects; self-service is off.',
    ]);
  });

  test('a bad cap fails naming the variable and the fix', async () => {
    await expect(projectsTool({ SELF_SERVICE_PROJECT_CAP: 'lots' }, 'self-service')).rejects.toThrow(
      /SELF_SERVICE_PROJECT_CAP="lots": set it to a whole number from 0 to 10000/,
    );
  });
});

describe('on a stage, with its stack output', () => {
  const STACK = 'AnimalStore-staging';
  const run = async (cap: string | undefined) => {
    stacksMock.reset();
    stackWithOutputs(STACK, {
      [STACK_OUTPUTS.rateLimitsTable]: LOCAL_TABLE_NAMES.rateLimits,
      [STACK_OUTPUTS.apiKeysTable]: LOCAL_TABLE_NAMES.apiKeys,
      [STACK_OUTPUTS.projectsTable]: LOCAL_TABLE_NAMES.projects,
      [STACK_OUTPUTS.petsTable]: LOCAL_TABLE_NAMES.pets,
      ...(cap === undefined ? {} : { [STACK_OUTPUTS.selfServiceProjectCap]: cap }),
    });
    const lines: string[] = [];
    await runProjectsCommand(['self-service', '--stage', 'staging'], {
      out: (line) => lines.push(line),
      stageClients: {
        cloudFormation: new CloudFormationClient({ region: 'eu-west-1' }),
        apiGateway: new APIGatewayClient({ region: 'eu-west-1' }),
        documents: t.documents,
      },
    });
    return lines;
  };
  afterAll(() => stacksMock.restore());

  test("the stage's cap and the fix at deploy", async () => {
    await taken(1_700);
    expect(await run('2000')).toEqual([
      '1700 of 2000 self-service projects (85%).',
      "Warning: at 80% of the cap or more (from 1600): deploy with -c selfServiceProjectCap=N (at most 10,000 less the account's other keys) or -c selfService=off (doc/deploying.md).",
    ]);
  });

  test('a stack without the output, or with self-service off', async () => {
    await taken(2);
    expect(await run(undefined)).toEqual([
      '2 self-service projects; this stack states no cap (deploy its current version).',
    ]);
    expect(await run('off')).toEqual(['2 self-service projects; self-service is off.']);
  });
});

test('a cap of 0 with nothing taken is 0%, and warns (nobody may create one)', () => {
  expect(
    selfServiceReport({ settings: { enabled: true, projectCap: 0 }, count: 0 }, undefined, false),
  ).toEqual([
    '0 of 0 self-service projects (0%).',
    'Warning: the cap is reached, and people are refused new projects: start with SELF_SERVICE_PROJECT_CAP=N or SELF_SERVICE_PROJECTS=off.',
  ]);
});
