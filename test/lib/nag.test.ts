import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Stack } from 'aws-cdk-lib';
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
  type NagRun,
  runNag,
} from '../support/nag-app';

/**
 * Both checks of the templates read one synthesis of everything the app can deploy (it is the
 * slow part): cdk-nag's AWS Solutions rules, then cfn-lint over the templates it wrote.
 */
let run: NagRun;
beforeAll(() => {
  run = runNag();
}, 300_000);

/**
 * cdk-nag's AWS Solutions checks over everything the app can deploy: the account stack,
 * both environments, production's wildcard project addresses and domains service, the edge
 * stack and the optional alarm topic. A finding is fixed or acknowledged, with its reason, in
 * the construct that creates the resource.
 */
describe('AWS Solutions checks (cdk-nag)', () => {
  test('cover every kind of stack the app deploys', () => {
    const stacks = run.app.node.children.filter(Stack.isStack).map((stack) => stack.stackName);
    expect(stacks).toEqual(
      expect.arrayContaining([
        ACCOUNT_STACK_NAME,
        'AnimalStore-staging',
        'AnimalStore-production',
        EDGE_STACK_NAME,
        NAG_ALARM_EMAIL_STACK,
        NAG_DEFAULT_PRODUCTION_STACK,
      ]),
    );
    const paths = run.app.node.findAll().map((construct) => construct.node.path);
    expect(paths).toContain('AnimalStore-production/ProjectAddresses/Domain');
    expect(paths).toContain('AnimalStore-production/Console');
    expect(paths).toContain(`${NAG_ALARM_EMAIL_STACK}/Observability/AlarmTopic`);
    expect(paths).toContain(`${EDGE_STACK_NAME}/Distribution`);
  });

  test('leave no finding unacknowledged', () => {
    // On failure, the list names each rule, resource and problem.
    expect(run.findings).toEqual([]);
  });

  test('let synthesis succeed with the checks registered as a validation plugin, as in bin/', () => {
    expect(run.synthError?.message).toBeUndefined();
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
    const stackPaths = new Set(run.app.node.children.map((child) => child.node.path));
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
function templatesOf(nag: NagRun): { stack: string; file: string; region: string }[] {
  return nag.app.synth().stacks.map((stack) => ({
    stack: stack.stackName,
    file: stack.templateFullPath,
    // The environments' stacks are environment-agnostic: they deploy to production's region.
    region: stack.environment.region === 'unknown-region' ? NAG_PRODUCTION_REGION : stack.environment.region,
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
  const dir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-cfn-lint-'));
  let plantedId: string;
  let findings: CfnLintFinding[];
  let planted: CfnLintFinding[];
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
    // One run with the others of its region: cfn-lint's start-up is much of its cost.
    const all = cfnLint([...templatesOf(run), { file: plantedFile, region: NAG_PRODUCTION_REGION }]);
    findings = all.filter((finding) => finding.stack !== PLANTED);
    planted = all.filter((finding) => finding.stack === PLANTED);
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
