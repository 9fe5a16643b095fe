import type { ChildProcess } from 'node:child_process';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { PET_STATUSES } from '../lambda/domain/pet';
import { issueApiKey } from '../lambda/domain/api-key';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { PetRepository } from '../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { startTs } from '../test/support/processes';
import { BENCH_PLAN, type BenchKey } from './events';

/** A local API (`startLocalApi`) running in a child process, with its own embedded store. */
export interface ServerChild {
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  /** A document client and a low-level client on the child's store. */
  readonly documents: DynamoDBDocumentClient;
  readonly raw: DynamoDBClient;
  close(): Promise<void>;
}

/**
 * Starts `bench/server-child.ts`. The server gets a process (and so a core) of its
 * own, so the load the bench generates does not share its event loop.
 */
export async function startServerChild(limiter: 'on' | 'off'): Promise<ServerChild> {
  const { child, output } = await startTs(
    'bench/server-child.ts',
    { BENCH_LIMITER: limiter, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    /^\{"baseUrl".*\}$/m,
  );
  const line = output()
    .split('\n')
    .find((text) => text.startsWith('{"baseUrl"'));
  const { baseUrl, dynamodbEndpoint } = JSON.parse(line ?? '{}') as {
    baseUrl: string;
    dynamodbEndpoint: string;
  };
  const documents = createDocumentClient(dynamodbEndpoint);
  const raw = new DynamoDBClient({
    endpoint: dynamodbEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    baseUrl,
    dynamodbEndpoint,
    documents,
    raw,
    close: async () => {
      documents.destroy();
      raw.destroy();
      await stopChild(child);
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Issues `count` Enterprise keys straight into a store, as the keys tool does. */
export async function issueKeys(documents: DynamoDBDocumentClient, count: number): Promise<BenchKey[]> {
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  const issued: BenchKey[] = [];
  for (let index = 0; index < count; index++) {
    const { apiKey, record } = issueApiKey(BENCH_PLAN, `bench key ${index}`, new Date());
    await keys.put(record);
    issued.push({ apiKey, keyId: record.keyId });
  }
  return issued;
}

/** A pet item exactly as the repository stores it: one pet created through it, read back raw. */
export async function petItemTemplate(documents: DynamoDBDocumentClient): Promise<Record<string, unknown>> {
  const pet = await new PetRepository(documents, LOCAL_TABLE_NAMES.pets).create({
    name: 'Template',
    categoryId: 1,
  });
  const { Item } = await documents.send(
    new GetCommand({ TableName: LOCAL_TABLE_NAMES.pets, Key: { id: pet.id }, ConsistentRead: true }),
  );
  if (!Item) throw new Error('the template pet was not stored');
  return Item;
}

/**
 * Loads `count` pets shaped like the repository's items (statuses in turn, ids
 * ascending and older than the template's) with parallel BatchWrites. Returns the ids.
 */
export async function loadPets(
  documents: DynamoDBDocumentClient,
  template: Record<string, unknown>,
  count: number,
  parallel = 8,
): Promise<number[]> {
  const newestId = Number(template.id);
  const ids = Array.from({ length: count }, (_, index) => newestId - (count - index) * 4096);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const start = next;
      next += 25;
      const batch = ids.slice(start, start + 25);
      let requests = batch.map((id, index) => ({
        PutRequest: {
          Item: {
            ...template,
            id,
            name: `Pet ${id}`,
            categoryId: 1 + (id % 7),
            status: PET_STATUSES[(start + index) % PET_STATUSES.length],
          },
        },
      }));
      while (requests.length > 0) {
        const { UnprocessedItems } = await documents.send(
          new BatchWriteCommand({ RequestItems: { [LOCAL_TABLE_NAMES.pets]: requests } }),
        );
        requests = (UnprocessedItems?.[LOCAL_TABLE_NAMES.pets] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return ids;
}
