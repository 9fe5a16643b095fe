import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import { ensureLocalTablesAt } from '../../local/local-tables';

export interface TestStore {
  readonly store: EmbeddedDynamoDb;
  readonly documents: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/** A fresh in-memory embedded store on a free port, with the local tables created. */
export async function startTestStore(): Promise<TestStore> {
  const store = await startEmbeddedDynamoDb({ port: 0 });
  await ensureLocalTablesAt(store.endpoint);
  const documents = createDocumentClient(store.endpoint);
  return {
    store,
    documents,
    close: async () => {
      documents.destroy();
      await store.close();
    },
  };
}
