import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from '../support/embedded-store';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

const TableName = LOCAL_TABLE_NAMES.rateLimits;

/** Sends an update whose condition fails and returns the error the client raised. */
async function failedUpdate(counterId: string, extra: Record<string, unknown>) {
  const update = new UpdateCommand({
    TableName,
    Key: { counterId },
    UpdateExpression: 'ADD #count :one',
    ConditionExpression: '#count < :limit',
    ExpressionAttributeNames: { '#count': 'minuteCount' },
    ExpressionAttributeValues: { ':one': 1, ':limit': 5 },
    ...extra,
  });
  const error = await store.documents.send(update).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ConditionalCheckFailedException);
  return error as ConditionalCheckFailedException;
}

describe('embedded store: ReturnValuesOnConditionCheckFailure', () => {
  it('returns the item the failed condition found when asked for ALL_OLD, as DynamoDB does', async () => {
    await store.documents.send(new PutCommand({ TableName, Item: { counterId: 'full', minuteCount: 5 } }));
    const error = await failedUpdate('full', { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(error.Item && unmarshall(error.Item)).toEqual({ counterId: 'full', minuteCount: 5 });
    // The failed write changed nothing.
    const { Item } = await store.documents.send(new GetCommand({ TableName, Key: { counterId: 'full' } }));
    expect(Item).toEqual({ counterId: 'full', minuteCount: 5 });
  });

  it('returns no item when none was asked for, or when there was no item', async () => {
    await store.documents.send(new PutCommand({ TableName, Item: { counterId: 'quiet', minuteCount: 9 } }));
    expect((await failedUpdate('quiet', {})).Item).toBeUndefined();
    expect(
      (await failedUpdate('quiet', { ReturnValuesOnConditionCheckFailure: 'NONE' })).Item,
    ).toBeUndefined();
    expect(
      (await failedUpdate('never-written', { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).Item,
    ).toBeUndefined();
  });
});
