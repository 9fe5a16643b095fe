// @cloud-copilot/iam-simulate is AGPL-3.0-or-later: it is a devDependency used only by the tests
// (this module and test/lib/iam.test.ts), never bundled into a function or shipped (doc/operations.md).
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import {
  actionDetails,
  IAM_REFERENCE_ADDITIONS as additions,
  type IamReferenceAdditions,
} from './iam-reference';
import type { SentCommand } from './sdk-commands';
import { SELF_SERVICE_PLAN } from '../../lambda/core/self-service-settings';
import { usagePlanName } from '../../lambda/store/api-gateway-names';
import {
  listOf,
  type PolicyDocument,
  resolveIntrinsics,
  SAMPLE_ACCOUNT,
  type StackTemplate,
} from './template-policies';

/**
 * Whether a function's role allows what its code sends: each SDK command's action, on the
 * resources the code uses, and the actions AWS documents that action to need besides
 * (the Service Authorization Reference's dependent actions, and iam-reference-additions.json).
 */

/** The IAM service prefix of each SDK package the functions use. */
export const SDK_SERVICE_PREFIX: Readonly<Record<string, string>> = {
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
  '@aws-sdk/client-cloudfront': 'cloudfront',
  '@aws-sdk/client-acm': 'acm',
  '@aws-sdk/client-secrets-manager': 'secretsmanager',
  '@aws-sdk/client-sesv2': 'ses',
  '@aws-sdk/client-api-gateway': 'apigateway',
};

/**
 * API Gateway's management API is authorized by HTTP method on a resource path, not by operation
 * (API Gateway Developer Guide, "Control access for managing an API": `apigateway:POST` on
 * `/apikeys` creates a key): the action and resource type of each operation the functions send.
 */
export const API_GATEWAY_REQUESTS: Readonly<Record<string, { action: string; resourceType: string }>> = {
  CreateApiKey: { action: 'apigateway:POST', resourceType: 'ApiKeys' },
  CreateUsagePlanKey: { action: 'apigateway:POST', resourceType: 'UsagePlanKeys' },
  DeleteApiKey: { action: 'apigateway:DELETE', resourceType: 'ApiKey' },
  GetApiKeys: { action: 'apigateway:GET', resourceType: 'ApiKeys' },
  GetUsagePlans: { action: 'apigateway:GET', resourceType: 'UsagePlans' },
};

/** Samples of the resources CloudFront and ACM name at run time (a tenant's id, a certificate's ARN). */
const RUN_TIME_SAMPLES: Readonly<Record<string, string>> = {
  'cloudfront:distribution-tenant': `arn:aws:cloudfront::${SAMPLE_ACCOUNT}:distribution-tenant/dt_2a5SampleTenant`,
  // The console's ACM client is in us-east-1, where CloudFront reads certificates (cloudfront-from-environment.ts).
  'acm:certificate': `arn:aws:acm:us-east-1:${SAMPLE_ACCOUNT}:certificate/0d3e6e2f-1c2b-4a5d-8e9f-0123456789ab`,
};

/** An API key's id, as API Gateway assigns one at run time. */
const SAMPLE_API_KEY_ID = 'a1b2c3d4e5';

/** One function as deployed: its environment and its role's identity policies, resolved. */
export interface DeployedFunction {
  /** `stack/construct path`, to name it in a finding. */
  readonly name: string;
  readonly stack: StackTemplate;
  /** The function's environment variables, resolved. */
  readonly environment: Readonly<Record<string, string>>;
  /** The role's ARN (a sample) and its identity policies. */
  readonly roleArn: string;
  readonly policies: readonly PolicyDocument[];
}

/** One request the function's code makes: an action on a resource (one of `anyOf`). */
export interface CodeRequest {
  readonly action: string;
  /** The resources it may name; the role must allow one of them (several: e.g. any of a table's indexes). */
  readonly anyOf: readonly string[];
  /** Why the function makes it: the command and where it is constructed, or the action that needs it. */
  readonly because: string;
}

/**
 * The constructions of the command's owner (a repository) this function's environment allows: one
 * that requires a variable the function lacks throws before it sends anything (`requireEnv`).
 * A command with no owner is always possible.
 */
function possibleConstructions(
  fn: DeployedFunction,
  command: SentCommand,
): (readonly string[])[] | undefined {
  if (command.ownerConstructions.length === 0) return undefined;
  return command.ownerConstructions.filter((required) =>
    required.every((name) => fn.environment[name] !== undefined),
  );
}

/** The name of the table the command's owner is constructed with, if exactly one. */
function tableOf(fn: DeployedFunction, command: SentCommand): string | undefined {
  const tables = new Set(
    (possibleConstructions(fn, command) ?? []).flat().filter((name) => name.endsWith('_TABLE_NAME')),
  );
  return tables.size === 1 ? fn.environment[[...tables][0]!] : undefined;
}

/** A resource the function cannot name in this configuration: the variable that would give it is unset. */
class Unconfigured {
  constructor(readonly variable: string) {}
}

/** The resources of one resource type that a request of `command` names, or a reason there are none. */
function resourcesOf(
  fn: DeployedFunction,
  type: string,
  command: SentCommand | undefined,
): readonly string[] | string | Unconfigured {
  const { region, template } = fn.stack;
  switch (type) {
    case 'dynamodb:table':
    case 'dynamodb:index': {
      const table = command && tableOf(fn, command);
      if (!table) return `no table: ${command?.owner ?? 'its code'} reads no one *_TABLE_NAME variable`;
      const arn = `arn:aws:dynamodb:${region}:${SAMPLE_ACCOUNT}:table/${table}`;
      if (type === 'dynamodb:table') return [arn];
      const indexes = (template.Resources[table]?.Properties?.GlobalSecondaryIndexes ?? []) as {
        IndexName: string;
      }[];
      // A table without indexes is queried on itself (the audit log's partition, issue 28).
      if (indexes.length === 0) return [arn];
      return indexes.map(({ IndexName }) => `${arn}/index/${IndexName}`);
    }
    case 'cloudfront:distribution': {
      const id = fn.environment[RUNTIME_ENV.edgeDistributionId];
      return id
        ? [`arn:aws:cloudfront::${SAMPLE_ACCOUNT}:distribution/${id}`]
        : new Unconfigured(RUNTIME_ENV.edgeDistributionId);
    }
    case 'secretsmanager:Secret': {
      // The origin header's secret, and the console's OpenID client secret (issue 26).
      const names = [RUNTIME_ENV.edgeOriginSecretArn, RUNTIME_ENV.oidcClientSecretArn] as const;
      const arns = names.flatMap((name) => fn.environment[name] ?? []);
      return arns.length > 0 ? arns : new Unconfigured(RUNTIME_ENV.edgeOriginSecretArn);
    }
    case 'ses:identity': {
      // Invitations' email (issue 27): the domain identity of INVITATION_SENDER's domain.
      const sender = fn.environment[RUNTIME_ENV.invitationSender];
      return sender
        ? [`arn:aws:ses:${region}:${SAMPLE_ACCOUNT}:identity/${sender.slice(sender.lastIndexOf('@') + 1)}`]
        : new Unconfigured(RUNTIME_ENV.invitationSender);
    }
    case 'apigateway:ApiKeys':
      return [`arn:aws:apigateway:${region}::/apikeys`];
    case 'apigateway:ApiKey':
      return [`arn:aws:apigateway:${region}::/apikeys/${SAMPLE_API_KEY_ID}`];
    case 'apigateway:UsagePlans':
      return [`arn:aws:apigateway:${region}::/usageplans`];
    case 'apigateway:UsagePlanKeys': {
      // The self-service start's usage plan (issue 27), the Free plan's, which it finds by name.
      const stackName = fn.environment[RUNTIME_ENV.gatewayStackName];
      if (!stackName) return new Unconfigured(RUNTIME_ENV.gatewayStackName);
      const name = usagePlanName(stackName, SELF_SERVICE_PLAN);
      const found = Object.entries(template.Resources).find(
        ([, candidate]) =>
          candidate.Type === 'AWS::ApiGateway::UsagePlan' && candidate.Properties?.UsagePlanName === name,
      );
      if (!found) return `no usage plan named ${name} in the template`;
      const id = String(resolveIntrinsics({ Ref: found[0] }, fn.stack));
      return [`arn:aws:apigateway:${region}::/usageplans/${id}/keys`];
    }
    default:
      return RUN_TIME_SAMPLES[type] ? [RUN_TIME_SAMPLES[type]] : `no way to find its ${type}: add one`;
  }
}

/** The resource types a request of `action` names: those the code's request names, else the required ones, else all. */
async function requestTypes(action: string): Promise<string[]> {
  const details = await actionDetails(action);
  const types = details?.resourceTypes ?? [];
  const named = additions.requestResourceTypes.find((entry) => entry.action === action);
  if (named) return [named.resourceType];
  const required = types.filter((type) => type.required);
  return (required.length > 0 ? required : types).map((type) => type.name);
}

/**
 * The requests a function's commands make: each command's action on each resource type it
 * names, and each action AWS documents it to need. Problems (an unknown service, a resource the
 * test cannot find) come back as findings. A request this configuration cannot make comes back
 * apart (`unconfigured`): its owner requires a variable the function lacks, or its resource is
 * named by one (the authorizer without the edge has no origin secret and no custom domains table).
 * `further` is what AWS's guides add to the reference (a test plants its own).
 */
export async function requestsOf(
  fn: DeployedFunction,
  commands: readonly SentCommand[],
  further: IamReferenceAdditions['furtherActions'] = additions.furtherActions,
): Promise<{ requests: CodeRequest[]; findings: string[]; unconfigured: string[] }> {
  const requests: CodeRequest[] = [];
  const findings: string[] = [];
  const unconfigured: string[] = [];
  const seen = new Set<string>();
  const add = async (
    action: string,
    command: SentCommand | undefined,
    because: string,
    resourceType?: string,
  ): Promise<void> => {
    const [service = ''] = action.split(':');
    const details = await actionDetails(action);
    if (!details) {
      findings.push(`${fn.name}: ${action} (${because}) is no action of the Service Authorization Reference`);
      return;
    }
    const types = resourceType ? [resourceType] : await requestTypes(action);
    const targets =
      types.length === 0
        ? [['*', ['*']] as const]
        : types.map((type) => [type, resourcesOf(fn, `${service}:${type}`, command)] as const);
    for (const [type, resources] of targets) {
      if (resources instanceof Unconfigured) {
        unconfigured.push(`${action} (${because}): ${resources.variable} is unset`);
        continue;
      }
      if (typeof resources === 'string') {
        findings.push(`${fn.name}: ${action} (${because}) on its ${type}: ${resources}`);
        continue;
      }
      const key = `${action} ${resources.join(' ')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      requests.push({ action, anyOf: resources, because });
      const dependents = new Set([
        ...details.dependentActions,
        ...details.resourceTypes
          .filter((entry) => entry.name === type)
          .flatMap((entry) => entry.dependentActions),
        ...further
          .filter((entry) => entry.action === action && entry.resourceType === type)
          .flatMap((entry) => entry.needs),
      ]);
      for (const dependent of dependents) await add(dependent, command, `needed by ${action}`);
    }
  };
  for (const command of commands) {
    const prefix = SDK_SERVICE_PREFIX[command.sdkPackage];
    if (!prefix) {
      findings.push(
        `${fn.name}: ${command.command} of ${command.sdkPackage} (${command.site}) has no IAM service prefix here: add it`,
      );
      continue;
    }
    const because = `${command.command} at ${command.site}`;
    if (possibleConstructions(fn, command)?.length === 0) {
      unconfigured.push(
        `${prefix}:${command.operation} (${because}): ${command.owner} is never constructed here`,
      );
      continue;
    }
    const gatewayRequest = prefix === 'apigateway' ? API_GATEWAY_REQUESTS[command.operation] : undefined;
    if (prefix === 'apigateway' && !gatewayRequest) {
      findings.push(`${fn.name}: ${command.operation} (${because}) has no API Gateway method here: add it`);
      continue;
    }
    if (gatewayRequest) await add(gatewayRequest.action, command, because, gatewayRequest.resourceType);
    else await add(`${prefix}:${command.operation}`, command, because);
  }
  return { requests, findings, unconfigured };
}

/**
 * Whether the function's identity policies allow a request, evaluated by iam-simulate in its
 * Discovery mode: a condition on a request value the code sets (acm:ValidationMethod,
 * dynamodb:Attributes) counts as met, since the request context is not known statically.
 */
export async function allows(
  fn: DeployedFunction,
  action: string,
  resource: string,
): Promise<boolean | string> {
  const result = await runSimulation(
    {
      request: {
        principal: fn.roleArn,
        action,
        resource: { resource, accountId: SAMPLE_ACCOUNT },
        contextVariables: {},
      },
      identityPolicies: fn.policies.map((policy, index) => ({ name: `policy${index}`, policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    { simulationMode: 'Discovery' },
  );
  if (result.resultType === 'error') return JSON.stringify(result.errors);
  return result.overallResult === 'Allowed';
}

/** What the function's code sends that its role does not allow, one finding per request. */
export async function missingPermissions(
  fn: DeployedFunction,
  commands: readonly SentCommand[],
  further?: IamReferenceAdditions['furtherActions'],
): Promise<string[]> {
  const { requests, findings } = await requestsOf(fn, commands, further);
  for (const request of requests) {
    const verdicts = await Promise.all(request.anyOf.map((resource) => allows(fn, request.action, resource)));
    const errors = verdicts.filter((verdict): verdict is string => typeof verdict === 'string');
    if (errors.length > 0)
      findings.push(`${fn.name}: ${request.action} could not be simulated: ${errors.join('; ')}`);
    else if (!verdicts.includes(true)) {
      findings.push(
        `${fn.name}: ${request.action} on ${request.anyOf.join(' or ')} is not allowed (${request.because})`,
      );
    }
  }
  return findings;
}

/** The actions the runtime uses on the function's behalf (logs, traces), from iam-reference-additions.json. */
export const RUNTIME_ACTIONS = new Set(additions.runtimeActions.flatMap((entry) => entry.actions));

/** What the role allows that neither the code's requests nor the runtime need: each action, once. */
export async function unusedGrants(
  fn: DeployedFunction,
  commands: readonly SentCommand[],
): Promise<string[]> {
  const { requests } = await requestsOf(fn, commands);
  const used = new Set([
    ...requests.map((request) => request.action.toLowerCase()),
    ...[...RUNTIME_ACTIONS].map((a) => a.toLowerCase()),
  ]);
  const granted = fn.policies.flatMap((policy) =>
    policy.Statement.filter((statement) => statement.Effect === 'Allow').flatMap((statement) =>
      listOf(statement.Action),
    ),
  );
  return [...new Set(granted)]
    .filter((action) => !used.has(action.toLowerCase()))
    .map((action) => `${fn.name}: ${action} is granted but nothing the code sends needs it`);
}
