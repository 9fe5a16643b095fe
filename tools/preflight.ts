import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { ENVIRONMENT_NAMES, type EnvironmentName } from '../lib/config/environments';
import { parseSimpleCommandLine, runToolMain, type SimpleToolSpec } from './cli';
import { parseResolverAddress } from './domains-dns';
import { reason, UsageError } from './failures';
import { dnsName, type Outcome, type PreflightAws, preflightAws, sdkClients } from './preflight-aws';
import { CHECKS, diagnose, passed, planRegions, TOOLKIT_STACK } from './preflight-checks';
import { type DeployPlan, planDeploy } from './preflight-plan';
import type { CheckLine, DnsOutcome, PreflightFacts } from './preflight-verdict';
import { parseStage } from './stage';

/**
 * `npm run preflight -- --stage <env>`: before a deploy, checks what stands between `cdk deploy`
 * and a working stage, one line per check with its fix. It gathers the facts (AWS calls, all
 * read-only but `--probe`'s; DNS lookups; the app's own synth), hands them to the diagnosis
 * (preflight-checks.ts), and prints its lines. Exit 0 only when no check fails.
 */

const OPTIONS = {
  stage: {
    type: 'string',
    value: 'NAME',
    description: `The environment to deploy: ${ENVIRONMENT_NAMES.join(' or ')} (required).`,
  },
  context: {
    type: 'string',
    short: 'c',
    multiple: true,
    value: 'KEY=VALUE',
    description: [
      'A context value, as cdk deploy takes it (any number): productionRegion, platformDomain,',
      'platformHostedZoneId, <stage>ReservedConcurrency, ... Pass the ones you deploy with.',
    ].join('\n'),
  },
  probe: {
    type: 'boolean',
    description: [
      'Tell whether the account may create CloudFront resources by creating a CloudFront',
      'Function (free: never published or associated) and deleting it at once. Needs',
      'cloudfront:CreateFunction and cloudfront:DeleteFunction. Without it, nothing is created.',
    ].join('\n'),
  },
  resolver: {
    type: 'string',
    value: 'ADDRESS',
    description: "DNS server for the platform domain's NS lookup (e.g. 1.1.1.1); the system's by default.",
  },
} as const;

export const PREFLIGHT_TOOL: SimpleToolSpec<typeof OPTIONS> = {
  name: 'preflight',
  options: OPTIONS,
  summary: [
    'Check an AWS account and its configuration before cdk deploy, one line per check with',
    'its fix. Read-only (but --probe), with the credentials and region of the SDK (AWS_PROFILE,',
    'AWS_REGION, ...), as the CDK CLI uses them. The checks:',
    ...CHECKS.map((check) => `  ${check.name.padEnd(12)} ${check.description}`),
  ].join('\n'),
  epilogue: [
    'Example: npm run preflight -- --stage production -c productionRegion=eu-west-1 \\',
    '           -c platformDomain=animalstore.example -c platformHostedZoneId=Z0123456789PLATFORM',
    '',
    'Exit codes: 0 every check passed (warnings say what it cannot see); 1 a check failed; 2 wrong invocation.',
  ].join('\n'),
};

/** What the preflight acts with besides its command line: tests pass their own. */
export interface PreflightIo {
  readonly out: (line: string) => void;
  /** @default the SDK's clients, from its default chain */
  readonly aws?: PreflightAws;
  /** @default synthesizes the app (preflight-plan.ts) */
  readonly plan?: typeof planDeploy;
  /** The name of the `--probe` function. @default `animal-store-preflight-<random>` */
  readonly probeName?: string;
}

/** `KEY=VALUE` pairs as a context; a pair without `=` or key is a wrong invocation. */
export function parseContext(pairs: readonly string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([A-Za-z][\w:.@/-]*)=(.*)$/s.exec(pair);
    if (!match) {
      throw new UsageError(
        `-c ${JSON.stringify(pair)} is not a context value: use -c KEY=VALUE, e.g. -c productionRegion=eu-west-1.`,
      );
    }
    context[match[1] as string] = match[2] as string;
  }
  return context;
}

/** The NS records public DNS (or `server`) returns for `domain`: none when it has none. */
export async function publicNameServers(domain: string, server?: string): Promise<DnsOutcome> {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (server) resolver.setServers([server]);
  try {
    return { ok: true, value: (await resolver.resolveNs(domain)).map(dnsName) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (['ENODATA', 'ENOTFOUND', 'NXDOMAIN'].includes(code)) return { ok: true, value: [] };
    return {
      ok: false,
      message: `the NS lookup failed (${code || reason(error)}) at ${server ?? 'the system resolver'}`,
    };
  }
}

/** Looks `lookup` up once per key, all at once. */
async function byKey<T>(
  keys: readonly string[],
  lookup: (key: string) => Promise<T>,
): Promise<Map<string, T>> {
  return new Map(await Promise.all(keys.map(async (key) => [key, await lookup(key)] as const)));
}

/** Everything the checks read. AWS calls are skipped when the credentials are refused, or there is no plan. */
export async function gatherFacts(
  options: { stage: EnvironmentName; context: Record<string, string>; probe: boolean; resolver?: string },
  aws: PreflightAws,
  plan: typeof planDeploy,
  probeName: string,
): Promise<PreflightFacts> {
  const [identity, sdkRegion] = await Promise.all([aws.callerIdentity(), aws.sdkRegion()]);
  const base = { stage: options.stage, probe: options.probe, identity, ...(sdkRegion ? { sdkRegion } : {}) };
  const none = {
    toolkits: new Map(),
    concurrency: new Map(),
    stacks: new Map(),
    deployedReservations: new Map(),
  };
  if (!sdkRegion) return { ...base, ...none };
  let deployPlan: DeployPlan;
  try {
    const account = identity.ok ? identity.value.account : undefined;
    deployPlan = plan(options.stage, options.context, { account, region: sdkRegion });
  } catch (error) {
    return { ...base, plan: { ok: false, message: reason(error) }, ...none };
  }
  const planned = { ...base, plan: { ok: true, value: deployPlan } as const };
  const address = deployPlan.platformAddress;
  const dns = address ? publicNameServers(address.domain, options.resolver) : undefined;
  if (!identity.ok && identity.problem.kind === 'credentials') {
    return { ...planned, ...none, ...(dns ? { publicNameServers: await dns } : {}) };
  }
  const regions = planRegions(deployPlan);
  const regionOf = new Map(deployPlan.stacks.map((stack) => [stack.name, stack.region]));
  const [toolkits, concurrency, stacks, hostedZone, publicServers, cloudFront] = await Promise.all([
    byKey(regions, (region) => aws.stack(region, TOOLKIT_STACK)),
    byKey(regions, (region) => aws.concurrency(region)),
    byKey([...regionOf.keys()], (name) => aws.stack(regionOf.get(name) as string, name)),
    address ? aws.hostedZone(address.hostedZoneId) : undefined,
    dns,
    options.probe && deployPlan.edge ? aws.probeCloudFront(probeName) : undefined,
  ]);
  const deployed = [...stacks].flatMap(([name, stack]) => (stack.ok && stack.value ? [name] : []));
  const deployedReservations: Map<string, Outcome<number>> = await byKey(deployed, (name) =>
    aws.deployedReservation(regionOf.get(name) as string, name),
  );
  return {
    ...planned,
    toolkits,
    concurrency,
    stacks,
    deployedReservations,
    ...(hostedZone ? { hostedZone } : {}),
    ...(publicServers ? { publicNameServers: publicServers } : {}),
    ...(cloudFront ? { cloudFront } : {}),
  };
}

const MARKS: Record<CheckLine['status'], string> = { pass: 'pass', fail: 'FAIL', warn: 'warn', skip: 'skip' };
const CHECK_COLUMN = Math.max(...CHECKS.map((check) => check.name.length));

/** One line of the report: the verdict, the check, what it saw, and the fix. */
export function renderLine(line: CheckLine): string {
  const fix = line.fix ? `. Fix: ${line.fix}` : '';
  return `${MARKS[line.status]}  ${line.check.padEnd(CHECK_COLUMN)}  ${line.summary.replace(/\.$/, '')}${fix}`;
}

/** The last line: how many of each, and what to do next. */
export function renderSummary(stage: EnvironmentName, lines: readonly CheckLine[]): string {
  const count = (status: CheckLine['status']) => lines.filter((line) => line.status === status).length;
  const tally = `${count('pass')} passed, ${count('fail')} failed, ${count('warn')} warning${count('warn') === 1 ? '' : 's'}, ${count('skip')} skipped`;
  return passed(lines)
    ? `Preflight of ${stage}: ${tally}. Ready to deploy.`
    : `Preflight of ${stage}: ${tally}. Fix what failed, then run it again.`;
}

/** Runs the preflight; resolves to its exit code. Throws {@link UsageError} for a wrong invocation. */
export async function runPreflight(argv: readonly string[], io: PreflightIo): Promise<number> {
  const line = parseSimpleCommandLine(PREFLIGHT_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return 0;
  }
  const { values } = line;
  if (values.stage === undefined) {
    throw new UsageError(
      `preflight needs --stage: npm run preflight -- --stage ${ENVIRONMENT_NAMES.join('|')} [-c KEY=VALUE ...]\nHelp: npm run preflight -- --help`,
    );
  }
  const stage = parseStage(values.stage);
  const context = parseContext(values.context ?? []);
  const resolver = values.resolver === undefined ? undefined : parseResolverAddress(values.resolver);
  const aws = io.aws ?? preflightAws(sdkClients());
  try {
    const facts = await gatherFacts(
      { stage, context, probe: values.probe === true, ...(resolver ? { resolver } : {}) },
      aws,
      io.plan ?? planDeploy,
      io.probeName ?? `animal-store-preflight-${randomBytes(6).toString('hex')}`,
    );
    const lines = diagnose(facts);
    for (const checkLine of lines) io.out(renderLine(checkLine));
    io.out(renderSummary(stage, lines));
    return passed(lines) ? 0 : 1;
  } finally {
    if (!io.aws) aws.close();
  }
}

if (require.main === module) {
  runToolMain(PREFLIGHT_TOOL, (argv) => runPreflight(argv, { out: (text) => console.log(text) }));
}
