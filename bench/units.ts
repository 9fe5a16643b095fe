import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { PETS_TABLE } from '../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { meteredClient } from './capacity';

/** Capacity units of the single-item calls, through the repositories' own code. */
export interface ItemUnits {
  /** getPet's strongly consistent GetItem. */
  readonly getPetReads: number;
  /** createPet's PutItem: the table's write as the store reports it, plus one per index the item lands in. */
  readonly createPetWrites: number;
  readonly createPetTableWrites: number;
  readonly createPetIndexWrites: number;
  /** The authorizer's (eventually consistent) key read. */
  readonly keyRead: number;
  /** The authorizer's read of the key's project (its plan and limits). */
  readonly projectRead: number;
}

/**
 * The embedded store reports a write's units for the base table only; DynamoDB also
 * charges a write per global secondary index the item appears in (both of the pets
 * table's, as every pet has a project and a project-and-status attribute).
 */
export async function measureItemUnits(
  endpoint: string,
  documents: DynamoDBDocumentClient,
  { project, petId, keyId }: { project: string; petId: number; keyId: string },
): Promise<ItemUnits> {
  const metered = meteredClient(endpoint);
  try {
    const pets = new PetRepository(metered.documents, LOCAL_TABLE_NAMES.pets);
    if (!(await pets.get(project, petId))) throw new Error(`pet ${petId} is not in project ${project}`);
    const getPetReads = metered.take().units;
    const pet = await pets.create(project, { name: 'Units', categoryId: 3 });
    const createPetTableWrites = metered.take().units;
    const { Item: raw = {} } = await documents.send(
      new GetCommand({ TableName: LOCAL_TABLE_NAMES.pets, Key: { id: pet.id }, ConsistentRead: true }),
    );
    const createPetIndexWrites = PETS_TABLE.globalIndexes.filter(
      (index) => raw[index.partitionKey.name] !== undefined && raw[index.sortKey.name] !== undefined,
    ).length;
    await new ApiKeyRepository(metered.documents, LOCAL_TABLE_NAMES.apiKeys).get(keyId);
    const keyRead = metered.take().units;
    await new ProjectRepository(metered.documents, LOCAL_TABLE_NAMES.projects).get(project);
    const projectRead = metered.take().units;
    return {
      getPetReads,
      createPetWrites: createPetTableWrites + createPetIndexWrites,
      createPetTableWrites,
      createPetIndexWrites,
      keyRead,
      projectRead,
    };
  } finally {
    metered.close();
  }
}
