import type { DeployPlan, PlannedStack } from './preflight-plan';
import { delegation, hostedZone } from './preflight-domain-checks';
import {
  blocked,
  type CheckLine,
  type CheckSpec,
  fail,
  pass,
  type PreflightFacts,
  problemLine,
  skip,
  warn,
} from './preflight-verdict';
import { stackStateProblem } from './stack-state';

/**
 * The preflight's diagnosis: plain functions from the facts gathered (preflight.ts) to one line
 * per check, each with its fix. No AWS, no DNS, no I/O: every verdict is testable from facts.
 */

/** The CDK's bootstrap stack (default qualifier). */
export const TOOLKIT_STACK = 'CDKToolkit';
/** Lambda keeps this many executions of a region's quota unreserved, or the whole quota below it. */
export const MIN_UNRESERVED_CONCURRENCY = 100;
/** The catch-all's reservation to recommend: enough for its job (lib/config/environments.ts). */
export const RECOMMENDED_RESERVED_CONCURRENCY = 10;
/** What the stale-tenant sweep reserves where the edge serves production (lib/animal-store-stack.ts). */
const SWEEP_RESERVATION = 1;

/** The regions of the plan's stacks, in deploy order, each once. */
export function planRegions(plan: DeployPlan): string[] {
  return [...new Set(plan.stacks.map((stack) => stack.region))];
}

function accountOf(facts: PreflightFacts): string {
  return facts.identity.ok ? facts.identity.value.account : '<account>';
}

function credentials(facts: PreflightFacts) {
  const { identity } = facts;
  if (!identity.ok) return [problemLine('credentials', 'sts:GetCallerIdentity', identity.problem)];
  return [pass(`account ${identity.value.account} as ${identity.value.arn}`)];
}

function regions(facts: PreflightFacts) {
  if (facts.sdkRegion === undefined) {
    return [
      fail(
        'no AWS region set: the CDK CLI would deploy to us-east-1',
        "set AWS_REGION to the region to deploy to (production's, for every stack), e.g. export AWS_REGION=eu-west-1",
      ),
    ];
  }
  const { plan } = facts;
  if (!plan?.ok) {
    return [
      fail(
        `the app refuses this configuration: ${plan?.message ?? 'no plan'}`,
        'fix the context values as the message says (the same -c values as cdk deploy), then run again',
      ),
    ];
  }
  const where = planRegions(plan.value).map((region) => {
    const names = plan.value.stacks.filter((stack) => stack.region === region).map((stack) => stack.name);
    return `${region} (${names.join(', ')})`;
  });
  return [pass(`${facts.stage} deploys to ${where.join(' and ')}`)];
}

function bootstrap(facts: PreflightFacts) {
  const why = blocked(facts);
  if (why || !facts.plan?.ok) return [skip(why ?? 'no plan')];
  const plan = facts.plan.value;
  return planRegions(plan).map((region) => {
    const required = Math.max(
      ...plan.stacks.filter((s) => s.region === region).map((s) => s.bootstrapVersion),
    );
    const command = `npx cdk bootstrap aws://${accountOf(facts)}/${region}`;
    const toolkit = facts.toolkits.get(region);
    if (!toolkit) return skip(`${region}: not looked up`);
    if (!toolkit.ok)
      return problemLine(`${region}: ${TOOLKIT_STACK}`, 'cloudformation:DescribeStacks', toolkit.problem);
    if (!toolkit.value) {
      return fail(`${region}: not bootstrapped (no ${TOOLKIT_STACK} stack)`, command);
    }
    const state = stackStateProblem(TOOLKIT_STACK, region, toolkit.value);
    if (state) return fail(`${region}: ${state.summary}`, `${state.fix} (${command})`);
    const version = Number(toolkit.value.outputs.BootstrapVersion);
    if (!Number.isInteger(version)) {
      return fail(
        `${region}: ${TOOLKIT_STACK} has no BootstrapVersion output`,
        `bootstrap again: ${command}`,
      );
    }
    if (version < required) {
      return fail(
        `${region}: ${TOOLKIT_STACK} is version ${version}, the templates need ${required}`,
        `bootstrap again: ${command}`,
      );
    }
    return pass(`${region}: ${TOOLKIT_STACK} version ${version} (the templates need ${required})`);
  });
}

/** What the plan's stacks in a region already hold: reserved by their deployed templates. */
function heldIn(facts: PreflightFacts, stacks: readonly PlannedStack[]): number {
  return stacks
    .map((stack) => facts.deployedReservations.get(stack.name))
    .reduce((sum, held) => sum + (held?.ok ? held.value : 0), 0);
}

function concurrency(facts: PreflightFacts) {
  const why = blocked(facts);
  if (why || !facts.plan?.ok) return [skip(why ?? 'no plan')];
  const plan = facts.plan.value;
  const key = plan.reservedConcurrencyKey;
  return planRegions(plan).map((region) => {
    const stacks = plan.stacks.filter((stack) => stack.region === region);
    const limit = facts.concurrency.get(region);
    if (!limit) return skip(`${region}: not looked up`);
    if (!limit.ok)
      return problemLine(`${region}: concurrency quota`, 'lambda:GetAccountSettings', limit.problem);
    const quota = limit.value.concurrentExecutions;
    const minimum = Math.min(MIN_UNRESERVED_CONCURRENCY, quota);
    // What this deploy may reserve: what is unreserved above the minimum, and what its stacks hold already.
    const held = heldIn(facts, stacks);
    const room = Math.max(0, limit.value.unreservedConcurrentExecutions - minimum + held);
    // The quota that fits `reserve`: Lambda's minimum (100 from there on), other functions' reservations, and it.
    const others = Math.max(0, quota - limit.value.unreservedConcurrentExecutions - held);
    const quotaFor = (reserve: number) => MIN_UNRESERVED_CONCURRENCY + others + reserve;
    const planned = stacks.reduce((sum, stack) => sum + stack.reservedConcurrency, 0);
    const seen = `quota ${quota}, ${limit.value.unreservedConcurrentExecutions} unreserved`;
    // The environment's own region gets the recommendation; the edge's reserves nothing.
    const ownRegion = region === plan.region;
    const wanted = RECOMMENDED_RESERVED_CONCURRENCY + (plan.edge ? SWEEP_RESERVATION : 0);
    if (planned > room) {
      return fail(
        `${region}: this deploy reserves ${planned}, but only ${room} may be reserved (${seen}; Lambda keeps ${minimum} unreserved)`,
        `deploy without -c ${key} (nothing reserved), or raise the quota to at least ${quotaFor(planned)} ` +
          `(Service Quotas, AWS Lambda, "Concurrent executions", in ${region})`,
      );
    }
    const reserves =
      planned === 0 ? 'this deploy reserves none' : `this deploy reserves ${planned} of ${room} it may`;
    if (!ownRegion) return pass(`${region}: ${seen}; ${reserves}`);
    const recommendation =
      room >= wanted
        ? `recommended: -c ${key}=${RECOMMENDED_RESERVED_CONCURRENCY}`
        : `recommended: leave ${key} unset until the quota is at least ${quotaFor(wanted)}`;
    return pass(`${region}: ${seen}; ${reserves}; ${recommendation}`);
  });
}

const SUPPORT_STEP =
  'open a case with AWS Support (Account and billing) asking to verify the account for CloudFront, ' +
  'quoting "Your account must be verified before you can add new CloudFront resources", and deploy the edge stack once they answer';

function cloudFront(facts: PreflightFacts) {
  const why = blocked(facts);
  if (why || !facts.plan?.ok) return [skip(why ?? 'no plan')];
  if (!facts.plan.value.edge) {
    return [
      skip(
        'no edge stack in this deploy (production with platformDomain, platformHostedZoneId and productionRegion)',
      ),
    ];
  }
  const probe = facts.cloudFront;
  if (!facts.probe || !probe) {
    return [
      warn(
        'a new account cannot create CloudFront resources until AWS verifies it, and only a create call tells',
        `run again with --probe to find out, or ${SUPPORT_STEP}`,
      ),
    ];
  }
  if (!probe.ok) {
    return [
      problemLine(
        'probe (create a CloudFront Function)',
        'cloudfront:CreateFunction and cloudfront:DeleteFunction',
        probe.problem,
      ),
    ];
  }
  const result = probe.value;
  if (!result.created)
    return [fail(`the account is not verified for CloudFront: ${result.message}`, SUPPORT_STEP)];
  if (!result.deleted) {
    return [
      warn(
        `the account may create CloudFront resources, but the probe's function ${result.name} was not deleted (${result.deleteProblem})`,
        `delete it: aws cloudfront describe-function --name ${result.name} (its ETag), then aws cloudfront delete-function --name ${result.name} --if-match <ETag>`,
      ),
    ];
  }
  return [
    pass(`the account may create CloudFront resources (created and deleted the function ${result.name})`),
  ];
}

function stacks(facts: PreflightFacts) {
  const why = blocked(facts);
  if (why || !facts.plan?.ok) return [skip(why ?? 'no plan')];
  return facts.plan.value.stacks.map((planned) => {
    const { name, region } = planned;
    const deployed = facts.stacks.get(name);
    if (!deployed) return skip(`${name}: not looked up`);
    if (!deployed.ok)
      return problemLine(`${name} (${region})`, 'cloudformation:DescribeStacks', deployed.problem);
    if (!deployed.value) return pass(`${name} (${region}): not deployed yet, the deploy creates it`);
    const problem = stackStateProblem(name, region, deployed.value);
    if (problem) return fail(`${problem.summary} (${region})`, problem.fix);
    return pass(`${name} (${region}): ${deployed.value.status}`);
  });
}

/** The checks, in the order they print. */
export const CHECKS: readonly CheckSpec[] = [
  {
    name: 'credentials',
    description: 'the AWS credentials work, and whose they are (STS)',
    diagnose: credentials,
  },
  {
    name: 'region',
    description: "the region is set, and the app accepts the configuration (production's region, -c values)",
    diagnose: regions,
  },
  {
    name: 'bootstrap',
    description: 'CDKToolkit in every region of the deploy, at the version the templates need',
    diagnose: bootstrap,
  },
  {
    name: 'concurrency',
    description: 'the Lambda quota of each region leaves room for what the stacks reserve; a value to use',
    diagnose: concurrency,
  },
  {
    name: 'cloudfront',
    description: 'the account may create CloudFront resources (with --probe; a warning without)',
    diagnose: cloudFront,
  },
  {
    name: 'hosted-zone',
    description: "the platform domain's hosted zone exists and is public (Route 53)",
    diagnose: hostedZone,
  },
  {
    name: 'delegation',
    description: "public DNS returns the zone's name servers for the platform domain",
    diagnose: delegation,
  },
  {
    name: 'stacks',
    description: "the deploy's stacks that exist are in a state a deploy can update",
    diagnose: stacks,
  },
];

/** Every check's lines, in order. */
export function diagnose(facts: PreflightFacts): CheckLine[] {
  return CHECKS.flatMap((check) => check.diagnose(facts).map((line) => ({ check: check.name, ...line })));
}

/** A failing line fails the run; a warning does not (it says what the preflight cannot see). */
export function passed(lines: readonly CheckLine[]): boolean {
  return lines.every((line) => line.status !== 'fail');
}
