import path from 'node:path';
import { issueApiKey } from '../lambda/domain/api-key';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES, localStoreLocation, portFromEnv } from './local-tables';
import { startLocalApi } from './server';

/** Name of the key `npm start` issues; the previous one is revoked at each start, so only hashes are ever stored. */
const DEV_KEY_NAME = 'local development key';

async function issueDevelopmentKey(endpoint: string): Promise<string> {
  const documents = createDocumentClient(endpoint);
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  for (const record of await keys.list()) {
    if (record.name === DEV_KEY_NAME && !record.revokedAt) await keys.revoke(record.keyId, new Date());
  }
  const { apiKey, record } = issueApiKey('business', DEV_KEY_NAME, new Date());
  await keys.put(record);
  documents.destroy();
  return apiKey;
}

async function main(): Promise<void> {
  const store = localStoreLocation();
  const api = await startLocalApi({
    port: portFromEnv('PORT', 3000),
    dynamodbPort: store.port,
    dataDir: path.resolve(process.env.DATA_DIR || '.data'),
    ...(store.endpoint ? { dynamodbEndpoint: store.endpoint } : {}),
  });
  const apiKey = await issueDevelopmentKey(api.dynamodbEndpoint);
  console.log(`Animal Store API listening at ${api.baseUrl}`);
  console.log(
    `DynamoDB-compatible store at ${api.dynamodbEndpoint}${api.store ? ` (embedded, data in ${process.env.DATA_DIR || '.data'})` : ''}`,
  );
  console.log(`Development API key (valid until the next start): ${apiKey}`);
  console.log(`Try: curl -H "Authorization: Bearer ${apiKey}" ${api.baseUrl}/pets`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests in flight, then closing the store.`);
    api.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`Could not start the local API: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
