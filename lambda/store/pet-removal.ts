import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { allInIndexPartition, storeCall } from './dynamodb-client';
import { PETS_TABLE } from './table-schema';

/**
 * Removes a project's pets: the smoke test's cleanup of its throwaway project. Operators' code
 * only: no function imports it, since no function may delete a pet (the API has no delete).
 * Apart from PetRepository for that reason, so no function's bundle carries a delete command.
 */

const PROJECT_INDEX = PETS_TABLE.globalIndexes[1];

/** Deletes every pet of `project` (each only while it is still that project's); returns how many. */
export async function deleteProjectPets(
  client: DynamoDBDocumentClient,
  tableName: string,
  project: string,
): Promise<number> {
  const items = await allInIndexPartition(client, tableName, PROJECT_INDEX, project);
  for (const item of items) {
    await storeCall(() =>
      client.send(
        new DeleteCommand({
          TableName: tableName,
          Key: { [PETS_TABLE.partitionKey.name]: item[PETS_TABLE.partitionKey.name] },
          ConditionExpression: '#project = :project',
          ExpressionAttributeNames: { '#project': PROJECT_INDEX.partitionKey.name },
          ExpressionAttributeValues: { ':project': project },
        }),
      ),
    );
  }
  return items.length;
}
