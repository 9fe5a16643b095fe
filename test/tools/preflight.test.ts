import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
  GetTemplateCommand,
  type StackStatus,
} from '@aws-sdk/client-cloudformation';
import {
  AccessDenied,
  CloudFrontClient,
  CreateFunctionCommand,
  DeleteFunctionCommand,
  PreconditionFailed,
} from '@aws-sdk/client-cloudfront';
import {
  GetAccountSettingsCommand,
  LambdaClient,
  LambdaServiceException,
  TooManyRequestsException,
} from '@aws-sdk/client-lambda';
import {
  GetHostedZoneCommand,
  type GetHostedZoneCommandOutput,
  NoSuchHostedZone,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { GetCallerIdentityCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { UsageError } from '../../tools/failures';
import { runPreflight } from '../../tools/preflight';
import { type PreflightClients, preflightAws } from '../../tools/preflight-aws';
import type { DeployPlan } from '../../tools/preflight-plan';
import { type DelegationDns, startDelegationDns } from '../support/delegation-dns';
import { DEVELOPER_NOISE } from './preflight-noise';

/**
 * The preflight against AWS's documented answers (and errors) at the SDK boundary: STS,
 * CloudFormation, Lambda, CloudFront and Route 53 mocked with aws-sdk-client-mock; the
 * delegation check against a real DNS server on loopback.
 */

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const DOMAIN = 'animalstore.example';
const ZONE_ID = 'Z0123456789PLATFORM';
/** A public zone's delegation set, as Route 53 hands them out. */
const ZONE_SERVERS = [
  'ns-1536.awsdns-00.co.uk',
  'ns-0.awsdns-00.com',
  'ns-1024.awsdns-00.org',
  'ns-512.awsdns-00.net',
];
const PROBE_NAME = 'animal-store-preflight-test';
const PLATFORM_CONTEXT = [
  '-c',
  `productionRegion=${REGION}`,
  '-c',
  `platformDomain=${DOMAIN}`,
  '-c',
  `platformHostedZoneId=${ZONE_ID}`,
];

/** Production with the edge, as planDeploy gives it (checked against a real synth in preflight-plan.test.ts). */
function productionPlan(reservedConcurrency?: number): DeployPlan {
  const reserved = reservedConcurrency === undefined ? 0 : reservedConcurrency + 1;
  return {
    stage: 'production',
    region: REGION,
    edge: true,
    platformAddress: { domain: DOMAIN, hostedZoneId: ZONE_ID },
    reservedConcurrencyKey: 'productionReservedConcurrency',
    ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
    stacks: [
      { name: 'AnimalStore-account', region: REGION, bootstrapVersion: 6, reservedConcurrency: 0 },
      { name: 'AnimalStore-edge', region: 'us-east-1', bootstrapVersion: 6, reservedConcurrency: 0 },
      { name: 'AnimalStore-production', region: REGION, bootstrapVersion: 6, reservedConcurrency: reserved },
    ],
  };
}

const stagingPlan: DeployPlan = {
  stage: 'staging',
  region: REGION,
  edge: false,
  reservedConcurrencyKey: 'stagingReservedConcurrency',
  stacks: [
    { name: 'AnimalStore-account', region: REGION, bootstrapVersion: 6, reservedConcurrency: 0 },
    { name: 'AnimalStore-staging', region: REGION, bootstrapVersion: 6, reservedConcurrency: 0 },
  ],
};

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode, requestId: 'b6b5d0a1' } });

/** DescribeStacks for a name without a live stack: a ValidationError (CloudFormation API Reference). */
const noSuchStack = (name: string) =>
  new CloudFormationServiceException({
    name: 'ValidationError',
    $fault: 'client',
    ...meta(400),
    message: `Stack with id ${name} does not exist`,
  });

/** STS's answer to an expired session token (the ExpiredToken error code, 403). */
const expiredToken = () =>
  new STSServiceException({
    name: 'ExpiredToken',
    $fault: 'client',
    ...meta(403),
    message: 'The security token included in the request is expired',
  });

function describedStack(
  name: string,
  region: string,
  status: StackStatus,
  outputs: Record<string, string> = {},
) {
  return {
    Stacks: [
      {
        StackName: name,
        StackId: `arn:aws:cloudformation:${region}:${ACCOUNT}:stack/${name}/5b2a9e40-0b8c-11ef-9c0c-0a1b2c3d4e5f`,
        CreationTime: new Date('2026-11-01T10:00:00Z'),
        StackStatus: status,
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  };
}

/** GetAccountSettings (Lambda API Reference): the region's quota and what is unreserved. */
const accountSettings = (quota: number, unreserved: number) => ({
  AccountLimit: {
    TotalCodeSize: 80530636800,
    CodeSizeUnzipped: 262144000,
    CodeSizeZipped: 52428800,
    ConcurrentExecutions: quota,
    UnreservedConcurrentExecutions: unreserved,
  },
  AccountUsage: { TotalCodeSize: 0, FunctionCount: 0 },
});

/** GetHostedZone (Route 53 API Reference): a public zone has a delegation set, a private one VPCs. */
type HostedZoneAnswer = Omit<GetHostedZoneCommandOutput, '$metadata'>;
const publicZone = (name = DOMAIN) => ({
  HostedZone: {
    Id: `/hostedzone/${ZONE_ID}`,
    Name: `${name}.`,
    CallerReference: 'platform-2026-11-01',
    Config: { PrivateZone: false },
    ResourceRecordSetCount: 2,
  },
  DelegationSet: { NameServers: ZONE_SERVERS },
});
const privateZone: HostedZoneAnswer = {
  HostedZone: { ...publicZone().HostedZone, Config: { PrivateZone: true } },
  VPCs: [{ VPCRegion: REGION, VPCId: 'vpc-0a1b2c3d' }],
};

interface World {
  cfn: Record<string, AwsClientStub<CloudFormationClient>>;
  cloudFront: AwsClientStub<CloudFrontClient>;
  sts: AwsClientStub<STSClient>;
  lambda: Record<string, AwsClientStub<LambdaClient>>;
  route53: AwsClientStub<Route53Client>;
  sdkRegion?: string;
}

let dns: DelegationDns;
let world: World;
const clients = {
  cfn: {
    [REGION]: new CloudFormationClient({ region: REGION }),
    'us-east-1': new CloudFormationClient({ region: 'us-east-1' }),
  } as Record<string, CloudFormationClient>,
  cloudFront: new CloudFrontClient({ region: 'us-east-1' }),
  sts: new STSClient({ region: 'us-east-1' }),
  lambda: {
    [REGION]: new LambdaClient({ region: REGION }),
    'us-east-1': new LambdaClient({ region: 'us-east-1' }),
  } as Record<string, LambdaClient>,
  route53: new Route53Client({ region: 'us-east-1' }),
};

/** The clients above, with the SDK's region as `sdkRegion` answers it. */
const sdk = (sdkRegion: () => Promise<string | undefined>): PreflightClients => ({
  cloudFormation: (region) => clients.cfn[region] as CloudFormationClient,
  cloudFront: () => clients.cloudFront,
  sts: () => clients.sts,
  lambda: (region) => clients.lambda[region] as LambdaClient,
  route53: () => clients.route53,
  sdkRegion,
});

beforeAll(async () => {
  dns = await startDelegationDns();
});
afterAll(async () => {
  await dns.close();
});

/** A bootstrapped, verified, delegated account with nothing deployed yet: every check passes. */
beforeEach(() => {
  dns.clear();
  dns.delegate(DOMAIN, ZONE_SERVERS);
  const cfn = Object.fromEntries(
    Object.entries(clients.cfn).map(([region, client]) => {
      const stub = mockClient(client);
      stub.on(DescribeStacksCommand).callsFake((input: { StackName: string }) => {
        throw noSuchStack(input.StackName);
      });
      stub
        .on(DescribeStacksCommand, { StackName: 'CDKToolkit' })
        .resolves(describedStack('CDKToolkit', region, 'UPDATE_COMPLETE', { BootstrapVersion: '28' }));
      return [region, stub];
    }),
  );
  const cloudFront = mockClient(clients.cloudFront);
  cloudFront.on(CreateFunctionCommand).callsFake((input: { Name: string }) => ({
    ...meta(201),
    Location: `https://cloudfront.amazonaws.com/2020-05-31/function/arn:aws:cloudfront::${ACCOUNT}:function/${input.Name}`,
    ETag: 'ETVPDKIKX0DER',
    FunctionSummary: {
      Name: input.Name,
      Status: 'UNPUBLISHED',
      FunctionConfig: { Comment: 'probe', Runtime: 'cloudfront-js-2.0' },
      FunctionMetadata: {
        FunctionARN: `arn:aws:cloudfront::${ACCOUNT}:function/${input.Name}`,
        Stage: 'DEVELOPMENT',
        CreatedTime: new Date(),
        LastModifiedTime: new Date(),
      },
    },
  }));
  cloudFront.on(DeleteFunctionCommand).resolves(meta(204));
  const sts = mockClient(clients.sts);
  sts.on(GetCallerIdentityCommand).resolves({
    ...meta(200),
    UserId: 'AIDAJQABLZS4A3QDU576Q',
    Account: ACCOUNT,
    Arn: `arn:aws:iam::${ACCOUNT}:user/deployer`,
  });
  const lambda = Object.fromEntries(
    Object.entries(clients.lambda).map(([region, client]) => {
      const stub = mockClient(client);
      stub.on(GetAccountSettingsCommand).resolves(accountSettings(1000, 1000));
      return [region, stub];
    }),
  );
  const route53 = mockClient(clients.route53);
  route53.on(GetHostedZoneCommand, { Id: ZONE_ID }).resolves(publicZone());
  world = { cfn, cloudFront, sts, lambda, route53, sdkRegion: REGION };
});

afterEach(() => {
  for (const stub of [...Object.values(world.cfn), ...Object.values(world.lambda)]) stub.restore();
  world.cloudFront.restore();
  world.sts.restore();
  world.route53.restore();
});

const stubOf = (region: string) => world.cfn[region] as AwsClientStub<CloudFormationClient>;
const lambdaOf = (region: string) => world.lambda[region] as AwsClientStub<LambdaClient>;

interface Run {
  code: number;
  lines: string[];
  /** The line of each check, by `<check> <subject>` (the subject: a region, a stack), or just the check. */
  output: string;
}

async function preflight(args: string[], plan: DeployPlan = productionPlan()): Promise<Run> {
  const lines: string[] = [];
  const aws = preflightAws(sdk(async () => world.sdkRegion));
  const code = await runPreflight(['--resolver', dns.address, ...args], {
    out: (line) => lines.push(line),
    aws,
    plan: () => plan,
    probeName: PROBE_NAME,
  });
  const output = lines.join('\n');
  expect(output).not.toMatch(DEVELOPER_NOISE);
  return { code, lines, output };
}

/** The line of `check` whose summary starts with `subject` (a region, a stack), or its only one. */
function lineOf(run: Run, check: string, subject = ''): string {
  const found = run.lines.filter((line) => new RegExp(`^\\w{4}  ${check} +${subject}`).test(line));
  expect(found).toHaveLength(1);
  return found[0] as string;
}

const PRODUCTION = ['--stage', 'production', ...PLATFORM_CONTEXT];

describe('an account ready for a first deploy', () => {
  it('passes every check, each on one line, and exits 0', async () => {
    const run = await preflight([...PRODUCTION, '--probe']);
    expect(run.code).toBe(0);
    expect(run.lines.slice(0, -1).every((line) => line.startsWith('pass  '))).toBe(true);
    expect(lineOf(run, 'credentials')).toBe(
      `pass  credentials  account ${ACCOUNT} as arn:aws:iam::${ACCOUNT}:user/deployer`,
    );
    expect(lineOf(run, 'region')).toMatch(
      /production deploys to eu-west-1 \(AnimalStore-account, AnimalStore-production\) and us-east-1 \(AnimalStore-edge\)$/,
    );
    expect(lineOf(run, 'bootstrap', 'us-east-1')).toMatch(/CDKToolkit version 28 \(the templates need 6\)$/);
    expect(lineOf(run, 'concurrency', 'eu-west-1')).toMatch(
      /quota 1000, 1000 unreserved; this deploy reserves none; recommended: -c productionReservedConcurrency=10$/,
    );
    expect(lineOf(run, 'cloudfront')).toMatch(
      new RegExp(`may create CloudFront resources \\(created and deleted the function ${PROBE_NAME}\\)$`),
    );
    expect(lineOf(run, 'hosted-zone')).toMatch(`${ZONE_ID} is the public zone of ${DOMAIN}`);
    expect(lineOf(run, 'delegation')).toMatch(`${DOMAIN} is delegated to the zone's name servers`);
    expect(lineOf(run, 'stacks', 'AnimalStore-edge')).toMatch(
      /AnimalStore-edge \(us-east-1\): not deployed yet, the deploy creates it$/,
    );
    expect(run.lines.at(-1)).toBe(
      'Preflight of production: 12 passed, 0 failed, 0 warnings, 0 skipped. Ready to deploy.',
    );
  });

  it('the probe creates a CloudFront Function that does nothing, and deletes it with the ETag it got', async () => {
    await preflight([...PRODUCTION, '--probe']);
    const [create] = world.cloudFront.commandCalls(CreateFunctionCommand);
    const input = create?.args[0].input as { Name: string; FunctionConfig: object; FunctionCode: Uint8Array };
    expect(input.Name).toBe(PROBE_NAME);
    expect(input.FunctionConfig).toEqual(expect.objectContaining({ Runtime: 'cloudfront-js-2.0' }));
    expect(new TextDecoder().decode(input.FunctionCode)).toMatch(/return event\.request/);
    expect(world.cloudFront.commandCalls(DeleteFunctionCommand).map((call) => call.args[0].input)).toEqual([
      { Name: PROBE_NAME, IfMatch: 'ETVPDKIKX0DER' },
    ]);
  });

  it('without --probe creates nothing: CloudFront is a warning with the support step, and the run still passes', async () => {
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(0);
    expect(world.cloudFront.calls()).toHaveLength(0);
    expect(lineOf(run, 'cloudfront')).toMatch(
      /^warn {2}cloudfront +a new account cannot create CloudFront resources until AWS verifies it.*\. Fix: run again with --probe to find out, or open a case with AWS Support/,
    );
  });

  it('staging: no edge, no platform domain; those checks are skipped, and no Route 53 or CloudFront call is made', async () => {
    const run = await preflight(['--stage', 'staging', '--probe'], stagingPlan);
    expect(run.code).toBe(0);
    expect(lineOf(run, 'cloudfront')).toMatch(/^skip .*no edge stack in this deploy/);
    expect(lineOf(run, 'hosted-zone')).toMatch(/^skip .*no platform domain/);
    expect(world.cloudFront.calls()).toHaveLength(0);
    expect(stubOf('us-east-1').calls()).toHaveLength(0);
    expect(world.route53.calls()).toHaveLength(0);
  });
});

describe('each failing check, with its fix; exit 1', () => {
  it('credentials: expired ones fail the first check, and the checks that need them are skipped', async () => {
    world.sts.on(GetCallerIdentityCommand).rejects(expiredToken());
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'credentials')).toMatch(
      /^FAIL {2}credentials +credentials: no usable AWS credentials \(The security token included in the request is expired\)\. Fix: sign in \(aws sso login/,
    );
    expect(lineOf(run, 'bootstrap')).toMatch(/^skip .*needs working credentials$/);
    expect(stubOf(REGION).calls()).toHaveLength(0);
  });

  it('region: none set', async () => {
    delete world.sdkRegion;
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'region')).toMatch(
      /^FAIL {2}region +no AWS region set: the CDK CLI would deploy to us-east-1\. Fix: set AWS_REGION/,
    );
  });

  it("region: the app's own refusal of the configuration, word for word", async () => {
    const lines: string[] = [];
    const refusal =
      'Invalid configuration of environment "production": region is eu-west-1 but this deploy targets us-east-1.';
    const code = await runPreflight(['--stage', 'production'], {
      out: (line) => lines.push(line),
      aws: preflightAws(sdk(async () => 'us-east-1')),
      plan: () => {
        throw new Error(refusal);
      },
    });
    expect(code).toBe(1);
    expect(lines).toContain(
      `FAIL  region       the app refuses this configuration: ${refusal.replace(/\.$/, '')}. Fix: fix the context values as the message says (the same -c values as cdk deploy), then run again`,
    );
  });

  it('bootstrap: a region without CDKToolkit, and one with a version older than the templates need', async () => {
    stubOf('us-east-1')
      .on(DescribeStacksCommand, { StackName: 'CDKToolkit' })
      .rejects(noSuchStack('CDKToolkit'));
    stubOf(REGION)
      .on(DescribeStacksCommand, { StackName: 'CDKToolkit' })
      .resolves(describedStack('CDKToolkit', REGION, 'CREATE_COMPLETE', { BootstrapVersion: '5' }));
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'bootstrap', 'us-east-1')).toBe(
      `FAIL  bootstrap    us-east-1: not bootstrapped (no CDKToolkit stack). Fix: npx cdk bootstrap aws://${ACCOUNT}/us-east-1`,
    );
    expect(lineOf(run, 'bootstrap', REGION)).toBe(
      `FAIL  bootstrap    ${REGION}: CDKToolkit is version 5, the templates need 6. Fix: bootstrap again: npx cdk bootstrap aws://${ACCOUNT}/${REGION}`,
    );
  });

  it('concurrency: a new account quota of 10 cannot hold a reservation; the fix names the flag and the quota', async () => {
    lambdaOf(REGION).on(GetAccountSettingsCommand).resolves(accountSettings(10, 10));
    const run = await preflight(PRODUCTION, productionPlan(10));
    expect(run.code).toBe(1);
    expect(lineOf(run, 'concurrency', REGION)).toBe(
      `FAIL  concurrency  ${REGION}: this deploy reserves 11, but only 0 may be reserved (quota 10, 10 unreserved; Lambda keeps 10 unreserved). ` +
        `Fix: deploy without -c productionReservedConcurrency (nothing reserved), or raise the quota to at least 111 ` +
        `(Service Quotas, AWS Lambda, "Concurrent executions", in ${REGION})`,
    );
  });

  it('concurrency: with nothing reserved the same quota passes, and the recommendation is to leave it off', async () => {
    lambdaOf(REGION).on(GetAccountSettingsCommand).resolves(accountSettings(10, 10));
    const run = await preflight(PRODUCTION);
    expect(lineOf(run, 'concurrency', REGION)).toMatch(
      /^pass .*this deploy reserves none; recommended: leave productionReservedConcurrency unset until the quota is at least 111$/,
    );
  });

  it('concurrency: what a deployed stack reserves already counts as room for its redeploy', async () => {
    // Quota 121: production holds 11 already, so 110 are unreserved; 10 of them above the minimum.
    lambdaOf(REGION).on(GetAccountSettingsCommand).resolves(accountSettings(121, 110));
    stubOf(REGION)
      .on(DescribeStacksCommand, { StackName: 'AnimalStore-production' })
      .resolves(describedStack('AnimalStore-production', REGION, 'UPDATE_COMPLETE'));
    const template = {
      Resources: {
        CatchAll: { Type: 'AWS::Lambda::Function', Properties: { ReservedConcurrentExecutions: 10 } },
        Sweep: { Type: 'AWS::Lambda::Function', Properties: { ReservedConcurrentExecutions: 1 } },
        Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      },
    };
    stubOf(REGION)
      .on(GetTemplateCommand, { StackName: 'AnimalStore-production', TemplateStage: 'Original' })
      .resolves({ TemplateBody: JSON.stringify(template), StagesAvailable: ['Original', 'Processed'] });
    const run = await preflight(PRODUCTION, productionPlan(10));
    expect(run.code).toBe(0);
    expect(lineOf(run, 'concurrency', REGION)).toMatch(
      /this deploy reserves 11 of 21 it may; recommended: -c productionReservedConcurrency=10$/,
    );
  });

  it.each([
    [
      'refused by IAM',
      new LambdaServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        ...meta(403),
        message: `User: arn:aws:iam::${ACCOUNT}:user/deployer is not authorized to perform: lambda:GetAccountSettings because no identity-based policy allows the lambda:GetAccountSettings action`,
      }),
      /^FAIL {2}concurrency +us-east-1: concurrency quota: refused \(User: .* is not authorized to perform: lambda:GetAccountSettings .*\)\. Fix: allow lambda:GetAccountSettings to the credentials you deploy with$/,
    ],
    [
      'throttled',
      new TooManyRequestsException({
        ...meta(429),
        message: 'Rate exceeded',
        Type: 'User',
        Reason: 'CallerRateLimitExceeded',
        retryAfterSeconds: '1',
      }),
      /^FAIL {2}concurrency +us-east-1: concurrency quota: Rate exceeded\. Fix: check the network and the region, then run again$/,
    ],
  ])('concurrency: GetAccountSettings %s in one region fails that region only', async (_, error, line) => {
    lambdaOf('us-east-1').on(GetAccountSettingsCommand).rejects(error);
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'concurrency', 'us-east-1')).toMatch(line);
    expect(lineOf(run, 'concurrency', REGION)).toMatch(/^pass /);
  });

  it('cloudfront: --probe meets the unverified account’s AccessDenied, and says how to get verified', async () => {
    world.cloudFront.on(CreateFunctionCommand).rejects(
      new AccessDenied({
        ...meta(403),
        message:
          'Your account must be verified before you can add new CloudFront resources. To verify your account, please contact AWS Support (https://console.aws.amazon.com/support/home#/) and include this error message.',
      }),
    );
    const run = await preflight([...PRODUCTION, '--probe']);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'cloudfront')).toMatch(
      /^FAIL {2}cloudfront +the account is not verified for CloudFront: Your account must be verified before you can add new CloudFront resources\..*\. Fix: open a case with AWS Support \(Account and billing\) asking to verify the account for CloudFront/,
    );
    expect(world.cloudFront.commandCalls(DeleteFunctionCommand)).toHaveLength(0);
  });

  it('cloudfront: --probe refused by IAM is the probe failing, not the account unverified', async () => {
    world.cloudFront.on(CreateFunctionCommand).rejects(
      new AccessDenied({
        ...meta(403),
        message: `User: arn:aws:iam::${ACCOUNT}:user/deployer is not authorized to perform: cloudfront:CreateFunction`,
      }),
    );
    const run = await preflight([...PRODUCTION, '--probe']);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'cloudfront')).toMatch(
      /^FAIL .*refused \(User: .* is not authorized to perform: cloudfront:CreateFunction\)\. Fix: allow cloudfront:CreateFunction and cloudfront:DeleteFunction/,
    );
  });

  it('cloudfront: a probe function left behind is a warning that says how to delete it', async () => {
    world.cloudFront.on(DeleteFunctionCommand).rejects(
      new PreconditionFailed({
        ...meta(412),
        message: 'The precondition given in one or more of the request header fields evaluated to false.',
      }),
    );
    const run = await preflight([...PRODUCTION, '--probe']);
    expect(run.code).toBe(0);
    expect(lineOf(run, 'cloudfront')).toMatch(
      new RegExp(
        `^warn .*the probe's function ${PROBE_NAME} was not deleted .*Fix: delete it: aws cloudfront describe-function --name ${PROBE_NAME}`,
      ),
    );
  });

  it.each([
    [
      'no such zone',
      (zone: AwsClientStub<Route53Client>) =>
        zone
          .on(GetHostedZoneCommand)
          .rejects(
            new NoSuchHostedZone({ ...meta(404), message: `No hosted zone found with ID: ${ZONE_ID}` }),
          ),
      `no hosted zone ${ZONE_ID} in this account. Fix: create a public hosted zone for ${DOMAIN}`,
    ],
    [
      'a private zone',
      (zone: AwsClientStub<Route53Client>) => zone.on(GetHostedZoneCommand).resolves(privateZone),
      `hosted zone ${ZONE_ID} (${DOMAIN}) is private`,
    ],
    [
      "another domain's zone",
      (zone: AwsClientStub<Route53Client>) =>
        zone.on(GetHostedZoneCommand).resolves(publicZone('other.example')),
      `hosted zone ${ZONE_ID} is for other.example, not ${DOMAIN}`,
    ],
  ])('hosted-zone: %s', async (_, answer, message) => {
    answer(world.route53);
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'hosted-zone')).toContain(`FAIL  hosted-zone  ${message}`);
    expect(lineOf(run, 'delegation')).toMatch(/^skip .*needs the public hosted zone/);
  });

  it('delegation: public DNS has no NS records for the domain', async () => {
    dns.clear();
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'delegation')).toBe(
      `FAIL  delegation   ${DOMAIN} is not delegated: public DNS returns no NS records for it. ` +
        `Fix: at ${DOMAIN}'s registrar (or its parent zone), set its NS records to the zone's: ${[...ZONE_SERVERS].sort().join(', ')}`,
    );
  });

  it("delegation: public DNS returns another zone's name servers (a zone created again, an old registrar's)", async () => {
    dns.delegate(DOMAIN, ['ns1.old-registrar.example', 'ns2.old-registrar.example']);
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'delegation')).toMatch(
      /^FAIL .*is delegated elsewhere: public DNS returns NS ns1\.old-registrar\.example, ns2\.old-registrar\.example\. Fix: at/,
    );
  });

  it('delegation: a lookup that fails says so, and is not taken for an undelegated domain', async () => {
    dns.delegate(DOMAIN, 'servfail');
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    expect(lineOf(run, 'delegation')).toMatch(
      new RegExp(
        `^FAIL .*${DOMAIN}: the NS lookup failed \\(ESERVFAIL\\) at ${dns.address}\\. Fix: check the network`,
      ),
    );
  });

  it.each([
    [
      'ROLLBACK_COMPLETE',
      /its first deploy failed.*Fix: delete it \(aws cloudformation delete-stack --stack-name AnimalStore-production --region eu-west-1\), then deploy again/,
    ],
    ['UPDATE_IN_PROGRESS', /an operation on it is running.*Fix: wait for it to end/],
    [
      'UPDATE_ROLLBACK_FAILED',
      /Fix: aws cloudformation continue-update-rollback --stack-name AnimalStore-production --region eu-west-1/,
    ],
    ['DELETE_FAILED', /Fix: delete it \(aws cloudformation delete-stack .*--retain-resources/],
    ['REVIEW_IN_PROGRESS', /a change set created it and was never executed/],
  ] as const)('stacks: %s', async (status, fix) => {
    stubOf(REGION)
      .on(DescribeStacksCommand, { StackName: 'AnimalStore-production' })
      .resolves(describedStack('AnimalStore-production', REGION, status));
    stubOf(REGION).on(GetTemplateCommand).resolves({ TemplateBody: '{"Resources":{}}' });
    const run = await preflight(PRODUCTION);
    expect(run.code).toBe(1);
    const line = lineOf(run, 'stacks', 'AnimalStore-production');
    expect(line).toMatch(new RegExp(`^FAIL {2}stacks +AnimalStore-production is ${status}`));
    expect(line).toMatch(fix);
  });

  it('stacks: a deployable state passes (UPDATE_ROLLBACK_COMPLETE: the last update was rolled back)', async () => {
    stubOf(REGION)
      .on(DescribeStacksCommand, { StackName: 'AnimalStore-account' })
      .resolves(describedStack('AnimalStore-account', REGION, 'UPDATE_ROLLBACK_COMPLETE'));
    stubOf(REGION).on(GetTemplateCommand).resolves({ TemplateBody: '{"Resources":{}}' });
    const run = await preflight(PRODUCTION);
    expect(lineOf(run, 'stacks', 'AnimalStore-account')).toBe(
      'pass  stacks       AnimalStore-account (eu-west-1): UPDATE_ROLLBACK_COMPLETE',
    );
  });
});

describe('invocation', () => {
  it.each([
    [[], /^preflight needs --stage: npm run preflight -- --stage staging\|production/],
    [['--stage', 'qa'], /^Unknown stage "qa": use staging or production\./],
    [
      ['--stage', 'production', '-c', 'productionRegion'],
      /^-c "productionRegion" is not a context value: use -c KEY=VALUE/,
    ],
    [
      ['--stage', 'production', '--resolver', 'dns.example'],
      /^--resolver "dns\.example" is not a DNS server address/,
    ],
    [['--stage', 'production', 'extra'], /^Unexpected argument "extra"/],
  ])('%j is a wrong invocation', async (args, message) => {
    await expect(runPreflight(args, { out: () => undefined })).rejects.toThrow(UsageError);
    await expect(runPreflight(args, { out: () => undefined })).rejects.toThrow(message);
  });
});
