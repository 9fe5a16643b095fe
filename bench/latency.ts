import { randomInt, randomUUID } from 'node:crypto';
import { type AttributeValue, GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { PETS_TABLE } from '../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { figure, type Figure, msSince, percentile } from './figures';
import { timedRequest } from './http-client';
import type { SeededProject, ServerChild } from './local-stack';

const [STATUS_INDEX, PROJECT_INDEX] = PETS_TABLE.globalIndexes;

interface Pair {
  readonly name: string;
  readonly raw: string;
  api(): Promise<number>;
  store(): Promise<number>;
}

/** The item in DynamoDB's wire format (pet items hold only strings and numbers). */
function toAttributes(item: Record<string, unknown>): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(item).map(([name, value]) => [
      name,
      typeof value === 'number' ? { N: String(value) } : { S: String(value) },
    ]),
  );
}

async function time(send: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await send();
  return msSince(start);
}

/**
 * The raw Query the repository sends for a first page of `limit` (it reads limit + 1 items)
 * on the index the item `like` is in: the partition is that item's value of the index's key.
 */
function rawQuery(like: Record<string, unknown>, status: boolean, limit: number) {
  const index = status ? STATUS_INDEX : PROJECT_INDEX;
  const partition = String(like[index.partitionKey.name]);
  return new QueryCommand({
    TableName: LOCAL_TABLE_NAMES.pets,
    IndexName: index.indexName,
    KeyConditionExpression: '#partition = :partition AND #id > :after',
    ExpressionAttributeNames: { '#partition': index.partitionKey.name, '#id': index.sortKey.name },
    ExpressionAttributeValues: { ':partition': { S: partition }, ':after': { N: '0' } },
    Limit: limit + 1,
  });
}

/**
 * p50 and p99 of each operation through the local server (a real key of the project,
 * limiter on or off), each request followed by the matching raw DynamoDB call sent straight
 * to the same store, so both see the same machine state. Target: API p50 ≤ 3× raw p50.
 */
export async function measureLatency(
  stack: ServerChild,
  { key, newest, byStatus }: SeededProject,
  iterations: number,
  { limiter }: { limiter: 'on' | 'off' } = { limiter: 'on' },
): Promise<Figure[]> {
  const petId = Number(newest.id);
  const check = (status: number, expected: number, name: string) => {
    if (status !== expected) throw new Error(`${name} answered ${status}, expected ${expected}`);
  };
  const api = async (
    name: string,
    path: string,
    expected: number,
    method = 'GET',
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const { status, ms } = await timedRequest(`${stack.baseUrl}${path}`, {
      method,
      apiKey: key.apiKey,
      body,
      headers,
    });
    check(status, expected, name);
    return ms;
  };
  const pairs: Pair[] = [
    {
      name: 'getPet',
      raw: 'GetItem (consistent)',
      api: () => api('getPet', `/pets/${petId}`, 200),
      store: () =>
        time(() =>
          stack.raw.send(
            new GetItemCommand({
              TableName: LOCAL_TABLE_NAMES.pets,
              Key: { id: { N: String(petId) } },
              ConsistentRead: true,
            }),
          ),
        ),
    },
    {
      name: 'listPets',
      raw: 'Query, project index, Limit 21',
      api: () => api('listPets', '/pets?limit=20', 200),
      store: () => time(() => stack.raw.send(rawQuery(newest, false, 20))),
    },
    {
      name: 'listPetsByStatus',
      raw: 'Query, project-and-status index, Limit 21',
      api: () => api('listPets?status', '/pets?status=available&limit=20', 200),
      store: () => time(() => stack.raw.send(rawQuery(byStatus.available, true, 20))),
    },
    {
      name: 'createPet',
      raw: 'PutItem (conditional)',
      api: () => api('createPet', '/pets', 201, 'POST', { name: 'Bench', categoryId: 2, status: 'pending' }),
      store: () =>
        time(() =>
          stack.raw.send(
            new PutItemCommand({
              TableName: LOCAL_TABLE_NAMES.pets,
              Item: toAttributes({ ...newest, id: petId + 1 + randomInt(2 ** 40) }),
              ConditionExpression: 'attribute_not_exists(id)',
            }),
          ),
        ),
    },
    {
      // A create with a fresh Idempotency-Key: reserve the key, write the pet, complete the key.
      name: 'createPetIdempotent',
      raw: 'PutItem ×3 (conditional), in sequence',
      api: () =>
        api(
          'createPet with Idempotency-Key',
          '/pets',
          201,
          'POST',
          { name: 'Bench', categoryId: 2 },
          {
            'Idempotency-Key': `"${randomUUID()}"`,
          },
        ),
      store: () =>
        time(async () => {
          const id = petId + 1 + randomInt(2 ** 40);
          const record = (state: string) => ({
            scopedKey: { S: `${newest.project}#${id}` },
            state: { S: state },
            petId: { N: String(id) },
            createToken: { S: 'bench-token' },
            expiresAt: { N: '4102444800' },
          });
          await stack.raw.send(
            new PutItemCommand({
              TableName: LOCAL_TABLE_NAMES.idempotency,
              Item: record('in_flight'),
              ConditionExpression: 'attribute_not_exists(scopedKey)',
            }),
          );
          await stack.raw.send(
            new PutItemCommand({
              TableName: LOCAL_TABLE_NAMES.pets,
              Item: toAttributes({ ...newest, id }),
              ConditionExpression: 'attribute_not_exists(id)',
            }),
          );
          await stack.raw.send(
            new PutItemCommand({
              TableName: LOCAL_TABLE_NAMES.idempotency,
              Item: record('completed'),
              ConditionExpression: 'petId = :id',
              ExpressionAttributeValues: { ':id': { N: String(id) } },
            }),
          );
        }),
    },
  ];
  const samples = new Map(pairs.map((pair) => [pair.name, { api: [] as number[], store: [] as number[] }]));
  const warmUp = Math.max(5, Math.floor(iterations / 10));
  for (let round = 0; round < warmUp + iterations; round++) {
    for (const pair of pairs) {
      const apiMs = await pair.api();
      const storeMs = await pair.store();
      if (round < warmUp) continue;
      samples.get(pair.name)?.api.push(apiMs);
      samples.get(pair.name)?.store.push(storeMs);
    }
  }
  return pairs.flatMap((pair) => {
    const { api: apiMs, store: storeMs } = samples.get(pair.name) ?? { api: [], store: [] };
    const label = pair.name === 'listPetsByStatus' ? 'listPets?status=available&limit=20' : pair.name;
    if (limiter === 'off') {
      // A diagnostic beside the targets: how much of the ratio is the limiter's.
      return [
        figure({
          name: `latencyLimiterOff.${pair.name}.p50`,
          description: `p50 of ${label} through the local server, limiter off`,
          value: percentile(apiMs, 50),
          unit: 'ms',
          baseline: { value: percentile(storeMs, 50), name: `p50 of raw ${pair.raw}` },
        }),
      ];
    }
    return [
      figure({
        name: `latency.${pair.name}.p50`,
        description: `p50 of ${label} through the local server`,
        value: percentile(apiMs, 50),
        unit: 'ms',
        baseline: { value: percentile(storeMs, 50), name: `p50 of raw ${pair.raw}` },
        target: { of: 'ratio', op: '<=', limit: 3 },
      }),
      figure({
        name: `latency.${pair.name}.p99`,
        description: `p99 of ${label} through the local server`,
        value: percentile(apiMs, 99),
        unit: 'ms',
        baseline: { value: percentile(storeMs, 99), name: `p99 of raw ${pair.raw}` },
      }),
    ];
  });
}
