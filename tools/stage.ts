import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENVIRONMENT_NAMES, type EnvironmentName, environmentConfigs } from '../lib/config/environments';
import { STACK_OUTPUTS, type StackOutputName } from '../lib/animal-store-stack';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { CustomDomainRepository } from '../lambda/store/custom-domain-repository';
import { InvitationRepository } from '../lambda/store/invitation-repository';
import { MemberRepository } from '../lambda/store/member-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { stackProjectKeys } from './api-gateway-keys';
import type { ToolConnection } from './connection';
import { reason, UsageError } from './failures';
import type { ProjectGateway } from './project-admin';

/** Clients to use instead of the default ones (tests); the caller keeps ownership of them. */
export interface StageClients {
  readonly cloudFormation?: CloudFormationClient;
  readonly apiGateway?: APIGatewayClient;
  readonly documents?: DynamoDBDocumentClient;
}

/** What a command of the projects tool reads and writes besides its options: local or `--stage`. */
export interface SubcommandIo {
  readonly out: (line: string) => void;
  /** The local store; by default where npm start runs it. */
  readonly endpoint?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly stageClients?: StageClients;
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

/** A deployed environment as the keys and projects tools see it. */
export interface StageConnection extends ToolConnection {
  readonly stackName: string;
  /** The keys table's name (from the stack's outputs). */
  readonly tableName: string;
  readonly gateway: ProjectGateway;
  readonly waitForKeyCaches: () => Promise<void>;
}

/** How to connect to a stage besides its clients (tests). */
export interface StageOptions {
  /** @default waits the environment's authorizer key-cache time, plus {@link KEY_CACHE_MARGIN_MS} */
  readonly waitForKeyCaches?: () => Promise<void>;
}

/** Added to the authorizer's key-cache time: a request authorized just before it ran out still reaches the gateway after. */
export const KEY_CACHE_MARGIN_MS = 5_000;

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
 * Connects to a deployed environment: its keys, projects, pets and domain state tables
 * from the stack's outputs, its gateway by the stack's usage plan names, and project
 * addresses under the platform domain (or the stack's base URL where it has none).
 */
export async function connectStage(
  stage: EnvironmentName,
  clients: StageClients = {},
  options: StageOptions = {},
): Promise<StageConnection> {
  const config = environmentConfigs()[stage];
  const { stackName } = config;
  const cloudFormation = clients.cloudFormation ?? new CloudFormationClient({});
  const apiGateway = clients.apiGateway ?? new APIGatewayClient({});
  const closeAws = () => {
    if (!clients.cloudFormation) cloudFormation.destroy();
    if (!clients.apiGateway) apiGateway.destroy();
  };
  let outputs: Map<string, string>;
  try {
    const stack = await findStack(cloudFormation, stackName);
    if (!stack) throw new Error(missingStack(stackName));
    outputs = new Map(
      (stack.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
        OutputKey && OutputValue ? [[OutputKey, OutputValue] as const] : [],
      ),
    );
  } catch (error) {
    closeAws();
    throw error;
  }
  const output = (name: StackOutputName): string => {
    const value = outputs.get(name);
    if (!value)
      throw new Error(`Stack ${stackName} has no output ${name}: deploy the current version of it.`);
    return value;
  };
  let tableName: string;
  let projectsTable: string;
  let petsTable: string;
  try {
    tableName = output(STACK_OUTPUTS.apiKeysTable);
    projectsTable = output(STACK_OUTPUTS.projectsTable);
    petsTable = output(STACK_OUTPUTS.petsTable);
  } catch (error) {
    closeAws();
    throw error;
  }
  const platformDomain = outputs.get(STACK_OUTPUTS.platformDomain);
  const baseUrl = outputs.get(STACK_OUTPUTS.baseUrl);
  // No endpoint: the real DynamoDB of the SDK's region, whatever DYNAMODB_ENDPOINT says.
  const documents = clients.documents ?? createDocumentClient();
  const cacheMs = config.apiKeyCacheSeconds * 1000 + KEY_CACHE_MARGIN_MS;
  return {
    stackName,
    tableName,
    keys: new ApiKeyRepository(documents, tableName),
    projects: new ProjectRepository(documents, projectsTable),
    pets: new PetRepository(documents, petsTable),
    gateway: stackProjectKeys(apiGateway, stackName),
    // The output is read when domains are counted, so the keys tool does not depend on it.
    domainsOf: async (project) =>
      new CustomDomainRepository(documents, output(STACK_OUTPUTS.customDomainsTable)).countByProject(project),
    // A stack from before members (no such output) has no members to remove.
    removeMembersOf: async (project) => {
      const membersTable = outputs.get(STACK_OUTPUTS.projectMembersTable);
      return membersTable ? new MemberRepository(documents, membersTable).deleteAllOf(project) : 0;
    },
    // A stack from before invitations (no such output) has none to remove.
    removeInvitationsOf: async (project) => {
      const invitationsTable = outputs.get(STACK_OUTPUTS.invitationsTable);
      return invitationsTable
        ? new InvitationRepository(documents, invitationsTable).deleteAllOf(project)
        : 0;
    },
    waitForKeyCaches:
      options.waitForKeyCaches ?? (() => new Promise((resolve) => setTimeout(resolve, cacheMs))),
    // Without a platform domain, the execute-api base URL serves every project (the key names it).
    addressOf: (project) =>
      platformDomain
        ? `https://${project}.${platformDomain}/v1`
        : (baseUrl ?? `(${stackName} has no address output)`),
    close: () => {
      if (!clients.documents) documents.destroy();
      closeAws();
    },
  };
}
