import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACCOUNT_STACK_NAME } from '../../lib/account-stack';
import { EDGE_REGION, EDGE_STACK_NAME } from '../../lib/edge-stack';
import {
  allows,
  CFN_LINT_SETTINGS,
  type CfnLintFinding,
  cfnLint,
  installedCfnLintVersion,
  isExpectedVersion,
} from '../support/cfn-lint';
import {
  NAG_ALARM_EMAIL_STACK,
  NAG_DEFAULT_PRODUCTION_STACK,
  NAG_PRODUCTION_REGION,
  type EveryStack,
  everyStack,
} from '../support/nag-app';

/**
 * Both checks of the templates read one synthesis of everything the app can deploy, made once
 * per run and shared with test/lib/iam.test.ts (it is the slow part): cdk-nag's AWS Solutions
 * rules, then cfn-lint over the templates it wrote.
 */
let run: EveryStack;
beforeAll(async () => {
  run = await everyStack();
}, 300_000);

/**
 * cdk-nag's AWS Solutions checks over everything the app can deploy: the account stack,
 * both environments, production's wildcard project addresses and domains service, the edge
 * stack and the optional alarm topic. A finding is fixed or acknowledged, with its reason, in
 * the construct that creates the resource.
 */
describe('AWS Solutions checks (cdk-nag)', () => {
  test('cover every kind of stack the app deploys', () => {
    expect(run.stackNames).toEqual(
      expect.arrayContaining([
        ACCOUNT_STACK_NAME,
        'AnimalStore-staging',
        'AnimalStore-production',
        EDGE_STACK_NAME,
        NAG_ALARM_EMAIL_STACK,
        NAG_DEFAULT_PRODUCTION_STACK,
      ]),
    );
    expect(run.constructPaths).toContain('AnimalStore-production/ProjectAddresses/Domain');
    expect(run.constructPaths).toContain('AnimalStore-production/Console');
    expect(run.constructPaths).toContain(`${NAG_ALARM_EMAIL_STACK}/Observability/AlarmTopic`);
    expect(run.constructPaths).toContain(`${EDGE_STACK_NAME}/Distribution`);
  });

  test('leave no finding unacknowledged', () => {
    // On failure, the list names each rule, resource and problem.
    expect(run.findings).toEqual([]);
  });

  test("let synthesis succeed with the checks registered as a validation plugin, as in bin/, and CDK's CloudFormation validation", () => {
    expect(run.synthError).toBeUndefined();
  });

  test('every acknowledgement names one AWS Solutions rule and gives a reason a reviewer can check', () => {
    expect(run.acknowledgements.length).toBeGreaterThan(0);
    for (const { path, id, reason } of run.acknowledgements) {
      expect({
        path,
        id,
        ruleId: /^AwsSolutions-[A-Z]+\d+(\[.+\])?$/.test(id),
        words: reason.split(/\s+/).length >= 12,
      }).toEqual({ path, id, ruleId: true, words: true });
    }
  });

  test('nothing is acknowledged for a whole stack or the app', () => {
    const stackPaths = new Set(run.topLevelPaths);
    for (const { path } of run.acknowledgements) expect(stackPaths.has(path) || path === '').toBe(false);
  });
});

const cfnLintVersion = installedCfnLintVersion();

/** `describe`, or skipped with a warning where cfn-lint is missing locally; never in CI, where that fails. */
function describeWithCfnLint(what: string): jest.Describe {
  if (cfnLintVersion !== undefined || process.env.CI) return describe;
  console.warn(
    `Skipping ${what}: cfn-lint is not on the PATH (install cfn-lint ${CFN_LINT_SETTINGS.version}.x, a Python package). CI runs it.`,
  );
  return describe.skip;
}

/** The template of each stack of the run, with the region it deploys to. */
function templatesOf(nag: EveryStack): { stack: string; file: string; region: string }[] {
  return nag.stacks.map(({ stack, templateFile, region }) => ({
    stack,
    file: path.join(nag.outdir, templateFile),
    region,
  }));
}

/** A finding as one line a reviewer can act on. */
const describeFinding = (finding: CfnLintFinding) =>
  `${finding.level} ${finding.rule} in ${finding.stack} at ${finding.path} (${finding.resourceType ?? 'no resource'}): ${finding.message}`;

/**
 * cfn-lint, the CloudFormation linter, over every template of both configurations (default,
 * and production with a platform address and the edge stack), each in the region it deploys
 * to. No error; a warning only where test/lib/cfn-lint.json lists it with its reason.
 */
describeWithCfnLint('cfn-lint')('cfn-lint', () => {
  /** The stack name of a copy of the account stack's template with a misspelt property planted in it. */
  const PLANTED = 'AnimalStore-planted-misspelling';
  /** The stack names (before the region) of two templates that tell the region each is linted in. */
  const REGION_PROBE = 'AnimalStore-planted-region';
  const US_EAST_1_ONLY_TYPE = 'AWS::AppTest::TestCase';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-cfn-lint-'));
  let plantedId: string;
  let findings: CfnLintFinding[];
  let planted: CfnLintFinding[];
  let probed: CfnLintFinding[];
  beforeAll(() => {
    const account = templatesOf(run).find(({ stack }) => stack === ACCOUNT_STACK_NAME);
    const template = JSON.parse(readFileSync(account?.file ?? '', 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const [id, resource] = Object.entries(template.Resources).find(
      ([, candidate]) => candidate.Type === 'AWS::ApiGateway::Account',
    ) ?? ['none', { Type: '', Properties: {} }];
    plantedId = id;
    resource.Properties.CloudwatchRoleArn = resource.Properties.CloudWatchRoleArn;
    delete resource.Properties.CloudWatchRoleArn;
    const plantedFile = path.join(dir, `${PLANTED}.template.json`);
    writeFileSync(plantedFile, JSON.stringify(template));
    // A resource type that us-east-1 has and eu-west-1 lacks, planted in a template for each.
    const regionProbes = [EDGE_REGION, NAG_PRODUCTION_REGION].map((region) => {
      const file = path.join(dir, `${REGION_PROBE}-${region}.template.json`);
      writeFileSync(file, JSON.stringify({ Resources: { Probe: { Type: US_EAST_1_ONLY_TYPE } } }));
      return { file, region };
    });
    // One run with the others: cfn-lint's start-up is much of its cost.
    const all = cfnLint([
      ...templatesOf(run),
      { file: plantedFile, region: NAG_PRODUCTION_REGION },
      ...regionProbes,
    ]);
    findings = all.filter((finding) => !finding.stack.startsWith('AnimalStore-planted-'));
    planted = all.filter((finding) => finding.stack === PLANTED);
    probed = all.filter((finding) => finding.stack.startsWith(REGION_PROBE) && finding.rule === 'E3006');
  }, 600_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test(`is the version the project expects (${CFN_LINT_SETTINGS.version}.x, test/lib/cfn-lint.json)`, () => {
    expect(
      `cfn-lint ${cfnLintVersion ?? 'missing'}: ${isExpectedVersion(cfnLintVersion) ? 'as expected' : 'wrong'}`,
    ).toBe(`cfn-lint ${cfnLintVersion}: as expected`);
  });

  test('lints every stack of both configurations, each in its region', () => {
    expect(
      templatesOf(run)
        .map(({ stack, region }) => [stack, region])
        .sort(),
    ).toEqual(
      [
        [ACCOUNT_STACK_NAME, NAG_PRODUCTION_REGION],
        ['AnimalStore-staging', NAG_PRODUCTION_REGION],
        ['AnimalStore-production', NAG_PRODUCTION_REGION],
        [NAG_DEFAULT_PRODUCTION_STACK, NAG_PRODUCTION_REGION],
        [NAG_ALARM_EMAIL_STACK, NAG_PRODUCTION_REGION],
        [EDGE_STACK_NAME, EDGE_REGION],
      ].sort(),
    );
  });

  test("lints each template in its own region, in one cfn-lint run: a type only us-east-1 has is refused in eu-west-1's", () => {
    expect(probed.map((finding) => [finding.stack, finding.resourceType])).toEqual([
      [`${REGION_PROBE}-${NAG_PRODUCTION_REGION}`, US_EAST_1_ONLY_TYPE],
    ]);
  });

  test('finds no error', () => {
    expect(findings.filter((finding) => finding.level === 'Error').map(describeFinding)).toEqual([]);
  });

  test('finds no warning but those test/lib/cfn-lint.json lists, with their reasons', () => {
    const unlisted = findings.filter(
      (finding) =>
        finding.level !== 'Error' &&
        !CFN_LINT_SETTINGS.allowedWarnings.some((allowed) => allows(allowed, finding)),
    );
    expect(unlisted.map(describeFinding)).toEqual([]);
  });

  test('every listed warning still occurs in each stack it names, so a fixed one leaves the list', () => {
    for (const allowed of CFN_LINT_SETTINGS.allowedWarnings) {
      expect(allowed.reason.split(/\s+/).length).toBeGreaterThanOrEqual(12);
      for (const stack of allowed.stacks) {
        expect({
          rule: allowed.rule,
          stack,
          found: findings.some((finding) => finding.stack === stack && allows(allowed, finding)),
        }).toEqual({
          rule: allowed.rule,
          stack,
          found: true,
        });
      }
    }
  });

  test('finds a misspelt property, planted in a copy of a template', () => {
    expect(planted.filter((finding) => finding.level === 'Error')).toEqual([
      expect.objectContaining({
        rule: 'E3002',
        path: `Resources/${plantedId}/Properties/CloudwatchRoleArn`,
        resourceType: 'AWS::ApiGateway::Account',
      }),
    ]);
  });
});
