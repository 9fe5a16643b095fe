import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, CreateFunctionCommand, DeleteFunctionCommand } from '@aws-sdk/client-cloudfront';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetHostedZoneCommand, NoSuchHostedZone, Route53Client } from '@aws-sdk/client-route-53';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { reason } from './failures';

/**
 * The preflight's AWS side: read-only calls (and, with `--probe`, one create and delete), each
 * answered as plain facts or as an {@link AwsProblem}, never as an exception. Only this module
 * knows the SDK; the diagnosis (preflight-checks.ts) reads what it returns.
 */

/** What went wrong with a call, in the words its fix needs. */
export type AwsProblem =
  /** No credentials, expired ones, or keys AWS does not know. */
  | { readonly kind: 'credentials'; readonly message: string }
  /** The caller may not make the call (IAM, SCP) or the account may not (CloudFront verification). */
  | { readonly kind: 'denied'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

/** A fact, or why it could not be had. */
export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: AwsProblem };

/** STS GetCallerIdentity. */
export interface CallerIdentity {
  readonly account: string;
  readonly arn: string;
}

/** Lambda GetAccountSettings' AccountLimit, in one region. */
export interface ConcurrencyLimit {
  /** The region's quota of concurrent executions. */
  readonly concurrentExecutions: number;
  /** What no function reserves today. */
  readonly unreservedConcurrentExecutions: number;
}

/** A deployed CloudFormation stack, as the checks read it. */
export interface DeployedStack {
  readonly status: string;
  readonly statusReason?: string;
  readonly outputs: Readonly<Record<string, string>>;
}

/** A Route 53 hosted zone (GetHostedZone). */
export interface HostedZone {
  /** Without the trailing dot, lower-case. */
  readonly name: string;
  readonly privateZone: boolean;
  /** The zone's name servers (a public zone's delegation set), lower-case, no trailing dot. */
  readonly nameServers: readonly string[];
}

/** The account's answer to a CloudFront create: allowed, or refused until it is verified. */
export type CloudFrontProbe =
  | { readonly created: true; readonly name: string; readonly deleted: true }
  | { readonly created: true; readonly name: string; readonly deleted: false; readonly deleteProblem: string }
  /** Refused with "Your account must be verified…": AWS Support verifies it. */
  | { readonly created: false; readonly message: string };

/** The calls the preflight makes; each answers an {@link Outcome}. */
export interface PreflightAws {
  callerIdentity(): Promise<Outcome<CallerIdentity>>;
  /** The region the SDK (and so the CDK CLI) targets: AWS_REGION, else the profile's; undefined when none. */
  sdkRegion(): Promise<string | undefined>;
  /** DescribeStacks; undefined when no stack of that name exists there. */
  stack(region: string, name: string): Promise<Outcome<DeployedStack | undefined>>;
  /** Sum of the ReservedConcurrentExecutions of a deployed stack's functions (GetTemplate). */
  deployedReservation(region: string, name: string): Promise<Outcome<number>>;
  concurrency(region: string): Promise<Outcome<ConcurrencyLimit>>;
  /** GetHostedZone; undefined when no zone has that id. */
  hostedZone(id: string): Promise<Outcome<HostedZone | undefined>>;
  /** Creates a CloudFront Function of that name and deletes it (`--probe` only). */
  probeCloudFront(name: string): Promise<Outcome<CloudFrontProbe>>;
  /** Releases the clients. */
  close(): void;
}

/** How to reach AWS: SDK clients, by region where the API is regional. */
export interface PreflightClients {
  readonly cloudFormation: (region: string) => CloudFormationClient;
  /** CloudFront's API is global (us-east-1). */
  readonly cloudFront: () => CloudFrontClient;
  readonly sts: () => STSClient;
  readonly lambda: (region: string) => LambdaClient;
  /** Route 53's API is global (us-east-1). */
  readonly route53: () => Route53Client;
  readonly sdkRegion: () => Promise<string | undefined>;
  readonly close?: () => void;
}

const CREDENTIAL_ERRORS = new Set([
  'CredentialsProviderError',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'TokenRefreshRequired',
]);
const DENIED_ERRORS = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation']);

/** An SDK error as a problem: its kind from the error's code, its words from its message. */
export function problemOf(error: unknown): AwsProblem {
  const name = error instanceof Error ? error.name : '';
  const message = reason(error);
  if (CREDENTIAL_ERRORS.has(name) || /could not load credentials|security token/i.test(message)) {
    return { kind: 'credentials', message };
  }
  if (DENIED_ERRORS.has(name)) return { kind: 'denied', message };
  return { kind: 'failed', message };
}

async function outcome<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  }
}

/** `Name.` → `name`: DNS names compare lower-case, without the root's dot. */
export function dnsName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** CloudFormation's answer to DescribeStacks for a stack name that has no live stack. */
function isMissingStack(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message);
}

type Template = { Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> }> };

/** The ReservedConcurrentExecutions of a template's functions, added up. */
export function reservationOf(template: Template): number {
  return Object.values(template.Resources ?? {})
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .map((resource) => resource.Properties?.ReservedConcurrentExecutions)
    .reduce<number>((sum, value) => sum + (typeof value === 'number' ? value : 0), 0);
}

/** {@link reservationOf} a deployed template's body; 0 for one that is not JSON (the CDK deploys JSON). */
function reservationOfBody(body: string | undefined): number {
  try {
    return reservationOf(JSON.parse(body ?? '{}') as Template);
  } catch {
    return 0;
  }
}

/** A CloudFront Function that returns the request as it came: never associated, never published. */
const PROBE_FUNCTION_CODE = 'function handler(event) { return event.request; }';

/** The words CloudFront's AccessDenied uses for an account it has not verified yet. */
export const UNVERIFIED_ACCOUNT = /account must be verified/i;

/** The {@link PreflightAws} of the given clients. */
export function preflightAws(clients: PreflightClients): PreflightAws {
  return {
    sdkRegion: clients.sdkRegion,
    callerIdentity: () =>
      outcome(async () => {
        const answer = await clients.sts().send(new GetCallerIdentityCommand({}));
        return { account: answer.Account ?? '', arn: answer.Arn ?? '' };
      }),
    stack: (region, name) =>
      outcome(async () => {
        try {
          const answer = await clients
            .cloudFormation(region)
            .send(new DescribeStacksCommand({ StackName: name }));
          const stack = answer.Stacks?.[0];
          if (!stack) return undefined;
          const outputs = Object.fromEntries(
            (stack.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
              OutputKey && OutputValue !== undefined ? [[OutputKey, OutputValue]] : [],
            ),
          );
          return {
            status: stack.StackStatus ?? 'UNKNOWN',
            ...(stack.StackStatusReason ? { statusReason: stack.StackStatusReason } : {}),
            outputs,
          };
        } catch (error) {
          if (isMissingStack(error)) return undefined;
          throw error;
        }
      }),
    deployedReservation: (region, name) =>
      outcome(async () => {
        const answer = await clients
          .cloudFormation(region)
          .send(new GetTemplateCommand({ StackName: name, TemplateStage: 'Original' }));
        return reservationOfBody(answer.TemplateBody);
      }),
    concurrency: (region) =>
      outcome(async () => {
        const { AccountLimit: limit } = await clients.lambda(region).send(new GetAccountSettingsCommand({}));
        return {
          concurrentExecutions: limit?.ConcurrentExecutions ?? 0,
          unreservedConcurrentExecutions: limit?.UnreservedConcurrentExecutions ?? 0,
        };
      }),
    hostedZone: (id) =>
      outcome(async () => {
        try {
          const answer = await clients.route53().send(new GetHostedZoneCommand({ Id: id }));
          return {
            name: dnsName(answer.HostedZone?.Name ?? ''),
            privateZone: answer.HostedZone?.Config?.PrivateZone === true,
            nameServers: (answer.DelegationSet?.NameServers ?? []).map(dnsName),
          };
        } catch (error) {
          if (error instanceof NoSuchHostedZone) return undefined;
          throw error;
        }
      }),
    probeCloudFront: (name) =>
      outcome(async (): Promise<CloudFrontProbe> => {
        const cloudFront = clients.cloudFront();
        let etag: string | undefined;
        try {
          const created = await cloudFront.send(
            new CreateFunctionCommand({
              Name: name,
              FunctionConfig: {
                Comment: 'npm run preflight -- --probe: deleted at once',
                Runtime: 'cloudfront-js-2.0',
              },
              FunctionCode: new TextEncoder().encode(PROBE_FUNCTION_CODE),
            }),
          );
          etag = created.ETag;
        } catch (error) {
          const problem = problemOf(error);
          // Any other refusal (IAM, the network) is the probe's failure, not the account's verdict.
          if (problem.kind === 'denied' && UNVERIFIED_ACCOUNT.test(problem.message)) {
            return { created: false, message: problem.message };
          }
          throw error;
        }
        try {
          await cloudFront.send(new DeleteFunctionCommand({ Name: name, IfMatch: etag }));
          return { created: true, name, deleted: true };
        } catch (error) {
          return { created: true, name, deleted: false, deleteProblem: reason(error) };
        }
      }),
    close: () => clients.close?.(),
  };
}

/**
 * The SDK's clients, with credentials and region from its default chain (AWS_PROFILE,
 * AWS_REGION, ...); one per service and region, made when first asked for.
 */
export function sdkClients(): PreflightClients {
  const made = new Map<string, { destroy(): void }>();
  const once = <T extends { destroy(): void }>(key: string, make: () => T): T => {
    const client = (made.get(key) as T | undefined) ?? make();
    made.set(key, client);
    return client;
  };
  // STS answers in any region; CloudFront's and Route 53's APIs are global, in us-east-1.
  return {
    cloudFormation: (region) => once(`cloudformation ${region}`, () => new CloudFormationClient({ region })),
    cloudFront: () => once('cloudfront', () => new CloudFrontClient({ region: 'us-east-1' })),
    sts: () => once('sts', () => new STSClient({ region: 'us-east-1' })),
    lambda: (region) => once(`lambda ${region}`, () => new LambdaClient({ region })),
    route53: () => once('route53', () => new Route53Client({ region: 'us-east-1' })),
    sdkRegion: async () => {
      const client = new CloudFormationClient({});
      try {
        return await client.config.region();
      } catch {
        return undefined;
      } finally {
        client.destroy();
      }
    },
    close: () => {
      for (const client of made.values()) client.destroy();
    },
  };
}
