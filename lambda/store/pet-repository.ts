import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type NewPet, type Pet, type PetStatus, petFrom } from '../domain/pet';
import { newPetId } from '../domain/pet-id';
import { now } from '../shared/clock';
import { isConditionalCheckFailure, StoreUnavailableError, storeCall } from './dynamodb-client';
import { PETS_TABLE } from './table-schema';

const [STATUS_INDEX, COLLECTION_INDEX] = PETS_TABLE.globalIndexes;
/** Value of the `collection` attribute that puts every pet in the all-pets index. */
const PETS_COLLECTION = 'pets';
/** Id collisions need two creates in the same millisecond drawing the same 12 random bits: a few tries suffice. */
const MAX_ID_ATTEMPTS = 5;

interface PetItem extends Pet {
  collection: typeof PETS_COLLECTION;
  createdAt: string;
  /** Random per create: lets a retried write of the same create succeed instead of making a second pet. */
  createToken: string;
}

export interface ListPetsQuery {
  limit: number;
  status?: PetStatus;
  /** Return only pets with a larger id (the previous page's last id). */
  afterId?: number;
}

export interface PetPage {
  pets: Pet[];
  /** True when at least one more pet follows this page. */
  hasMore: boolean;
}

function toPet(item: Record<string, unknown>): Pet {
  const { id, name, categoryId, status } = item as unknown as PetItem;
  return { id, name, categoryId, status };
}

/** The only code that knows how pets are stored. */
export class PetRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Stores a new pet under a fresh id; never overwrites another pet. When the SDK
   * retries a write whose first attempt did land (a timeout), the create token makes
   * the retry succeed on its own item rather than fail and leave an orphan behind.
   */
  async create(newPet: NewPet): Promise<Pet> {
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const pet = petFrom(newPetId(now()), newPet);
      const createToken = randomUUID();
      const item: PetItem = {
        ...pet,
        collection: PETS_COLLECTION,
        createdAt: new Date(now()).toISOString(),
        createToken,
      };
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: item,
            ConditionExpression: 'attribute_not_exists(id) OR createToken = :token',
            ExpressionAttributeValues: { ':token': createToken },
          }),
        );
        return pet;
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw new StoreUnavailableError(error);
      }
    }
    throw new Error(`No free pet id after ${MAX_ID_ATTEMPTS} attempts`);
  }

  /** Reads one pet (strongly consistent, so a pet is readable as soon as its create is acknowledged). */
  async get(id: number): Promise<Pet | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true })),
    );
    return Item ? toPet(Item) : undefined;
  }

  /**
   * One page of pets in ascending id order, read from an index with a key
   * condition: it reads `limit + 1` items (the extra one only tells whether more
   * follow), whatever the size of the table.
   */
  async list({ limit, status, afterId = 0 }: ListPetsQuery): Promise<PetPage> {
    const index = status ? STATUS_INDEX : COLLECTION_INDEX;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await storeCall(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: index.indexName,
            KeyConditionExpression: '#partition = :partition AND #id > :after',
            ExpressionAttributeNames: { '#partition': index.partitionKey.name, '#id': index.sortKey.name },
            ExpressionAttributeValues: { ':partition': status ?? PETS_COLLECTION, ':after': afterId },
            Limit: limit + 1 - items.length,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey && items.length < limit + 1);
    return { pets: items.slice(0, limit).map(toPet), hasMore: items.length > limit };
  }
}
