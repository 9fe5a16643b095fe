import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENVIRONMENT_NAMES, type EnvironmentName, environmentConfigs } from '../lib/config/environments';
import { STACK_OUTPUTS, type StackOutputName } from '../lib/animal-store-stack';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { ApiGatewayKeys } from './api-gateway-keys';
import { reason, UsageError } from './failures';

/** Clients to use instead of the default ones (tests); the caller keeps ownership of them. */
export interface StageClients {
  readonly cloudFormation?: CloudFormationClient;
  readonly apiGateway?: APIGatewayClient;
  readonly documents?: DynamoDBDocumentClient;
}

/** A table of a deployed environment, found by name in an output of the environment's stack. */
export interface StageTable {
  /** The environment's stack, e.g. `AnimalStore-production`. */
  readonly stackName: string;
  readonly tableName: string;
  /** The client that read the stack, for further questions to CloudFormation. */
  readonly cloudFormation: CloudFormationClient;
  /** A client of the real DynamoDB of the SDK's region. */
  readonly documents: DynamoDBDocumentClient;
  /** Releases the clients this connection made. */
  close(): void;
}

/** The keys table and gateway of a deployed environment. */
export interface StageConnection {
  readonly stackName: string;
  readonly tableName: string;
  readonly keys: ApiKeyRepository;
  readonly gateway: ApiGatewayKeys;
  /** Releases the clients this connection made. */
  close(): void;
}

export function parseStage(value: string): EnvironmentName {
  if (!(ENVIRONMENT_NAMES as readonly string[]).includes(value)) {
    throw new UsageError(`Unknown stage ${JSON.stringify(value)}: use ${ENVIRONMENT_NAMES.join(' or ')}.`);
  }
  return value as EnvironmentName;
}

/** CloudFormation's answer to DescribeStacks for a stack name that has no live stack. */
function isMissingStack(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message);
}

function missingStack(stackName: string): string {
  return `Stack ${stackName} does not exist in this account and region: deploy it, or set AWS_REGION / AWS_PROFILE to where it is.`;
}

/** Says what is wrong with the AWS setup in words an operator can act on. */
function awsProblem(error: unknown, stackName: string): string {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'CredentialsProviderError' || /credential/i.test(message)) {
    return (
      `No usable AWS credentials to reach ${stackName}: sign in (aws sso login / AWS_PROFILE) ` +
      `or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (${reason(error)}).`
    );
  }
  if (/region is missing/i.test(message)) {
    return `No AWS region to find ${stackName} in: set AWS_REGION (or a region in your AWS profile).`;
  }
  return `Could not read stack ${stackName}: ${reason(error)}`;
}

/**
 * Describes a stack; undefined when no stack of that name exists in the account and
 * region. Any other failure (credentials, region, access) becomes one line saying what to fix.
 */
export async function findStack(
  cloudFormation: CloudFormationClient,
  stackName: string,
): Promise<Stack | undefined> {
  try {
    const described = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    return described.Stacks?.[0];
  } catch (error) {
    if (isMissingStack(error)) return undefined;
    throw new Error(awsProblem(error, stackName));
  }
}

/**
 * Connects to a table of a deployed environment: the stack name comes from the
 * environment configuration, the table name from the stack's output `output`. Region
 * and credentials come from the SDK's default chain.
 */
export async function connectStageTable(
  stage: EnvironmentName,
  output: StackOutputName,
  clients: StageClients = {},
): Promise<StageTable> {
  const { stackName } = environmentConfigs()[stage];
  const cloudFormation = clients.cloudFormation ?? new CloudFormationClient({});
  const closeCloudFormation = () => {
    if (!clients.cloudFormation) cloudFormation.destroy();
  };
  try {
    const stack = await findStack(cloudFormation, stackName);
    if (!stack) throw new Error(missingStack(stackName));
    const tableName = stack.Outputs?.find((candidate) => candidate.OutputKey === output)?.OutputValue;
    if (!tableName) {
      throw new Error(`Stack ${stackName} has no output ${output}: deploy the current version of it.`);
    }
    // No endpoint: the real DynamoDB of the SDK's region, whatever DYNAMODB_ENDPOINT says.
    const documents = clients.documents ?? createDocumentClient();
    return {
      stackName,
      tableName,
      cloudFormation,
      documents,
      close: () => {
        if (!clients.documents) documents.destroy();
        closeCloudFormation();
      },
    };
  } catch (error) {
    closeCloudFormation();
    throw error;
  }
}

/**
 * Connects to the keys of a deployed environment: its keys table from the stack's
 * outputs, its gateway by the stack's usage plan names.
 */
export async function connectStage(
  stage: EnvironmentName,
  clients: StageClients = {},
): Promise<StageConnection> {
  const table = await connectStageTable(stage, STACK_OUTPUTS.apiKeysTable, clients);
  const apiGateway = clients.apiGateway ?? new APIGatewayClient({});
  return {
    stackName: table.stackName,
    tableName: table.tableName,
    keys: new ApiKeyRepository(table.documents, table.tableName),
    gateway: new ApiGatewayKeys(apiGateway, table.stackName),
    close: () => {
      if (!clients.apiGateway) apiGateway.destroy();
      table.close();
    },
  };
}
