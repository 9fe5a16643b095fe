import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';

/** How long the accepted values are kept before they are read again: a rotation is seen within it. */
export const ORIGIN_SECRET_REFRESH_MS = 5 * 60_000;

/** The staging labels read: the current value, and the previous one while a rotation propagates. */
const STAGES = ['AWSCURRENT', 'AWSPREVIOUS'] as const;

/**
 * The origin header's accepted values, read from Secrets Manager (the replica in the
 * function's own region) at the first request that carries the header, then at most every
 * {@link ORIGIN_SECRET_REFRESH_MS}. A secret never rotated has no AWSPREVIOUS: one value.
 * If a re-read fails the values already read stay in use (a rotation keeps the old one valid
 * as AWSPREVIOUS); with none read yet the call fails, and the caller answers 503.
 * The values are never logged.
 */
export function originSecretSource(
  client: SecretsManagerClient,
  secretId: string,
  now: () => number,
  refreshMs = ORIGIN_SECRET_REFRESH_MS,
): () => Promise<readonly string[]> {
  let cached: { values: readonly string[]; readAt: number } | undefined;
  let reading: Promise<readonly string[]> | undefined;

  const readStage = async (stage: (typeof STAGES)[number]): Promise<string | undefined> => {
    try {
      const { SecretString } = await client.send(
        new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }),
      );
      return SecretString || undefined;
    } catch (error) {
      if (stage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  };

  const read = async (): Promise<readonly string[]> => {
    try {
      const values = (await Promise.all(STAGES.map(readStage))).filter(
        (value): value is string => value !== undefined,
      );
      if (values.length === 0) throw new Error('The origin secret has no current value.');
      cached = { values, readAt: now() };
    } catch (error) {
      if (!cached) throw error;
      // The authorizer carries no logger (its bundle stays near the SDK's own size): one JSON
      // line on stderr, as Lambda's runtime writes it to the function's log group.
      console.error(
        JSON.stringify({
          level: 'ERROR',
          message: 'origin secret could not be re-read; the values read before stay in use',
          error: error instanceof Error ? error.message : String(error),
        }),
      );
      cached = { ...cached, readAt: now() };
    }
    return cached.values;
  };

  return () => {
    if (cached && now() - cached.readAt < refreshMs) return Promise.resolve(cached.values);
    // One read at a time, whatever the number of requests waiting for it.
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
}

/**
 * The origin secret's source for a function the stack told where the secret is (its replica
 * in this region), or undefined where no edge serves the environment. Bounded so that a slow
 * Secrets Manager fails inside the function's timeout.
 */
export function originSecretsFromEnv(now: () => number): (() => Promise<readonly string[]>) | undefined {
  const secretArn = optionalEnv(RUNTIME_ENV.edgeOriginSecretArn);
  if (secretArn === undefined) return undefined;
  const client = new SecretsManagerClient({
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
  });
  return originSecretSource(client, secretArn, now);
}
