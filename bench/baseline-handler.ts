import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The bench's baseline Lambda: the least a function of this service can do (make a
 * DynamoDB document client, send one GetCommand). Bundle size and cold start of the
 * real functions are measured against it. It reads the same variables they do.
 */
const endpoint = process.env.DYNAMODB_ENDPOINT || undefined;
const client = DynamoDBDocumentClient.from(
  new DynamoDBClient(
    endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {},
  ),
);
const tableName = process.env.PETS_TABLE_NAME ?? 'pets';

export async function handler(event: { pathParameters?: { petId?: string } | null }) {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: { id: Number(event.pathParameters?.petId ?? 1) } }),
  );
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? {}) };
}
