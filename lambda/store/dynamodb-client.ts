import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';

/**
 * A DynamoDB document client for `endpoint` (a local DynamoDB-compatible store), or for
 * AWS when it is undefined. Retries and timeouts are bounded so that a request fails
 * (503) well inside the API's 29 s timeout instead of hanging on an unavailable store.
 */
export function createDocumentClient(endpoint?: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
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

/** Thrown when the store cannot answer (unreachable, throttling, failing): the API answers 503. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The data store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** Runs a store call, turning any failure into {@link StoreUnavailableError} (callers handle expected conditions first). */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new StoreUnavailableError(error);
  }
}

export function isConditionalCheckFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
