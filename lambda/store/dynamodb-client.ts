import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type DomainError, StoreRefusedInputError, StoreUnavailableError } from '../core/errors';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import type { IndexDefinition } from './table-schema';

/**
 * Retries and timeouts are bounded so that an unavailable DynamoDB turns into a 503 well
 * inside the function's 10 s timeout (and API Gateway's 29 s): at most 3 attempts of at
 * most 0.5 s to connect and 1 s to answer, about 3.5 s per call, and an operation makes at
 * most two calls in series (the limiter's, then a write).
 */
const DYNAMODB_TIMEOUTS = { connectionTimeout: 500, requestTimeout: 1_000 };
/**
 * The embedded store is single-threaded JavaScript: under a burst of concurrent requests
 * (load tests, the benchmark) they queue for sockets far longer than DynamoDB ever makes
 * them wait. A refused connection still fails at once, so outages stay quick to detect.
 */
const LOCAL_STORE_TIMEOUTS = { connectionTimeout: 5_000, requestTimeout: 10_000 };

/**
 * A local store (dynalite, DynamoDB Local) checks that a request carries a SigV4
 * Authorization header and a date, never its signature, and the credentials are the
 * placeholder `local` anyway: the header's form without the hashing (canonical request,
 * four HMACs) that cost every local call CPU. AWS (no endpoint) keeps the SDK's signer.
 */
const LOCAL_STORE_SIGNER = {
  sign: async <T extends { headers: Record<string, string> }>(request: T): Promise<T> => {
    const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    request.headers['x-amz-date'] = date;
    request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=local`;
    return request;
  },
};
/** The SDK works its user agent out (os.release() among it) on every call; a local store ignores it. */
const LOCAL_STORE_USER_AGENT = async () => [['aws-sdk-js', 'local-store']] as [string, string][];

/** A DynamoDB document client for `endpoint` (a local DynamoDB-compatible store), or for AWS when it is undefined. */
export function createDocumentClient(endpoint?: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: endpoint ? LOCAL_STORE_TIMEOUTS : DYNAMODB_TIMEOUTS,
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          signer: LOCAL_STORE_SIGNER,
          defaultUserAgentProvider: LOCAL_STORE_USER_AGENT,
        }
      : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

let shared: DynamoDBDocumentClient | undefined;

/** The process's document client, made on first use: every handler and the limiter share its connections. */
export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient(optionalEnv(RUNTIME_ENV.dynamodbEndpoint));
  return shared;
}

/** DynamoDB refused the request's values (a key over 2,048 bytes, an empty key): not an outage. */
export function isValidationFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException';
}

/**
 * What a failed store call means to the domain: refused input ({@link StoreRefusedInputError},
 * a 400) or the store's own failure ({@link StoreUnavailableError}, a 503).
 */
export function storeFailure(error: unknown): DomainError {
  return isValidationFailure(error) ? new StoreRefusedInputError(error) : new StoreUnavailableError(error);
}

/** Runs a store call, turning any failure into {@link storeFailure}'s error (callers handle expected conditions first). */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storeFailure(error);
  }
}

export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * Runs a conditional write: true when it was made, false when its condition failed (the
 * item is not in the state the write expects); any other failure is the store's.
 */
export async function conditionalWrite(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw storeFailure(error);
  }
}

/** One page of a Scan or Query: its items and where the next page starts. */
interface Page {
  readonly Items?: Record<string, unknown>[];
  readonly LastEvaluatedKey?: Record<string, unknown>;
}

/** Every item of a paged Scan or Query, following LastEvaluatedKey to the end (operators' listings, the upgrade). */
export async function allPages(
  readPage: (startKey: Record<string, unknown> | undefined) => Promise<Page>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await storeCall(() => readPage(startKey));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Every item of one partition of an index (a project's keys, a project's domains), all pages. */
export function allInIndexPartition(
  client: DynamoDBDocumentClient,
  tableName: string,
  index: Pick<IndexDefinition, 'indexName' | 'partitionKey'>,
  value: string,
): Promise<Record<string, unknown>[]> {
  return allPages((startKey) =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index.indexName,
        KeyConditionExpression: '#partition = :value',
        ExpressionAttributeNames: { '#partition': index.partitionKey.name },
        ExpressionAttributeValues: { ':value': value },
        ExclusiveStartKey: startKey,
      }),
    ),
  );
}
