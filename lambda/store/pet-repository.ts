import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetPage,
  type PetStatus,
  type PetStore,
  petFrom,
} from '../core/pet';
import type { ReservedPetWriter } from '../core/idempotency';
import { newPetId } from '../core/pet-id';
import { now as wallClock } from '../shared/clock';
import { allPages, conditionalWrite, storeCall } from './dynamodb-client';
import { PETS_TABLE } from './table-schema';

const [STATUS_INDEX, PROJECT_INDEX] = PETS_TABLE.globalIndexes;
/** Id collisions need two creates in the same millisecond drawing the same 12 random bits: a few tries suffice. */
const MAX_ID_ATTEMPTS = 5;

interface PetItem extends Pet {
  project: string;
  /** `<project>#<status>`: the partition of the project-and-status index. */
  projectStatus: string;
  createdAt: string;
  /** Random per create: lets a retried write of the same create succeed instead of making a second pet. */
  createToken: string;
}

const projectStatus = (project: string, status: PetStatus) => `${project}#${status}`;

export interface PetRepositoryOptions {
  /**
   * Whether the project-and-status index exists. Only during the upgrade of a deployed
   * table (step 1, see PETS_UPGRADE_STEPS) it does not, and status lists filter the
   * project index instead: still correct, no longer O(limit).
   * @default true
   */
  readonly statusIndex?: boolean;
  /**
   * Milliseconds since the epoch, for new ids and `createdAt`.
   * @default the service's clock
   */
  readonly clock?: () => number;
}

function toPet(item: Record<string, unknown>): Pet {
  const { id, name, categoryId, status } = item as unknown as PetItem;
  return { id, name, categoryId, status };
}

/** The only code that knows how pets are stored. */
export class PetRepository implements PetStore, ReservedPetWriter {
  private readonly statusIndex: boolean;
  private readonly clock: () => number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: PetRepositoryOptions = {},
  ) {
    this.statusIndex = options.statusIndex ?? true;
    this.clock = options.clock ?? wallClock;
  }

  /**
   * Stores a new pet under a fresh id; never overwrites another pet. When the SDK
   * retries a write whose first attempt did land (a timeout), the create token makes
   * the retry succeed on its own item rather than fail and leave an orphan behind.
   */
  async create(project: string, newPet: NewPet): Promise<Pet> {
    for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
      const nowMs = this.clock();
      const pet = petFrom(newPetId(nowMs), newPet);
      if (await this.writeReserved(project, pet, randomUUID(), nowMs)) return pet;
    }
    throw new Error(`No free pet id after ${MAX_ID_ATTEMPTS} attempts`);
  }

  /**
   * Writes a pet whose id was chosen (reserved) beforehand: true when it is stored, by this
   * call or an earlier one with the same create token (which writes the identical item
   * again); false when the id is another pet's. Never overwrites another pet.
   */
  async writeReserved(project: string, pet: Pet, createToken: string, createdAtMs: number): Promise<boolean> {
    const item: PetItem = {
      ...pet,
      project,
      projectStatus: projectStatus(project, pet.status),
      createdAt: new Date(createdAtMs).toISOString(),
      createToken,
    };
    return conditionalWrite(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(id) OR createToken = :token',
          ExpressionAttributeValues: { ':token': createToken },
        }),
      ),
    );
  }

  /**
   * Reads one pet of a project (strongly consistent, so a pet is readable as soon as its
   * create is acknowledged). Another project's pet is undefined, exactly like a missing one.
   */
  async get(project: string, id: number): Promise<Pet | undefined> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true })),
    );
    return Item && Item.project === project ? toPet(Item) : undefined;
  }

  /**
   * One page of a project's pets in ascending id order, read from an index with a key
   * condition: it reads `limit + 1` items (the extra one only tells whether more follow),
   * whatever the size of the table or of other projects.
   */
  async list(project: string, { limit, status, afterId = 0 }: ListPetsQuery): Promise<PetPage> {
    const byStatus = status !== undefined && this.statusIndex;
    const index = byStatus ? STATUS_INDEX : PROJECT_INDEX;
    // Only while the status index is being built (an upgrade step): filter the project's pets.
    const filter = status !== undefined && !byStatus;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await storeCall(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: index.indexName,
            KeyConditionExpression: '#partition = :partition AND #id > :after',
            ...(filter ? { FilterExpression: '#status = :status' } : {}),
            ExpressionAttributeNames: {
              '#partition': index.partitionKey.name,
              '#id': index.sortKey.name,
              ...(filter ? { '#status': 'status' } : {}),
            },
            ExpressionAttributeValues: {
              ':partition': byStatus ? projectStatus(project, status) : project,
              ':after': afterId,
              ...(filter ? { ':status': status } : {}),
            },
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

  /** Ids of the pets written before projects (they have none), for the upgrade. */
  async listUnassigned(): Promise<number[]> {
    const items = await allPages((startKey) =>
      this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'attribute_not_exists(#project)',
          ProjectionExpression: '#id',
          ExpressionAttributeNames: { '#project': 'project', '#id': 'id' },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    const ids = items.map((item) => item.id as number);
    return ids.sort((a, b) => a - b);
  }

  /** Gives a pet written before projects its project; false when it has one already (or is gone). */
  async assignProject(id: number, project: string): Promise<boolean> {
    const { Item } = await storeCall(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true })),
    );
    if (!Item || Item.project !== undefined) return false;
    return conditionalWrite(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET #project = :project, projectStatus = :projectStatus',
          ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(#project)',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: {
            ':project': project,
            ':projectStatus': projectStatus(project, Item.status as PetStatus),
          },
        }),
      ),
    );
  }
}
