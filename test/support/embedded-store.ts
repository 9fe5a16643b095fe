import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../local/embedded-dynamodb';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { TableDefinition } from '../../lambda/store/table-schema';
import {
  createTableInput,
  ensureLocalTablesAt,
  localStoreClient,
  waitForActiveTable,
} from '../../local/local-tables';

export interface TestStore {
  readonly store: EmbeddedDynamoDb;
  readonly documents: DynamoDBDocumentClient;
  /** Creates a table from a shared definition under another name (e.g. a deployed table's), and waits until it is ACTIVE. */
  createTable(definition: TableDefinition, tableName: string): Promise<void>;
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
    createTable: async (definition, tableName) => {
      const client = localStoreClient(store.endpoint);
      try {
        await client.send(new CreateTableCommand(createTableInput(definition, tableName)));
        await waitForActiveTable(client, tableName);
      } finally {
        client.destroy();
      }
    },
    close: async () => {
      documents.destroy();
      await store.close();
    },
  };
}
