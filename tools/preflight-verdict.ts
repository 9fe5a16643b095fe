import type { EnvironmentName } from '../lib/config/environments';
import type {
  AwsProblem,
  CallerIdentity,
  CloudFrontProbe,
  ConcurrencyLimit,
  DeployedStack,
  HostedZone,
  Outcome,
} from './preflight-aws';
import type { DeployPlan } from './preflight-plan';

/**
 * What every preflight check shares: the facts it reads, the line it gives, and how a line is
 * made (preflight-checks.ts declares the checks).
 */

/** A DNS answer, or why there was none. */
export type DnsOutcome =
  { readonly ok: true; readonly value: readonly string[] } | { readonly ok: false; readonly message: string };

/** Everything the checks read, gathered before any is diagnosed. */
export interface PreflightFacts {
  readonly stage: EnvironmentName;
  readonly probe: boolean;
  readonly identity: Outcome<CallerIdentity>;
  /** The region the SDK, and so the CDK CLI, targets; undefined when none is set. */
  readonly sdkRegion?: string;
  /** The deploy's plan, or the configuration's message; undefined without a region to plan in. */
  readonly plan?:
    { readonly ok: true; readonly value: DeployPlan } | { readonly ok: false; readonly message: string };
  /** CDKToolkit, by region. */
  readonly toolkits: ReadonlyMap<string, Outcome<DeployedStack | undefined>>;
  /** GetAccountSettings, by region. */
  readonly concurrency: ReadonlyMap<string, Outcome<ConcurrencyLimit>>;
  /** The plan's stacks as deployed, by name. */
  readonly stacks: ReadonlyMap<string, Outcome<DeployedStack | undefined>>;
  /** What the deployed stacks reserve already, by name (deployed ones only). */
  readonly deployedReservations: ReadonlyMap<string, Outcome<number>>;
  readonly hostedZone?: Outcome<HostedZone | undefined>;
  /** The NS records public DNS returns for the platform domain. */
  readonly publicNameServers?: DnsOutcome;
  /** `--probe` only. */
  readonly cloudFront?: Outcome<CloudFrontProbe>;
}

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/** One line of the report: a check's verdict on one thing, with the fix when it is not a pass. */
export interface CheckLine {
  readonly check: string;
  readonly status: CheckStatus;
  readonly summary: string;
  readonly fix?: string;
}

/** A check, declared once: its name, what it looks at (for usage), and its diagnosis. */
export interface CheckSpec {
  readonly name: string;
  readonly description: string;
  readonly diagnose: (facts: PreflightFacts) => readonly Omit<CheckLine, 'check'>[];
}

export const pass = (summary: string) => ({ status: 'pass', summary }) as const;
export const fail = (summary: string, fix: string) => ({ status: 'fail', summary, fix }) as const;
export const warn = (summary: string, fix: string) => ({ status: 'warn', summary, fix }) as const;
export const skip = (summary: string) => ({ status: 'skip', summary }) as const;

const SIGN_IN =
  'sign in (aws sso login, or AWS_PROFILE=<profile>), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then run again';

/** A call's failure as a line: what failed, and the fix its kind needs. */
export function problemLine(what: string, action: string, problem: AwsProblem) {
  switch (problem.kind) {
    case 'credentials':
      return fail(`${what}: no usable AWS credentials (${problem.message})`, SIGN_IN);
    case 'denied':
      return fail(
        `${what}: refused (${problem.message})`,
        `allow ${action} to the credentials you deploy with`,
      );
    case 'failed':
      return fail(`${what}: ${problem.message}`, 'check the network and the region, then run again');
  }
}

/** Why the AWS checks cannot run: no credentials, or no plan. */
export function blocked(facts: PreflightFacts): string | undefined {
  if (!facts.identity.ok && facts.identity.problem.kind === 'credentials') return 'needs working credentials';
  if (!facts.plan?.ok) return 'needs a deploy plan (see the region check)';
  return undefined;
}
