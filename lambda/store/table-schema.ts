/**
 * Table definitions, stated once: the CDK stack, the local mode and the
 * repositories all read them, so the deployed and the embedded tables cannot drift.
 */

export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  /** Every index has a sort key: the embedded store loses items from hash-only indexes. */
  readonly sortKey: KeyAttribute;
}

export interface TableDefinition {
  /** Logical name: the CDK construct id and the local table name's stem. */
  readonly logicalName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalIndexes: readonly IndexDefinition[];
  /** Attribute that holds an expiry time (epoch seconds) for DynamoDB TTL, if any. */
  readonly timeToLiveAttribute?: string;
}

const PET_ID = { name: 'id', type: 'N' } as const;

/** A project's pets in ascending id order (partition: the project). */
const PROJECT_ID_INDEX = {
  indexName: 'project-id-index',
  partitionKey: { name: 'project', type: 'S' },
  sortKey: PET_ID,
} as const satisfies IndexDefinition;

/** A project's pets of one status in ascending id order (partition: `<project>#<status>`). */
const PROJECT_STATUS_ID_INDEX = {
  indexName: 'project-status-id-index',
  partitionKey: { name: 'projectStatus', type: 'S' },
  sortKey: PET_ID,
} as const satisfies IndexDefinition;

/**
 * Pets: one item per pet, keyed by its numeric id, owned by one project. Two indexes make
 * every list a `Query` in ascending id order within the caller's project: one per project
 * and status, one per project. No two projects share an index partition.
 */
export const PETS_TABLE = {
  logicalName: 'Pets',
  partitionKey: PET_ID,
  globalIndexes: [PROJECT_STATUS_ID_INDEX, PROJECT_ID_INDEX],
} as const satisfies TableDefinition;

/** The indexes of the release before projects: every project's pets shared them. */
const FORMER_PETS_INDEXES = {
  status: {
    indexName: 'status-id-index',
    partitionKey: { name: 'status', type: 'S' },
    sortKey: PET_ID,
  },
  collection: {
    indexName: 'collection-id-index',
    partitionKey: { name: 'collection', type: 'S' },
    sortKey: PET_ID,
  },
} as const satisfies Record<string, IndexDefinition>;

/** A step of the upgrade of a deployed pets table to {@link PETS_TABLE}. */
export interface PetsUpgradeStep {
  readonly indexes: readonly IndexDefinition[];
  /** Whether the project-and-status index exists yet; without it, status lists filter the project index. */
  readonly statusIndex: boolean;
}

/**
 * The deploys that take a pets table of the release before projects to {@link PETS_TABLE}:
 * DynamoDB creates or deletes one index per table update, and an index created on a table
 * with data is filled from the items that carry its key. Step 1 adds the project index
 * (then `npm run projects -- migrate` gives every former pet its project); step 2 adds the
 * project-and-status index, which reads switch to; steps 3 and 4 drop the former indexes.
 * doc/deploying.md gives the commands.
 */
export const PETS_UPGRADE_STEPS = {
  1: {
    indexes: [FORMER_PETS_INDEXES.status, FORMER_PETS_INDEXES.collection, PROJECT_ID_INDEX],
    statusIndex: false,
  },
  2: {
    indexes: [
      FORMER_PETS_INDEXES.status,
      FORMER_PETS_INDEXES.collection,
      PROJECT_ID_INDEX,
      PROJECT_STATUS_ID_INDEX,
    ],
    statusIndex: true,
  },
  3: {
    indexes: [FORMER_PETS_INDEXES.collection, PROJECT_ID_INDEX, PROJECT_STATUS_ID_INDEX],
    statusIndex: true,
  },
} as const satisfies Record<number, PetsUpgradeStep>;

export type PetsUpgradeStepNumber = keyof typeof PETS_UPGRADE_STEPS;

/** The pets table as deployed at an upgrade step; the final table without one. */
export function petsTableAt(step?: PetsUpgradeStepNumber): TableDefinition {
  return step === undefined ? PETS_TABLE : { ...PETS_TABLE, globalIndexes: PETS_UPGRADE_STEPS[step].indexes };
}

/** The pets table of the release before projects (for tests of the upgrade). */
export const FORMER_PETS_TABLE: TableDefinition = {
  ...PETS_TABLE,
  globalIndexes: [FORMER_PETS_INDEXES.status, FORMER_PETS_INDEXES.collection],
};

/**
 * API keys: one item per key, keyed by its public key id; the secret is stored only as a
 * hash. An index lists a project's keys (the console, `projects show`, `projects delete`).
 */
export const API_KEYS_TABLE = {
  logicalName: 'ApiKeys',
  partitionKey: { name: 'keyId', type: 'S' },
  globalIndexes: [
    {
      indexName: 'project-key-index',
      partitionKey: { name: 'project', type: 'S' },
      sortKey: { name: 'keyId', type: 'S' },
    },
  ],
} as const satisfies TableDefinition;

/**
 * Projects (tenants): one item per project, keyed by its name (its subdomain). The plan
 * lives here and nowhere else; the console token only as a hash.
 */
export const PROJECTS_TABLE = {
  logicalName: 'Projects',
  partitionKey: { name: 'name', type: 'S' },
  globalIndexes: [],
} as const satisfies TableDefinition;

/**
 * The attributes the console function's updates of a project name: the key, the count of
 * active keys (the key cap) and the target id a project made before per-project targets gets
 * once, and the count of owners (the last owner's protection, lambda/core/members.ts). It may
 * update these and no other (its policy says so): never a plan or a token.
 */
export const PROJECT_ATTRIBUTES_THE_CONSOLE_UPDATES = ['name', 'activeKeys', 'targetId', 'owners'] as const;

/**
 * Rate-limit counters: one item per caller (API key or client IP) per UTC day,
 * holding the day's count and the current minute's count. DynamoDB's TTL deletes
 * items a day after their day ends.
 */
export const RATE_LIMITS_TABLE = {
  logicalName: 'RateLimits',
  partitionKey: { name: 'counterId', type: 'S' },
  globalIndexes: [],
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

/**
 * The prefix of the daily ranking's items in {@link RATE_LIMITS_TABLE} (`top#<YYYY-MM-DD>`): the
 * only items the ranking's job writes there (its IAM says so).
 */
export const USAGE_TOP_ID_PREFIX = 'top#';

/**
 * Idempotency keys of `POST /pets`: one item per key per project (`<project>#<key>`), holding
 * the create it reserved and, once completed, the pet to replay. DynamoDB's TTL deletes an
 * item after `expiresAt` (24 h after completion, 7 days after the last attempt while in flight);
 * lambda/core/idempotency.ts treats it as absent from then on, before the deletion comes.
 */
export const IDEMPOTENCY_TABLE = {
  logicalName: 'IdempotencyKeys',
  partitionKey: { name: 'scopedKey', type: 'S' },
  globalIndexes: [],
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

/**
 * Custom domains of the domains service: one item per domain, keyed by its normalized name,
 * so a name belongs to one project at most (a conditional put). An index lists a project's
 * domains (a `Query`, sorted by name).
 */
export const CUSTOM_DOMAINS_TABLE = {
  logicalName: 'CustomDomains',
  partitionKey: { name: 'name', type: 'S' },
  globalIndexes: [
    {
      indexName: 'project-name-index',
      partitionKey: { name: 'project', type: 'S' },
      sortKey: { name: 'name', type: 'S' },
    },
  ],
} as const satisfies TableDefinition;

/**
 * Console sessions: one item per signed-in browser, keyed by the SHA-256 of its session secret
 * (the secret itself is never stored). DynamoDB's TTL deletes an item after `expiresAt`, the end
 * of its idle timeout or lifetime; lambda/core/console-session.ts treats it as ended from then on.
 * An index lists a project's sessions by `expiresAt`, so a sign-in counts the unexpired ones.
 */
export const CONSOLE_SESSIONS_TABLE = {
  logicalName: 'ConsoleSessions',
  partitionKey: { name: 'sessionHash', type: 'S' },
  globalIndexes: [
    {
      indexName: 'project-expires-index',
      partitionKey: { name: 'project', type: 'S' },
      sortKey: { name: 'expiresAt', type: 'N' },
    },
  ],
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

/**
 * Projects' members (issue 26): one item per project and person (`<issuer>#<subject>`), with
 * the member's role, email and name. An index lists a person's projects by name. The count of a
 * project's owners lives on its project item (PROJECTS_TABLE), changed with conditional writes.
 */
export const PROJECT_MEMBERS_TABLE = {
  logicalName: 'ProjectMembers',
  partitionKey: { name: 'project', type: 'S' },
  sortKey: { name: 'person', type: 'S' },
  globalIndexes: [
    {
      indexName: 'person-project-index',
      partitionKey: { name: 'person', type: 'S' },
      sortKey: { name: 'project', type: 'S' },
    },
  ],
} as const satisfies TableDefinition;

/**
 * Invitations (issue 27): one item per invitation, keyed by its public id (the link carries the
 * id and a secret, stored only as its hash), so accepting is one read by key. An index lists a
 * project's invitations, newest first. Each project's counter of places under the cap of pending
 * invitations is an item here too (`#places#<project>`, no `project`, so not in the index).
 * DynamoDB's TTL deletes an invitation 30 days after it holds no place (`purgeAt`, set then).
 */
export const INVITATIONS_TABLE = {
  logicalName: 'Invitations',
  partitionKey: { name: 'invitationId', type: 'S' },
  globalIndexes: [
    {
      indexName: 'project-created-index',
      partitionKey: { name: 'project', type: 'S' },
      sortKey: { name: 'createdAt', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'purgeAt',
} as const satisfies TableDefinition;

/**
 * The audit log (issue 28): one item per change, partitioned by project and sorted by
 * `<ISO time>#<random suffix>`, so a project's log is one Query, newest first. Items are only
 * ever put (conditionally, never over another); DynamoDB's TTL deletes one a year after it
 * was made, on `expiresAt`.
 */
export const AUDIT_LOG_TABLE = {
  logicalName: 'AuditLog',
  partitionKey: { name: 'project', type: 'S' },
  sortKey: { name: 'entryId', type: 'S' },
  globalIndexes: [],
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

/**
 * Personal access tokens (issue 28): one item per token, keyed by its public id; the secret is
 * stored only as a hash. An index lists a project's tokens by `holder` (`<issuer>#<subject>#<id>`),
 * so a member's are a `begins_with` on it. DynamoDB's TTL deletes an item after `deleteAt`, 30
 * days after the token's expiry (it is refused from its expiry on, and listed until then).
 */
export const PERSONAL_TOKENS_TABLE = {
  logicalName: 'PersonalTokens',
  partitionKey: { name: 'tokenId', type: 'S' },
  globalIndexes: [
    {
      indexName: 'project-holder-index',
      partitionKey: { name: 'project', type: 'S' },
      sortKey: { name: 'holder', type: 'S' },
    },
  ],
  timeToLiveAttribute: 'deleteAt',
} as const satisfies TableDefinition;

export const TABLES: readonly TableDefinition[] = [
  PETS_TABLE,
  API_KEYS_TABLE,
  PROJECTS_TABLE,
  IDEMPOTENCY_TABLE,
  RATE_LIMITS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  CONSOLE_SESSIONS_TABLE,
  PROJECT_MEMBERS_TABLE,
  INVITATIONS_TABLE,
  AUDIT_LOG_TABLE,
  PERSONAL_TOKENS_TABLE,
];

/** Every attribute that is a key of the table or of one of its indexes (for CreateTable). */
export function keyAttributes(table: TableDefinition): KeyAttribute[] {
  const all = [
    table.partitionKey,
    table.sortKey,
    ...table.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  const byName = new Map<string, KeyAttribute>();
  for (const attribute of all) if (attribute) byName.set(attribute.name, attribute);
  return [...byName.values()];
}
