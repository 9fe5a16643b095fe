import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../lambda/store/dynamodb-client';

/** A document client that asks for ConsumedCapacity on every call and records it. */
export interface MeteredClient {
  readonly documents: DynamoDBDocumentClient;
  /** Capacity units reported since the last call of `take`, by table and in total. */
  take(): { units: number; calls: number };
  close(): void;
}

/**
 * Wraps the client the repositories are given (not their code): every command leaves
 * with `ReturnConsumedCapacity: TOTAL`, and the units the store reports are summed.
 */
export function meteredClient(endpoint: string): MeteredClient {
  const documents = createDocumentClient(endpoint);
  let units = 0;
  let calls = 0;
  documents.middlewareStack.add(
    (next) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] })
        .ConsumedCapacity;
      for (const entry of [consumed ?? []].flat()) units += entry.CapacityUnits ?? 0;
      calls += 1;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return {
    documents,
    take: () => {
      const taken = { units, calls };
      units = 0;
      calls = 0;
      return taken;
    },
    close: () => documents.destroy(),
  };
}
