import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENVIRONMENT_NAMES, type EnvironmentName, environmentConfigs } from '../lib/config/environments';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { ApiGatewayKeys } from './api-gateway-keys';
import { reason, UsageError } from './failures';

/** The stack output that names the keys table (lib/animal-store-stack.ts). */
export const API_KEYS_TABLE_OUTPUT = 'ApiKeysTableName';

/** Clients to use instead of the default ones (tests); the caller keeps ownership of them. */
export interface StageClients {
  readonly cloudFormation?: CloudFormationClient;
  readonly apiGateway?: APIGatewayClient;
  readonly documents?: DynamoDBDocumentClient;
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
  if (name === 'ValidationError' && /does not exist/.test(message)) {
    return `Stack ${stackName} does not exist in this account and region: deploy it, or set AWS_REGION / AWS_PROFILE to where it is.`;
  }
  return `Could not read stack ${stackName}: ${reason(error)}`;
}

/**
 * Connects to a deployed environment: its stack name from the environment
 * configuration, its keys table from the stack's outputs, its gateway by the
 * stack's usage plan names. Region and credentials come from the SDK's default chain.
 */
export async function connectStage(
  stage: EnvironmentName,
  clients: StageClients = {},
): Promise<StageConnection> {
  const { stackName } = environmentConfigs()[stage];
  const made: { destroy(): void }[] = [];
  const cloudFormation = clients.cloudFormation ?? new CloudFormationClient({});
  if (!clients.cloudFormation) made.push(cloudFormation);
  const close = () => {
    for (const client of made) client.destroy();
  };
  try {
    const described = await cloudFormation
      .send(new DescribeStacksCommand({ StackName: stackName }))
      .catch((error: unknown) => {
        throw new Error(awsProblem(error, stackName));
      });
    const outputs = described.Stacks?.[0]?.Outputs ?? [];
    const tableName = outputs.find((output) => output.OutputKey === API_KEYS_TABLE_OUTPUT)?.OutputValue;
    if (!tableName) {
      throw new Error(
        `Stack ${stackName} has no output ${API_KEYS_TABLE_OUTPUT}: deploy the current version of it.`,
      );
    }
    // No endpoint: the real DynamoDB of the SDK's region, whatever DYNAMODB_ENDPOINT says.
    const documents = clients.documents ?? createDocumentClient();
    const apiGateway = clients.apiGateway ?? new APIGatewayClient({});
    if (!clients.documents) made.push(documents);
    if (!clients.apiGateway) made.push(apiGateway);
    return {
      stackName,
      tableName,
      keys: new ApiKeyRepository(documents, tableName),
      gateway: new ApiGatewayKeys(apiGateway, stackName),
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
